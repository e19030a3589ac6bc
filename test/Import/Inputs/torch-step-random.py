#!/usr/bin/env python3
"""torch-step-random.py - PyTorch's training step of a make-op-models.py model
whose random ops draw remat's samples.

  torch-step-random.py MODEL.pt IMPORTED.mlir CLASS OUTDIR --input-shape 3x8

Builds make-op-models.py's CLASS in eager PyTorch with MODEL.pt's weights
and patches torch.bernoulli(x, p) and torchvision's StochasticDepth to draw
from remat's generator (docs/execution.md: 1 where uniform(mix(seed), i) <
p), one seed per random op in call order, the seeds named as IMPORTED.mlir's
`seed` arguments in order. Runs forward, cross entropy (labels below the
logits' width) and autograd, and writes
  OUTDIR/inputs/<input>.npy, labels.npy, <seed argument>.npy  (remat-run --inputs)
  OUTDIR/expected/loss.npy, OUTDIR/expected/<param>.grad.npy
"""

import argparse
import importlib.util
import os
import re

import numpy as np
import torch
import torch.nn.functional as F
import torchvision

MASK64 = (1 << 64) - 1


def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK64
    return z ^ (z >> 31)


def sample(seed, p, shape):
    key = mix(seed & MASK64)
    count = int(np.prod(shape))
    draws = [(mix((key + (i + 1) * 0x9e3779b97f4a7c15) & MASK64) >> 11) * 2.0 ** -53 < p
             for i in range(count)]
    return torch.tensor(draws, dtype=torch.float32).reshape(shape)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("imported")
    parser.add_argument("cls")
    parser.add_argument("outdir")
    parser.add_argument("--input-shape", required=True)
    args = parser.parse_args()

    seeds = []

    def next_seed():
        seeds.append(2 + 7919 * len(seeds))
        return seeds[-1]

    def bernoulli(x, p):
        return sample(next_seed(), p, tuple(x.shape))

    def stochastic_depth(self, x):
        if not self.training or self.p == 0.0:
            return x
        survival = 1.0 - self.p
        shape = [x.shape[0]] + [1] * (x.dim() - 1) if self.mode == "row" else [1] * x.dim()
        return x * (sample(next_seed(), survival, tuple(shape)) / survival)

    spec = importlib.util.spec_from_file_location(
        "make_op_models", os.path.join(os.path.dirname(__file__), "make-op-models.py"))
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    model = getattr(models, args.cls)().train()
    model.load_state_dict(torch.jit.load(args.model).state_dict())
    torch.bernoulli = bernoulli
    torchvision.ops.StochasticDepth.forward = stochastic_depth

    generator = torch.Generator().manual_seed(0)
    shape = [int(d) for d in args.input_shape.split("x")]
    x = torch.randn(shape, generator=generator)
    logits = model(x)
    labels = torch.randint(0, logits.shape[1], (logits.shape[0],), generator=generator)
    loss = F.cross_entropy(logits, labels)
    loss.backward()

    names = re.findall(r'remat\.name = "([^"]*)", remat\.role = #remat\.role<seed>',
                       open(args.imported).read())
    assert len(names) == len(seeds), (names, seeds)
    for sub in ("inputs", "expected"):
        os.makedirs(os.path.join(args.outdir, sub), exist_ok=True)
    np.save(os.path.join(args.outdir, "inputs", "x.npy"), x.numpy())
    np.save(os.path.join(args.outdir, "inputs", "labels.npy"), labels.numpy())
    for name, seed in zip(names, seeds):
        np.save(os.path.join(args.outdir, "inputs", name + ".npy"),
                np.array(seed, dtype=np.int64))
    np.save(os.path.join(args.outdir, "expected", "loss.npy"), loss.detach().numpy())
    for name, parameter in model.named_parameters():
        np.save(os.path.join(args.outdir, "expected", name + ".grad.npy"),
                parameter.grad.numpy())


if __name__ == "__main__":
    main()
