#!/usr/bin/env python3
"""autocast-model.py - a model that trains under torch.autocast in bf16.

  autocast-model.py OUTDIR [--f16]

Saves OUTDIR/autocast.pt2 (torch.export.export in training mode) and
OUTDIR/autocast.traced.pt (torch.jit.trace) of one model whose forward runs
under torch.autocast("cpu", dtype=torch.bfloat16) on a 4x3x8x8 input: a
convolution (bf16) and batch norm (ATen's mixed kernel: bf16 input, f32
weights), a linear layer and layer norm (mixed again), a bf16 skip branch, a
product of a bf16 and an f32 tensor (f32 by type promotion), and f32 logits
(`.float()`, as Hugging Face models return them). With --f16 the same under
torch.autocast in float16, as OUTDIR/autocast-f16.pt2 and .traced.pt.
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class AutocastModel(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 8 * 8, 32)
        self.norm = nn.LayerNorm(32)
        self.skip = nn.Linear(3, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        with torch.autocast("cpu", dtype=self.dtype):
            h = F.relu(self.bn(self.conv(x)))
            h = self.norm(F.gelu(self.fc(h.flatten(1))))
            h = h + self.skip(x.mean((2, 3)))
            h = h * x.mean((1, 2, 3)).unsqueeze(1)
            return self.head(h).float()


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--f16"]):
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    f16 = sys.argv[2:] == ["--f16"]
    name = "autocast-f16" if f16 else "autocast"
    torch.manual_seed(0)
    model = AutocastModel(torch.float16 if f16 else torch.bfloat16).train()
    example = torch.randn(4, 3, 8, 8)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, name + ".pt2"))
    traced = torch.jit.trace(model, example, check_trace=False)
    # Tracing ran the forward in training mode: the running statistics
    # start where the program's do.
    traced.load_state_dict(state)
    traced.save(os.path.join(out_dir, name + ".traced.pt"))


if __name__ == "__main__":
    main()
