#!/usr/bin/env python3
"""make-list-models.py OUTDIR - models of the ops that return or rebuild
tensor lists and layouts, saved scripted and traced.

  lists.{scripted,traced}.pt   chunk (even and uneven), split by a size and
                               by sizes, unbind, read by unpacking and by
                               indexing (negative indices too), on a 2x12
                               input; logits [2, 10] for a training step
  layout.{scripted,traced}.pt  torch.roll over two dims, F.pad in constant
                               mode (a value, zeros, a negative amount that
                               crops), a parameter indexed by an integer
                               buffer (x[idx]); logits [2, 10]
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Lists(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)
        self.head = nn.Linear(12, 10)

    def forward(self, x):
        y = self.fc(x)
        a, b, c = y.chunk(3, dim=1)           # 3 pieces of 4
        uneven = torch.chunk(y, 5, dim=-1)    # 4 pieces of 3
        p, q = torch.split(y, [5, 7], dim=1)
        r = y.split(5, 1)                     # 5, 5, 2
        rows = y.unbind(0)
        z = a * b + torch.sigmoid(c)          # [2, 4]
        mixed = torch.cat([z, uneven[1], r[-1], uneven[-1]], dim=1)   # [2, 12]
        swapped = torch.cat([q, p], dim=1)
        both = torch.cat([rows[1].unsqueeze(0),
                          rows[0].unsqueeze(0)], dim=0)
        return self.head(mixed + swapped * both)


class Layout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)
        self.table = nn.Parameter(torch.randn(7, 2, 3))
        self.register_buffer("index", torch.tensor([[6, 0], [3, 3]]))
        self.head = nn.Linear(14 + 16 + 12, 10)

    def forward(self, x):
        y = self.fc(x).reshape(2, 3, 4)
        r = torch.roll(y, shifts=(1, -6), dims=(1, 2))
        p = F.pad(r, (1, 2, 0, -1), value=0.5)          # [2, 2, 7]
        q = F.pad(r, (0, 0, 1, 0))                      # [2, 4, 4]
        t = self.table[self.index]                      # [2, 2, 2, 3]
        return self.head(torch.cat([p.flatten(1), q.flatten(1),
                                    t.flatten(1) * x.sum()], 1))


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name, make, example in [("lists", Lists, torch.randn(2, 12)),
                                ("layout", Layout, torch.randn(2, 12))]:
        torch.manual_seed(0)
        model = make().train()
        torch.jit.script(model).save(os.path.join(outdir, name + ".scripted.pt"))
        traced = torch.jit.trace(model, (example,), check_trace=False)
        traced.save(os.path.join(outdir, name + ".traced.pt"))


if __name__ == "__main__":
    main()
