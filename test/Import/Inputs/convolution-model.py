#!/usr/bin/env python3
"""convolution-model.py OUTDIR [--errors] - saves a small network of 1-D
and 2-D convolutions, plain and transposed, with per-pixel logits, as
OUTDIR/conv.pt2 (torch.export), .traced.pt and .scripted.pt.

The network: Conv1d, ConvTranspose1d (stride 2, output padding), then, over
the signal repeated into an image, Conv2d, a grouped ConvTranspose2d with
output padding and one without bias; its logits are [N, 5, H, W], one class
score per pixel (F.cross_entropy over them takes [N, H, W] labels).

With --errors it saves instead, as OUTDIR/<name>.pt2, one program per
convolution remat refuses: a 3-D convolution, and an output padding as
large as the stride (PyTorch allows it when the dilation is larger).
"""

import os
import sys

import torch
import torch.nn as nn


class Convolutions(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(3, 8, 3, padding=1)
        self.t1 = nn.ConvTranspose1d(8, 4, 3, stride=2, padding=1,
                                     output_padding=1)
        self.c2 = nn.Conv2d(4, 8, 3, padding=1)
        self.t2 = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1,
                                     output_padding=1, groups=2)
        self.t3 = nn.ConvTranspose2d(6, 5, 2, stride=2, bias=False)

    def forward(self, x):
        y = self.t1(torch.relu(self.c1(x)))             # [N, 4, 2L]
        image = y.unsqueeze(2).expand(-1, -1, 2, -1)    # [N, 4, 2, 2L]
        return self.t3(self.t2(torch.relu(self.c2(image))))  # [N, 5, 8, 8L]


class Refused(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        if kind == "conv-3d":
            self.conv = nn.Conv3d(2, 4, 3)
        else:
            self.conv = nn.ConvTranspose2d(2, 4, 3, stride=1, dilation=2,
                                           output_padding=1)

    def forward(self, x):
        return self.conv(x).mean()


def save_errors(out_dir):
    shapes = {"conv-3d": (2, 2, 5, 5, 5), "transposed-padding": (2, 2, 5, 5)}
    for kind, shape in shapes.items():
        program = torch.export.export(Refused(kind).train(),
                                      (torch.randn(shape),))
        torch.export.save(program, os.path.join(out_dir, kind + ".pt2"))


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: convolution-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    torch.manual_seed(0)
    if sys.argv[2:]:
        save_errors(out_dir)
        return
    model = Convolutions().train()
    example = torch.randn(2, 3, 8)
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "conv.pt2"))
    torch.jit.trace(model, example).save(os.path.join(out_dir, "conv.traced.pt"))
    torch.jit.script(model).save(os.path.join(out_dir, "conv.scripted.pt"))


if __name__ == "__main__":
    main()
