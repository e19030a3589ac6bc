#!/usr/bin/env python3
"""attention-model.py OUTDIR [--errors] - saves a small network built on
F.scaled_dot_product_attention in the three forms remat imports:
OUTDIR/attention.pt2 (torch.export), .traced.pt and .scripted.pt, weights
from a fixed seed. Input [4, 8, 16] floats, logits [4, 10].

Its three attentions cover what the importer treats apart:
  causal      grouped-query heads (4 query heads, 2 key/value heads),
              is_causal=True, an explicit scale
  padding     a boolean mask that hides the last two keys, built from
              arange at run time (a constant after import: it becomes
              additive)
  triangle    a boolean mask that is exactly the causal triangle, from
              torch.tril (it becomes is_causal, and no mask is kept)

With --errors it saves instead, as OUTDIR/<name>.pt2, one program per
attention the importer or autodiff refuses, or treats apart (input
[2, 4, 8, 8]):
  attention-dropout       dropout_p=0.1 (imports: its keep mask draws
                          from a seed argument)
  attention-dropout-one   dropout_p=1.0
  attention-3d            q, k, v of rank 3
  attention-value-dim     values with another head dimension than the keys
  attention-learned-mask  an additive mask that is a parameter
  attention-bool-buffer   a boolean buffer of the model, the causal
                          triangle (nothing writes it: a constant)
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, LENGTH, DIM, HEADS, KV_HEADS, CLASSES = 4, 8, 16, 4, 2, 10


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = HEADS
        self.kv_heads = KV_HEADS
        self.head_dim = DIM // HEADS
        self.q = nn.Linear(DIM, DIM)
        self.kv = nn.Linear(DIM, 2 * KV_HEADS * self.head_dim)
        self.out = nn.Linear(DIM, CLASSES)

    def split(self, x, count: int):
        return x.view(x.shape[0], x.shape[1], count, self.head_dim).transpose(1, 2)

    def repeat(self, x):
        """Each key/value head for the query heads that share it, as Hugging
        Face's repeat_kv."""
        b, h, n, d = x.shape
        group = self.heads // self.kv_heads
        return x[:, :, None].expand(b, h, group, n, d).reshape(b, h * group, n, d)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.split(self.q(x), self.heads)
        k, v = self.kv(x).chunk(2, dim=-1)
        k, v = self.split(k, self.kv_heads), self.split(v, self.kv_heads)
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                scale=0.3, enable_gqa=True)
        kf, vf = self.repeat(k), self.repeat(v)
        keep = torch.arange(n) < n - 2
        padding = F.scaled_dot_product_attention(q, kf, vf,
                                                 attn_mask=keep.view(1, 1, 1, n))
        triangle = torch.ones(n, n, dtype=torch.bool).tril()
        tri = F.scaled_dot_product_attention(causal, kf, vf, attn_mask=triangle)
        h = (padding + tri).transpose(1, 2).reshape(b, n, -1)
        return self.out(h.mean(dim=1))


class Refused(nn.Module):
    """x [2, 4, 8, 8] as q, k and v, through one attention `kind`; logits
    [2, 8] (the mean over heads and queries)."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.bias = nn.Parameter(torch.zeros(8, 8))
        self.proj = nn.Parameter(torch.randn(8, 8))
        self.register_buffer("keep", torch.ones(8, 8, dtype=torch.bool).tril())

    def forward(self, x):
        return self.attend(x).mean(dim=(1, 2))

    def attend(self, x):
        if self.kind == "attention-dropout":
            q = F.linear(x, self.proj)
            return F.scaled_dot_product_attention(q, x, x, dropout_p=0.1)
        if self.kind == "attention-dropout-one":
            return F.scaled_dot_product_attention(x, x, x, dropout_p=1.0)
        if self.kind == "attention-3d":
            return F.scaled_dot_product_attention(x[0], x[0], x[0])
        if self.kind == "attention-bool-buffer":
            return F.scaled_dot_product_attention(x, x, x, attn_mask=self.keep)
        if self.kind == "attention-value-dim":
            return F.scaled_dot_product_attention(x, x, x[..., :4])
        return F.scaled_dot_product_attention(x, x, x, attn_mask=self.bias)


ERRORS = ["attention-dropout", "attention-dropout-one", "attention-3d",
          "attention-bool-buffer", "attention-value-dim",
          "attention-learned-mask"]


def save_errors(out_dir):
    for kind in ERRORS:
        program = torch.export.export(Refused(kind).train(),
                                      (torch.randn(2, 4, 8, 8),))
        torch.export.save(program, os.path.join(out_dir, kind + ".pt2"))


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: attention-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    if sys.argv[2:]:
        save_errors(out_dir)
        return
    torch.manual_seed(0)
    model = Attention().train()
    example = torch.randn(BATCH, LENGTH, DIM)
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "attention.pt2"))
    torch.jit.trace(model, (example,)).save(
        os.path.join(out_dir, "attention.traced.pt"))
    torch.jit.script(model).save(os.path.join(out_dir, "attention.scripted.pt"))


if __name__ == "__main__":
    main()
