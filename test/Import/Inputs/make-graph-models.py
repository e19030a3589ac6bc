#!/usr/bin/env python3
"""make-graph-models.py OUTDIR - models whose forward the importer must
prepare before it converts: in-place ops, Python lists, checks and
constants. Each is saved scripted and traced (NAME.scripted.pt,
NAME.traced.pt) unless noted, and takes one 2x4x8x8 float input.

  view-inplace   dropout(inplace=True) on a flatten view of a fresh value
                 (EfficientNet's classifier)
  mask           an attention mask built from x.new_zeros and assignments
                 into its slices (Swin's shifted windows), and a fill of a
                 torch.empty: constants, not computed from the input
  lists          DenseNet's list of features (read, then appended to) by
                 an nn.ModuleList of blocks with an nn.Sequential, a list item set by a
                 shape test, a warning and shape checks (scripted only: a
                 traced model has none of these)
  deep-checks    100 steps, each branching on its input's shape (scripted
                 only)
  none-results   GoogLeNet's forward in small: a named tuple with a None
                 entry, the input reassigned in inlined methods (scripted
                 only: tracing returns tensors only)
"""

import os
import sys
import warnings
from typing import List, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class ViewInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, padding=1)
        self.head = nn.Sequential(nn.Dropout(0.25, inplace=True), nn.Linear(6, 3))

    def forward(self, x):
        y = F.adaptive_avg_pool2d(self.conv(x), 1)
        return self.head(torch.flatten(y, 1))


class WindowMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.window = 4
        self.shift = 2

    def forward(self, x):
        h, w = x.shape[-2], x.shape[-1]
        mask = x.new_zeros((h, w))
        bounds = ((0, -self.window), (-self.window, -self.shift), (-self.shift, None))
        count = 0
        for a in bounds:
            for b in bounds:
                mask[a[0]:a[1], b[0]:b[1]] = count
                count += 1
        noise = torch.empty(x.shape[1], 1, 1).fill_(0.5)
        return x * noise + mask


class Mask(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = WindowMask()

    def forward(self, x):
        return self.attn(x)


class FactoryMasks(nn.Module):
    """Masks made by torch.zeros and torch.full and then written into:
    constant propagation leaves them (they have writers); the importer
    computes them."""

    def forward(self, x):
        m = torch.zeros(8, 8)
        m[1:3, 2:5] = 2.0
        f = torch.full((8, 8), 1.0)
        f[0:2, :] = 3.0
        return x * f + m


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, 2, 1), nn.ReLU())

    def forward(self, features: List[Tensor]) -> Tensor:
        return self.body(torch.cat(features, 1))


class Lists(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4 + 2 * i) for i in range(3)])
        self.sizes = [3, 5]

    def forward(self, x):
        if x.dim() != 4:
            raise ValueError("expected 4D input (got {}D input)".format(x.dim()))
        assert x.dtype == torch.float32 and not x.is_cuda
        if x.shape[1] > 2:
            warnings.warn("more than two channels")
        sizes = self.sizes.copy()
        if x.shape[-1] < 10:
            sizes[0] = 0
        features = [x]
        for block in self.blocks:
            features.append(block(features))
        y = torch.cat(features, 1)
        return y[:, sizes[0]:sizes[1]]


class Step(nn.Module):
    def forward(self, x):
        if x.shape[-1] == 8:
            y = x * 2.0
        else:
            y = x
        return y


class DeepChecks(nn.Module):
    """A branch on the shape of each step's result, 100 steps deep: each
    folds only once the step before it has."""

    def __init__(self):
        super().__init__()
        self.steps = nn.ModuleList([Step() for _ in range(100)])

    def forward(self, x):
        for step in self.steps:
            x = step(x)
        return x


class Outputs(NamedTuple):
    logits: Tensor
    aux: Optional[Tensor]


class NoneResults(nn.Module):
    """GoogLeNet's forward in small: the input transformed and reassigned in
    inlined methods, then a named tuple whose auxiliary entry is None."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.aux = None
        self.transform_input = True

    def _transform_input(self, x: Tensor) -> Tensor:
        if self.transform_input:
            x0 = torch.unsqueeze(x[:, 0], 1) * 0.5
            x = torch.cat((x0, x[:, 1:]), 1)
        return x

    def _forward(self, x: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        aux: Optional[Tensor] = None
        if self.aux is not None:
            aux = self.aux(x)
        return self.fc(x), aux

    def forward(self, x) -> Outputs:
        x = self._transform_input(x)
        x, aux = self._forward(x)
        if torch.jit.is_scripting():
            if aux is None:
                warnings.warn("Scripted NoneResults always returns Outputs")
        return Outputs(x, aux)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    example = torch.randn(2, 4, 8, 8)
    for name, make, trace in [("view-inplace", ViewInPlace, True),
                              ("mask", Mask, True),
                              ("factory-masks", FactoryMasks, True),
                              ("lists", Lists, False),
                              ("deep-checks", DeepChecks, False),
                              ("none-results", NoneResults, False)]:
        torch.manual_seed(0)
        model = make().train()
        torch.jit.script(model).save(os.path.join(outdir, name + ".scripted.pt"))
        if not trace:
            continue
        state = {k: v.clone() for k, v in model.state_dict().items()}
        traced = torch.jit.trace(model, (example,), check_trace=False)
        traced.load_state_dict(state)
        traced.save(os.path.join(outdir, name + ".traced.pt"))


if __name__ == "__main__":
    main()
