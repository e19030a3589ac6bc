#!/usr/bin/env python3
"""einsum-model.py OUTDIR [--errors] - saves a small network built on
torch.einsum as OUTDIR/einsum.pt2 (torch.export), .traced.pt and
.scripted.pt, weights from a fixed seed. Input [2, 3, 4, 8], logits [2, 5].

Its einsums cover what the importer treats apart:
  "b g i d, b g j d -> b g i j"   maxvit's attention scores: batch labels,
                                   a contraction, spaces, upper and lower case
  "B G I J, B G J D -> B G I D"   the weighted values
  "...d,de->...e"                  an ellipsis against a weight
  "bgid,e"                         no "->": the output is the labels that
                                   appear once (b, d, e, g, i: a sum and an
                                   outer product)
  "bgie,ef,f->bi"                  three operands, folded left to right
  "bgij->bj"                       one operand: a sum and a permute

With --errors it saves instead, as OUTDIR/<name>.pt2, the einsums the
importer refuses (input [4, 4]):
  einsum-diagonal    "ii->i"
  einsum-broadcast   "ij,ij->ij" against a [1, 4] weight
"""

import os
import sys

import torch
import torch.nn as nn


class Einsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Parameter(torch.randn(8, 6) * 0.3)
        self.scale = nn.Parameter(torch.randn(6) * 0.3)
        self.mix = nn.Parameter(torch.randn(6, 4) * 0.3)
        self.gate = nn.Parameter(torch.randn(4))
        self.head = nn.Linear(4 + 4 + 3, 5)

    def forward(self, x):
        scores = torch.einsum("b g i d, b g j d -> b g i j", x, x) * 0.3
        attended = torch.einsum("B G I J, B G J D -> B G I D",
                                scores.softmax(-1), x)
        projected = torch.einsum("...d,de->...e", attended, self.proj)
        outer = torch.einsum("bgid,e", projected.tanh(), self.scale)
        mixed = torch.einsum("bgie,ef,f->bi", projected, self.mix, self.gate)
        pooled = torch.einsum("bgij->bj", scores)
        features = torch.cat([outer.mean(dim=(1, 2, 3)), mixed[:, :4],
                              pooled[:, :3]], 1)
        return self.head(features)


class Refused(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.weight = nn.Parameter(torch.ones(1, 4))

    def forward(self, x):
        if self.kind == "einsum-diagonal":
            return torch.einsum("ii->i", x)
        return torch.einsum("ij,ij->ij", x, self.weight)


def save_errors(out_dir):
    for kind in ["einsum-diagonal", "einsum-broadcast"]:
        program = torch.export.export(Refused(kind).train(),
                                      (torch.randn(4, 4),))
        torch.export.save(program, os.path.join(out_dir, kind + ".pt2"))


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: einsum-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    if sys.argv[2:]:
        save_errors(out_dir)
        return
    torch.manual_seed(0)
    model = Einsum().train()
    example = torch.randn(2, 3, 4, 8)
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "einsum.pt2"))
    torch.jit.trace(model, example).save(
        os.path.join(out_dir, "einsum.traced.pt"))
    torch.jit.script(model).save(os.path.join(out_dir, "einsum.scripted.pt"))


if __name__ == "__main__":
    main()
