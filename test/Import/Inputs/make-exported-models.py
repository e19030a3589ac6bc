#!/usr/bin/env python3
"""make-exported-models.py OUTDIR - torch.export programs (training mode,
saved by torch.export.save as OUTDIR/NAME.pt2) for the importer's tests,
each beside its traced TorchScript form (NAME.traced.pt) where the test
compares the two imports. Weights from torch.manual_seed(0).

  convnet     conv, batch norm (its running statistics updated), relu,
              flatten and a linear layer on a 2x3x8x8 input
  state       tied weights (b.weight is a.weight), a non-persistent buffer
              and dropout on a 2x8 input
  two-inputs  a linear layer of x plus y, both 2x8
  cumsum      torch.cumsum, which has no nn op (an error)
  no-grad     a linear layer under torch.no_grad() (a higher-order op that
              the importer does not know: an error)
  dynamic     exported with a dynamic batch dimension (an error)
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(F.relu(self.bn(self.conv(x))).flatten(1))


class State(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)
        self.b.weight = self.a.weight
        self.register_buffer("scale", torch.full((8,), 0.5), persistent=False)
        self.drop = nn.Dropout(0.25)
        self.out = nn.Linear(8, 4)

    def forward(self, x):
        return self.out(self.drop(self.b(torch.relu(self.a(x)) * self.scale)))


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, y):
        return self.fc(x) + y


class Cumsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.cumsum(x, dim=1))


class NoGrad(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        with torch.no_grad():
            frozen = self.fc(x)
        return self.fc(x) + frozen


def inputs_for(name):
    if name in ("convnet", "dynamic"):
        return (torch.randn(2, 3, 8, 8),)
    if name == "two-inputs":
        return (torch.randn(2, 8), torch.randn(2, 8))
    return (torch.randn(2, 8),)


MODELS = {"convnet": ConvNet, "state": State, "two-inputs": TwoInputs,
          "cumsum": Cumsum, "no-grad": NoGrad,
          "dynamic": ConvNet}
TRACED = {"convnet", "state"}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, make in MODELS.items():
        torch.manual_seed(0)
        model = make().train()
        inputs = inputs_for(name)
        dynamic = None
        if name == "dynamic":
            dynamic = {"x": {0: torch.export.Dim("batch", min=2, max=64)}}
        program = torch.export.export(model, inputs, dynamic_shapes=dynamic)
        torch.export.save(program, os.path.join(out_dir, f"{name}.pt2"))
        if name in TRACED:
            # Tracing runs the forward, which updates the running
            # statistics: the traced form keeps the exported values.
            buffers = {k: v.clone() for k, v in model.named_buffers()}
            with torch.no_grad():
                traced = torch.jit.trace(model, inputs, check_trace=False)
                for key, value in traced.named_buffers():
                    value.copy_(buffers[key])
            traced.save(os.path.join(out_dir, f"{name}.traced.pt"))


if __name__ == "__main__":
    main()
