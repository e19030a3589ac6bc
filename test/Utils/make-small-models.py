#!/usr/bin/env python3
"""make-small-models.py OUTDIR NAME... - saves small scripted models that
single tests import, as OUTDIR/NAME.scripted.pt, with weights from a fixed
seed. Made at test time, by the project environment's PyTorch, so that the
tests read files saved by the release remat builds against.

  checkpoint-then-relu  fc = Linear(64, 64); m1x.fc = Linear(64, 64);
                        out = Linear(64, 10); out(m1x(relu(fc(x)))), where
                        m1x(h) = relu(m1x.fc(h))
  module-named-micro1   the same, its inner module called micro1
  zero-linear           fc = Linear(8, 0); out = Linear(8, 4);
                        out(x) + sum(fc(x))
  tied-weights          a = Linear(8, 8); b = Linear(8, 8) with
                        b.weight = a.weight; out = Linear(8, 4);
                        out(b(relu(a(x))))
"""

import os
import sys

import torch
import torch.nn as nn


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.fc(x))


class TwoBlocks(nn.Module):
    """fc, then an Inner module under the given attribute name, then out."""

    def __init__(self, inner_name):
        super().__init__()
        self.fc = nn.Linear(64, 64)
        setattr(self, inner_name, Inner())
        self.out = nn.Linear(64, 10)


class CheckpointThenRelu(TwoBlocks):
    def __init__(self):
        super().__init__("m1x")

    def forward(self, x):
        return self.out(self.m1x(torch.relu(self.fc(x))))


class ModuleNamedMicro1(TwoBlocks):
    def __init__(self):
        super().__init__("micro1")

    def forward(self, x):
        return self.out(self.micro1(torch.relu(self.fc(x))))


class ZeroLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 0)
        self.out = nn.Linear(8, 4)

    def forward(self, x):
        return self.out(x) + self.fc(x).sum()


class TiedWeights(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)
        self.b.weight = self.a.weight
        self.out = nn.Linear(8, 4)

    def forward(self, x):
        return self.out(self.b(torch.relu(self.a(x))))


MODELS = {
    "checkpoint-then-relu": CheckpointThenRelu,
    "module-named-micro1": ModuleNamedMicro1,
    "zero-linear": ZeroLinear,
    "tied-weights": TiedWeights,
}


def main():
    if len(sys.argv) < 3 or any(name not in MODELS for name in sys.argv[2:]):
        sys.exit(f"usage: make-small-models.py OUTDIR {{{','.join(MODELS)}}}...")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in sys.argv[2:]:
        torch.manual_seed(0)
        model = MODELS[name]().train()
        torch.jit.script(model).save(os.path.join(out_dir, f"{name}.scripted.pt"))


if __name__ == "__main__":
    main()
