#!/usr/bin/env python3
"""relative-bias-model.py OUTDIR [--errors] - saves MaxViT's attention in
small as OUTDIR/relative.pt2 (torch.export) and .traced.pt, weights from a
fixed seed. Input [2, 4, 4, 4], logits [2, 5].

What torchvision's maxvit_t needs of the importer, in one block: a batch
norm (whose step counter is an integer buffer that the step writes), a
relative position bias read as table[index.view(-1)] from an integer
buffer that nothing writes (a view of a constant, folded at import),
einsum attention and torch.swapaxes; Swin V2's key bias zeroed in a clone
of the qkv bias (bias[4:8].zero_(), a write into a slice of a tensor read
afterwards); and LeViT's bias, per head, read as biases[:, index] (the
index on the second dimension).

With --errors it saves instead OUTDIR/two-indices.pt2, a table indexed by
two index tensors (table[rows, columns]), which remat refuses.
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class RelativeAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm2d(4)
        self.qkv = nn.Linear(4, 12)
        self.table = nn.Parameter(torch.randn(9, 2) * 0.1)
        self.biases = nn.Parameter(torch.randn(2, 9) * 0.1)
        positions = torch.stack(torch.meshgrid(
            torch.arange(2), torch.arange(2), indexing="ij")).flatten(1)
        relative = (positions[:, :, None] - positions[:, None, :]) + 1
        self.register_buffer("index", relative[0] * 3 + relative[1])
        self.head = nn.Linear(4, 5)

    def forward(self, x):
        x = self.norm(x)                                  # [2, 4, 4, 4]
        windows = x.reshape(2, 4, 4, 2, 2).flatten(3)     # [2, 4, 4, 4]
        windows = torch.swapaxes(windows, 1, 3)           # [B, P, G, C]
        qkv_bias = self.qkv.bias.clone()
        qkv_bias[4:8].zero_()
        qkv = F.linear(windows, self.qkv.weight, qkv_bias)
        q, k, v = qkv.chunk(3, -1)                        # [B, P, G, 4]
        q = q.reshape(2, 4, 4, 2, 2).permute(0, 2, 3, 1, 4)
        k = k.reshape(2, 4, 4, 2, 2).permute(0, 2, 3, 1, 4)
        v = v.reshape(2, 4, 4, 2, 2).permute(0, 2, 3, 1, 4)
        scores = torch.einsum("B G H I D, B G H J D -> B G H I J", q, k)
        bias = self.table[self.index.view(-1)].view(4, 4, -1)
        scores = scores + bias.permute(2, 0, 1).unsqueeze(0).unsqueeze(0)
        scores = scores + self.biases[:, self.index]      # [H, I, J]
        out = torch.einsum("B G H I J, B G H J D -> B G H I D",
                           scores.softmax(-1), v)
        pooled = out.mean(dim=(1, 2, 3))
        return self.head(torch.cat([pooled, pooled], 1))


class TwoIndices(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(4, 4))
        self.register_buffer("rows", torch.tensor([0, 1]))

    def forward(self, x):
        return x + self.table[self.rows, self.rows]


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: relative-bias-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    if sys.argv[2:]:
        program = torch.export.export(TwoIndices().train(), (torch.randn(2),))
        torch.export.save(program, os.path.join(out_dir, "two-indices.pt2"))
        return
    model = RelativeAttention().train()
    example = torch.randn(2, 4, 4, 4)
    # Tracing runs forward, which updates the running statistics (in the
    # module traced and in the traced copy alike); export after it, which
    # runs nothing, sees the same state.
    torch.jit.trace(model, example).save(
        os.path.join(out_dir, "relative.traced.pt"))
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "relative.pt2"))


if __name__ == "__main__":
    main()
