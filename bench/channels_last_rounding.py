#!/usr/bin/env python3
"""channels_last_rounding.py - how far does eager PyTorch's own channels-last
NetA step round from its contiguous one?

remat's CPU executor stores image activations of 1 MiB and more
channels-last, so its results differ from eager PyTorch's contiguous step by
rounding. This measures the same difference within PyTorch alone: NetA
(examples/make-models.py) at batch 4 of 64x64 images, seeded weights and
data, one ATen thread, trained once contiguously and once with the model and
input channels-last. Prints each parameter gradient's largest difference
relative to its largest magnitude (the largest first), then the losses of
--steps Adam steps both ways.

Usage: .venv/bin/python bench/channels_last_rounding.py [--steps 3] [--seed 0]
"""

import argparse
import copy
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_plan import load_net_a  # noqa: E402


def train(model, x, y, steps, channels_last):
    model = copy.deepcopy(model).train()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses, gradients = [], {}
    for step in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if step == 0:
            gradients = {name: p.grad.clone()
                         for name, p in model.named_parameters()}
        optimizer.step()
        losses.append(loss.item())
    return losses, gradients


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    model = load_net_a()()
    x = torch.randn(4, 3, 64, 64)
    y = torch.randint(0, 10, (4,))
    contiguous, grads = train(model, x, y, args.steps, channels_last=False)
    channels_last, cl_grads = train(model, x, y, args.steps, channels_last=True)
    relative = {name: ((grads[name] - cl_grads[name]).abs().max() /
                       grads[name].abs().max()).item() for name in grads}
    print("first-step gradient difference, relative to the largest magnitude:")
    for name, value in sorted(relative.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  {name}: {value:.3g}")
    print("losses, contiguous:   ", " ".join(f"{v:.6f}" for v in contiguous))
    print("losses, channels-last:", " ".join(f"{v:.6f}" for v in channels_last))


if __name__ == "__main__":
    main()
