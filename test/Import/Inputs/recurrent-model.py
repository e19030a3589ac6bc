#!/usr/bin/env python3
"""recurrent-model.py OUTDIR [--errors] - saves a small network of
recurrent layers as OUTDIR/recurrent.pt2 (torch.export), .traced.pt and
.scripted.pt, and a 2-layer LSTM with dropout between its layers as
OUTDIR/dropout.pt2.

The network, on x [2, 6, 8]: a 2-layer bidirectional LSTM (batch_first), a
time-major GRU started from a trained initial state, an RNN with ReLU, an
LSTM with projections (proj_size); the last step's output and the GRU's
final state feed a linear head, logits [2, 5].

With --errors it saves instead OUTDIR/packed.traced.pt, an LSTM over a
packed sequence, which remat refuses.
"""

import os
import sys

import torch
import torch.nn as nn


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 12, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.gru = nn.GRU(24, 10)
        self.h0 = nn.Parameter(torch.randn(1, 1, 10) * 0.1)
        self.rnn = nn.RNN(10, 6, nonlinearity="relu", batch_first=True)
        self.projected = nn.LSTM(6, 8, proj_size=4, batch_first=True)
        self.head = nn.Linear(4 + 10, 5)

    def forward(self, x):
        y, _ = self.lstm(x)
        h0 = self.h0.expand(1, x.shape[0], 10).contiguous()
        z, final = self.gru(y.transpose(0, 1), h0)
        r, _ = self.rnn(z.transpose(0, 1))
        p, _ = self.projected(r)
        return self.head(torch.cat([p[:, -1], final[0]], 1))


class DropoutLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 8, num_layers=2, dropout=0.25,
                            batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0][:, -1]


class Packed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 8, batch_first=True)

    def forward(self, x):
        packed = nn.utils.rnn.pack_padded_sequence(
            x, torch.tensor([6, 4]), batch_first=True)
        return self.lstm(packed)[1][0][0]


def save_errors(out_dir):
    x = torch.randn(2, 6, 8)
    torch.jit.trace(Packed().train(), x).save(
        os.path.join(out_dir, "packed.traced.pt"))


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--errors"]):
        sys.exit("usage: recurrent-model.py OUTDIR [--errors]")
    out_dir = sys.argv[1]
    torch.manual_seed(0)
    if sys.argv[2:]:
        save_errors(out_dir)
        return
    model = Recurrent().train()
    example = torch.randn(2, 6, 8)
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(out_dir, "recurrent.pt2"))
    torch.jit.trace(model, example).save(
        os.path.join(out_dir, "recurrent.traced.pt"))
    torch.jit.script(model).save(
        os.path.join(out_dir, "recurrent.scripted.pt"))
    torch.export.save(torch.export.export(DropoutLstm().train(), (example,)),
                      os.path.join(out_dir, "dropout.pt2"))


if __name__ == "__main__":
    main()
