#!/usr/bin/env python3
"""group-norm-model.py OUTDIR [--errors] - saves a small conv net with the
normalizations and repeats that U-Nets and diffusion models use as
OUTDIR/group-norm.pt2 (torch.export), .traced.pt and .scripted.pt, weights
from a fixed seed. Input [2, 3, 6, 6], logits [2, 5]:
  nn.GroupNorm(4, 8)                     affine
  nn.GroupNorm(2, 8, affine=False)
  nn.InstanceNorm2d(8, affine=True)      its own statistics (the default)
  x.repeat(1, 2, 1, 1), torch.tile(v, (2, 3))

With --errors it saves instead OUTDIR/tracked.pt2, an InstanceNorm2d with
track_running_stats=True, which remat refuses.
"""

import os
import sys

import torch
import torch.nn as nn


class GroupNormNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.groups = nn.GroupNorm(4, 8)
        self.plain = nn.GroupNorm(2, 8, affine=False)
        self.instance = nn.InstanceNorm2d(8, affine=True)
        self.mix = nn.Conv2d(16, 4, 1)
        self.scale = nn.Parameter(torch.randn(1, 2))
        self.head = nn.Linear(4 * 6, 5)

    def forward(self, x):
        h = self.groups(self.conv(x)).relu()
        h = self.instance(self.plain(h))
        h = self.mix(h.repeat(1, 2, 1, 1))            # [2, 4, 6, 6]
        pooled = h.mean(dim=(2, 3))                    # [2, 4]
        tiled = torch.tile(self.scale, (1, 12))        # [1, 24]
        return self.head(torch.tile(pooled, (1, 6)) * tiled)


class Tracked(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.InstanceNorm2d(3, track_running_stats=True)

    def forward(self, x):
        return self.norm(x).mean(dim=(2, 3))


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: group-norm-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    example = torch.randn(2, 3, 6, 6)
    if sys.argv[2:]:
        torch.export.save(torch.export.export(Tracked().train(), (example,)),
                          os.path.join(out_dir, "tracked.pt2"))
        return
    model = GroupNormNet().train()
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "group-norm.pt2"))
    torch.jit.trace(model, example).save(
        os.path.join(out_dir, "group-norm.traced.pt"))
    torch.jit.script(model).save(
        os.path.join(out_dir, "group-norm.scripted.pt"))


if __name__ == "__main__":
    main()
