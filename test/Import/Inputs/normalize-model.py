#!/usr/bin/env python3
"""normalize-model.py OUTDIR [--errors] - saves a small network of the
norms and clamps that real models call as OUTDIR/normalize.pt2
(torch.export) and .traced.pt, weights from a fixed seed. Input [4, 8],
logits [4, 4]:
  F.normalize (linalg_vector_norm, clamp_min of the norm)
  clamp(-0.5, 0.5), clamp(min=-0.2), clamp_max(0.3)
  a `with torch.autocast("cpu", enabled=False)` region around the head
  (torch.export writes it as wrap_with_autocast)

With --errors it saves instead, as OUTDIR/<name>.pt2, what remat refuses:
  norm-one      torch.linalg.vector_norm(x, ord=1)
  clamp-tensor  x.clamp(min=t) with a tensor of bounds
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        h = F.normalize(self.proj(x), dim=-1)
        h = h.clamp(-0.5, 0.5) + torch.clamp(h, min=-0.2) + h.clamp_max(0.3)
        with torch.autocast("cpu", enabled=False):
            return self.head(h)


class Refused(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        if self.kind == "clamp-tensor":
            return self.proj(x).clamp(min=self.proj.bias)
        return torch.linalg.vector_norm(self.proj(x), ord=1, dim=-1)


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: normalize-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    example = torch.randn(4, 8)
    if sys.argv[2:]:
        for kind in ("norm-one", "clamp-tensor"):
            program = torch.export.export(Refused(kind).train(), (example,))
            torch.export.save(program, os.path.join(out_dir, kind + ".pt2"))
        return
    model = Normalize().train()
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "normalize.pt2"))
    torch.jit.trace(model, example).save(
        os.path.join(out_dir, "normalize.traced.pt"))


if __name__ == "__main__":
    main()
