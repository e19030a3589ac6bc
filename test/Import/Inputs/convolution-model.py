#!/usr/bin/env python3
"""convolution-model.py OUTDIR [--errors] - saves a small network of 1-D
and 2-D convolutions, plain and transposed, with per-pixel logits, as
OUTDIR/conv.pt2 (torch.export), .traced.pt and .scripted.pt, and one of 3-D
convolutions with per-voxel logits as OUTDIR/volume.pt2, .traced.pt and
.scripted.pt.

The network: Conv1d, ConvTranspose1d (stride 2, output padding), then, over
the signal repeated into an image, Conv2d, a grouped ConvTranspose2d with
output padding and one without bias; its logits are [N, 5, H, W], one class
score per pixel (F.cross_entropy over them takes [N, H, W] labels).

The volume network: a strided, padded Conv3d, a grouped, dilated one, a
ConvTranspose3d with output padding and bias, then 3-D max and average
pooling (padding not counted) that keep the size; logits [N, 3, D, H, W].

With --errors it saves instead, as OUTDIR/<name>.pt2, one program per
convolution remat refuses: an output padding as large as the stride
(PyTorch allows it when the dilation is larger), in 2-D and in 3-D; and a
3-D adaptive average pooling to more than one value per channel.
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


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


class Volumes(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv3d(2, 4, 3, stride=(2, 1, 2), padding=(1, 1, 0))
        self.c2 = nn.Conv3d(4, 6, (2, 3, 2), padding=1, dilation=(1, 2, 1),
                            groups=2)
        self.t1 = nn.ConvTranspose3d(6, 3, 3, stride=(2, 1, 2),
                                     padding=(1, 1, 0),
                                     output_padding=(1, 0, 1))

    def forward(self, x):                                # [N, 2, 5, 6, 7]
        y = torch.relu(self.c1(x))                       # [N, 4, 3, 6, 3]
        z = self.t1(torch.tanh(self.c2(y)))              # [N, 3, 8, 4, 10]
        return (F.max_pool3d(z, 3, stride=1, padding=1) +
                F.avg_pool3d(z, 3, stride=1, padding=1,
                             count_include_pad=False))


class Refused(nn.Module):
    def __init__(self, kind):
        super().__init__()
        if kind == "transposed-padding":
            self.conv = nn.ConvTranspose2d(2, 4, 3, stride=1, dilation=2,
                                           output_padding=1)
        elif kind == "pool-3d":
            self.conv = nn.AdaptiveAvgPool3d(2)
        else:
            self.conv = nn.ConvTranspose3d(2, 4, 3, stride=(2, 1, 2),
                                           dilation=2,
                                           output_padding=(1, 1, 1))

    def forward(self, x):
        return self.conv(x).mean()


def save_errors(out_dir):
    shapes = {"transposed-padding": (2, 2, 5, 5),
              "transposed-padding-3d": (2, 2, 5, 5, 5),
              "pool-3d": (2, 2, 5, 5, 5)}
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
    volumes = Volumes().train()
    example = torch.randn(2, 2, 5, 6, 7)
    torch.export.save(torch.export.export(volumes, (example,)),
                      os.path.join(out_dir, "volume.pt2"))
    torch.jit.trace(volumes, example).save(
        os.path.join(out_dir, "volume.traced.pt"))
    torch.jit.script(volumes).save(os.path.join(out_dir, "volume.scripted.pt"))


if __name__ == "__main__":
    main()
