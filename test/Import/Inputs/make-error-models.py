#!/usr/bin/env python3
"""make-error-models.py OUTDIR - TorchScript models that remat-import rejects.

Each is a small scripted module whose forward takes one 2x4 float input
(`labels.pt` also takes labels) and hits one error of the importer.
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Unsupported(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, 1)


class DataDependentBranch(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            return x * 2.0
        return x


class UpdatesInput(nn.Module):
    def forward(self, x):
        x.add_(1.0)
        return x * 2.0


class InferenceBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(4))
        self.register_buffer("var", torch.ones(4))

    def forward(self, x):
        return F.batch_norm(x, self.mean, self.var, training=False)


class ReturnsNumber(nn.Module):
    def forward(self, x):
        return x.relu(), x.size(0)


class Labels(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, labels):
        return F.cross_entropy(self.fc(x), labels)


class ReversedHardtanh(nn.Module):
    """Bounds that PyTorch takes (every element becomes max_val) but that
    are most likely a mistake: nn.Hardtanh and, since PyTorch 2.x,
    F.hardtanh reject them before the op runs; the op itself does not."""

    def forward(self, x):
        return torch.ops.aten.hardtanh(x, 2.0, -1.0)


class WritesReadView(nn.Module):
    def forward(self, x):
        y = x * 2.0
        y[:, :2].mul_(3.0)
        return y + x


class Raises(nn.Module):
    def forward(self, x):
        if x.shape[1] != 3:
            raise ValueError("expected 3 channels, got {}".format(x.shape[1]))
        return x


class ReflectPad(nn.Module):
    def forward(self, x):
        return F.pad(x, (1, 1), mode="reflect")


class BernoulliOfProbabilities(nn.Module):
    def forward(self, x):
        return torch.bernoulli(torch.sigmoid(x))


class RollFlattened(nn.Module):
    def forward(self, x):
        return torch.roll(x, 1)


class InPlaceInBranch(nn.Module):
    """An in-place op under a branch on a tensor's value: the branch is the
    error, not the op (rewriting it would let later readers see a value
    defined inside the branch)."""

    def forward(self, x):
        y = x * 2.0
        if bool(x.sum() > 0):
            y.add_(1.0)
        return y + x


class WritesInputIntoMask(nn.Module):
    """A tensor that depends on no input, then written with one: not a
    constant (it crashed the constant folder once)."""

    def forward(self, x):
        m = x.new_zeros(2, 4)
        m[0] = x[0] * 3.0
        return m + x


class ConvertsType(nn.Module):
    """A conversion of floats to integers."""

    def forward(self, x):
        return x.to(torch.int64).sum(1)


class PowOfTensor(nn.Module):
    """An exponent that is a tensor, not a number."""

    def forward(self, x):
        return torch.pow(x, x)


class ScaledAddmm(nn.Module):
    """addmm with beta other than 1."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 3))
        self.bias = nn.Parameter(torch.randn(3))

    def forward(self, x):
        return torch.addmm(self.bias, x, self.weight, beta=0.5)


MODELS = {
    "unsupported": Unsupported,
    "branch": DataDependentBranch,
    "updates-input": UpdatesInput,
    "inference-bn": InferenceBatchNorm,
    "returns-number": ReturnsNumber,
    "labels": Labels,
    "reversed-hardtanh": ReversedHardtanh,
    "writes-read-view": WritesReadView,
    "raises": Raises,
    "reflect-pad": ReflectPad,
    "bernoulli-probabilities": BernoulliOfProbabilities,
    "roll-flattened": RollFlattened,
    "converts-type": ConvertsType,
    "pow-of-tensor": PowOfTensor,
    "scaled-addmm": ScaledAddmm,
    "inplace-in-branch": InPlaceInBranch,
    "writes-input-into-mask": WritesInputIntoMask,
}


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    for name, make in MODELS.items():
        torch.jit.script(make()).save(os.path.join(outdir, name + ".pt"))


if __name__ == "__main__":
    main()
