"""eager_sensitivity.py - how far eager PyTorch's own losses move when the
weights move by rounding: a model of bench/outside_models.py trained twice
in eager PyTorch (torch.optim.AdamW, lr 1e-3, the same batches), once with
every weight scaled by 1 + 1e-7 * N(0, 1). Where batch norm normalizes over
a handful of values (1x1 feature maps at batch 2), the two runs part after a
few steps: a loss difference between remat and eager of that size there is
rounding, not an error.

Usage: .venv/bin/python bench/eager_sensitivity.py [--model timm-efficientnet_b0]
           [--steps 8] [--batch 2] [--image 32]
"""

import argparse
import copy
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outside_models  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="timm-efficientnet_b0",
                        choices=sorted(outside_models.MODELS))
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch", type=int, default=outside_models.BATCH)
    parser.add_argument("--image", type=int, default=outside_models.IMAGE)
    args = parser.parse_args()
    outside_models.BATCH = args.batch
    outside_models.IMAGE = args.image
    torch.set_num_threads(1)
    torch.manual_seed(0)
    spec = outside_models.MODELS[args.model]
    if spec.per_token or spec.per_pixel:
        parser.error("--model: an image classifier")
    model = spec.build().train()
    perturbed = copy.deepcopy(model)
    with torch.no_grad():
        for parameter in perturbed.parameters():
            parameter.mul_(1 + 1e-7 * torch.randn_like(parameter))
    runs = [(model, torch.optim.AdamW(model.parameters(), lr=1e-3)),
            (perturbed, torch.optim.AdamW(perturbed.parameters(), lr=1e-3))]
    generator = torch.Generator().manual_seed(1)
    print("step  loss            perturbed       difference")
    for step in range(args.steps):
        inputs = spec.example(generator)
        labels = torch.randint(0, spec.classes, (inputs.shape[0],),
                               generator=generator)
        losses = []
        for network, optimizer in runs:
            optimizer.zero_grad()
            loss = F.cross_entropy(network(inputs), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print("%4d  %-14.7g  %-14.7g  %.1e" % (
            step, losses[0], losses[1], abs(losses[0] - losses[1])))


if __name__ == "__main__":
    main()
