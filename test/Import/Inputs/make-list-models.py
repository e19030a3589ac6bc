#!/usr/bin/python3
"""make-list-models.py OUTDIR - models of the ops that return or rebuild
tensor lists and layouts, saved scripted and traced.

  lists.{scripted,traced}.pt   chunk (even and uneven), split by a size and
                               by sizes, unbind, read by unpacking and by
                               indexing (negative indices too), on a 2x12
                               input; logits [2, 10] for a training step
"""

import os
import sys

import torch
import torch.nn as nn


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


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name, make, example in [("lists", Lists, torch.randn(2, 12))]:
        torch.manual_seed(0)
        model = make().train()
        torch.jit.script(model).save(os.path.join(outdir, name + ".scripted.pt"))
        traced = torch.jit.trace(model, (example,), check_trace=False)
        traced.save(os.path.join(outdir, name + ".traced.pt"))


if __name__ == "__main__":
    main()
