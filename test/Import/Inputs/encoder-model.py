#!/usr/bin/env python3
"""encoder-model.py OUTDIR - saves nn.TransformerEncoder (2 layers of
nn.TransformerEncoderLayer(16, 2, 32, dropout=0, batch_first=True)) and a
linear head as OUTDIR/encoder.pt2, .traced.pt and .scripted.pt, weights from
a fixed seed. Input [2, 5, 16], logits [2, 10]. Scripted, the encoder and
its attention branch on their fast-path checks (is_grad_enabled, the
training flag, a formatted message's length), which fold in training mode.

It saves nn.Transformer (one encoder and one decoder layer, the same sizes,
a causal target mask, tgt_is_causal) with the same head as OUTDIR/decoder.pt2, .traced.pt
and .scripted.pt, on the input as source and target. Scripted, the
decoder's cross-attention asks `query is not key` and `k is v`: the query
comes from the target, key and value from the encoder's output, different
tensors.
"""

import os
import sys

import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.encoder(x).mean(dim=1))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.Transformer(16, 2, 1, 1, 32, dropout=0.0,
                                          batch_first=True)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        hidden = self.transformer(x, x, tgt_mask=mask, tgt_is_causal=True)
        return self.head(hidden.mean(dim=1))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: encoder-model.py OUTDIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, make in (("encoder", Encoder), ("decoder", Decoder)):
        torch.manual_seed(0)
        model = make().train()
        example = torch.randn(2, 5, 16)
        torch.export.save(torch.export.export(model, (example,)),
                          os.path.join(out_dir, name + ".pt2"))
        torch.jit.trace(model, (example,), check_trace=False).save(
            os.path.join(out_dir, name + ".traced.pt"))
        torch.jit.script(model).save(
            os.path.join(out_dir, name + ".scripted.pt"))

if __name__ == "__main__":
    main()
