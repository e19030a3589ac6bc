#!/usr/bin/env python3
"""make-op-models.py OUTDIR - models that reach the importer's other ops.

  ops.{scripted,traced}.pt       pooling, bilinear and nearest upsampling,
                                 activations, slicing,
                                 concatenation, broadcasting, reductions,
                                 fills, softmaxes, flatten and unflatten on
                                 a 2x3x8x8 input
  dropout.{scripted,traced}.pt   dropout, which becomes nn.dropout with a
                                 seed argument (its mask is remat's, so it is
                                 not compared with PyTorch's)
  bernoulli.{scripted,traced}.pt torch.bernoulli(x, p) twice: nn.bernoulli
                                 with a seed argument each
  stochastic-depth.{scripted,traced}.pt
                                 torchvision's StochasticDepth (row mode)
  shared-bn.{scripted,traced}.pt one batch norm applied twice: its running
                                 statistics are updated by both, in order
  activations.{scripted,traced}.pt
                                 hardtanh, relu6, hardswish, hardsigmoid and
                                 silu, as modules and functions, in place
                                 and not, on inputs that reach every piece;
                                 exp, in place and not;
                                 a linear layer gives [2, 10] logits
  language-ops.{scripted,traced}.pt
                                 the pieces of current language models on
                                 a [2, 5, 8] input: Hugging Face's Conv1D
                                 (addmm), its tanh GELU written out (pow),
                                 RMSNorm (square, mean, rsqrt), SwiGLU (silu
                                 times a gate), x.to(dtype) and type_as of
                                 the same type, rotary embeddings' pieces
                                 (neg, cat, cos, sin); [2, 10] logits
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class Ops(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.norm = nn.LayerNorm(8, elementwise_affine=False)
        self.bn = nn.BatchNorm2d(4, affine=False)

    def forward(self, x):
        y = self.bn(self.conv(x))
        a = F.max_pool2d(y, 2)
        b = F.avg_pool2d(y, kernel_size=3, stride=2, padding=1)
        up = F.interpolate(a, scale_factor=2.0, mode="bilinear",
                           align_corners=False)
        # Nearest neighbours: a doubled size, then ratios that are not
        # whole (4 -> 6 -> 8, 4 -> 7 -> 8).
        near = F.interpolate(a, scale_factor=2.0) + F.interpolate(
            F.interpolate(b, size=(6, 7)), size=(8, 8))
        z = torch.sigmoid(up) * torch.tanh(y) - 0.5 * y + near
        z = torch.cat([z, y], dim=1)[:, 2:6]
        row = z.select(2, 0).unsqueeze(2)
        z = self.norm(z + row.expand_as(z)) / 3.0
        w = torch.ones_like(z) + 1 - z
        pooled = b.sum(dim=[2, 3]) + torch.log_softmax(a.mean(dim=(2, 3)), 1)
        logits = torch.softmax(w.flatten(1), dim=-1).unflatten(1, (4, 64))
        return logits.transpose(1, 2).mean(), pooled


class Dropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(self.fc(x))


class Bernoulli(nn.Module):
    """torch.bernoulli(x, p): x gives only the shape."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return y * torch.bernoulli(y, 0.5) + torch.bernoulli(x, 0.25)


class StochasticDepth(nn.Module):
    """torchvision's stochastic depth in row mode: one draw per sample,
    torch.empty([N, 1]).bernoulli_(survival) divided by the survival rate
    (traced: LibTorch makes the in-place ops on the fresh tensor
    functional)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.depth = torchvision.ops.StochasticDepth(0.25, "row")

    def forward(self, x):
        return x + self.depth(self.fc(x))


class SharedBatchNorm(nn.Module):
    """Functional batch norm on the same buffers twice (nn.BatchNorm1d twice
    would also bump num_batches_tracked twice, which the importer rejects)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(4))
        self.register_buffer("running_var", torch.ones(4))

    def forward(self, x):
        y = F.batch_norm(x, self.running_mean, self.running_var, training=True)
        return F.batch_norm(torch.relu(y), self.running_mean, self.running_var,
                            training=True, momentum=0.2)


class Activations(nn.Module):
    """The activations of torchvision's mobile models. The in-place forms act
    on fresh tensors (as after a batch norm), so the importer makes them
    functional."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.relu6 = nn.ReLU6(inplace=True)
        self.hardtanh = nn.Hardtanh(-2.0, 2.5)
        self.hardswish = nn.Hardswish(inplace=True)
        self.hardsigmoid = nn.Hardsigmoid()
        self.silu = nn.SiLU(inplace=True)
        self.fc = nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        y = 3.0 * self.conv(x)
        a = (self.relu6(y + 1.0) + F.relu6(y)
             + F.relu6(y - 1.0, inplace=True) + self.hardtanh(y))
        b = self.hardswish(y - 1.0) + F.hardswish(y)
        c = self.hardsigmoid(y) * F.hardsigmoid(y + 0.5, inplace=True)
        d = self.silu(y * 0.5) + F.silu(y)
        e = torch.exp(y * 0.25) + (y * -0.25).exp_()
        return self.fc((a * b + c * d + e).flatten(1))


class LanguageOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d_weight = nn.Parameter(torch.randn(8, 16) * 0.3)
        self.conv1d_bias = nn.Parameter(torch.randn(16) * 0.1)
        self.norm_weight = nn.Parameter(torch.rand(16) + 0.5)
        self.gate = nn.Linear(16, 16)
        self.up = nn.Linear(16, 16)
        self.out = nn.Linear(16, 10)

    def forward(self, x):
        h = torch.addmm(self.conv1d_bias, x.view(-1, 8), self.conv1d_weight)
        h = h.view(2, 5, 16)
        h = 0.5 * h * (1.0 + torch.tanh(0.79788456 * (h + 0.044715 * torch.pow(h, 3.0))))
        variance = h.to(torch.float32).pow(2).mean(-1, keepdim=True)
        h = self.norm_weight * (h * torch.rsqrt(variance + 1e-6)).to(x.dtype)
        h = F.silu(self.gate(h)) * self.up(h).type_as(h)
        rotated = torch.cat((-h[..., 8:], h[..., :8]), dim=-1)
        h = h * torch.cos(h) + rotated * torch.sin(h)
        return self.out(torch.square(h).mean(dim=1))


class Losses(nn.Module):
    """F.mse_loss in its three reductions; against a narrower target, it
    broadcasts (torch.broadcast_tensors); torch.stack on a new middle and a
    new first dimension."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = self.fc(x)
        target = x[:, :4]
        return (F.mse_loss(y, target) + F.mse_loss(y, target, reduction="sum")
                + F.mse_loss(y, x[:, :1].expand(-1, 4), reduction="none").mean()
                + torch.cat(torch.broadcast_tensors(y, x[:, :1]), 1).sum()
                + (torch.stack([y, target], dim=1) * torch.stack(
                    [x[:, 4:], x[:, :4]])[:, :, None]).sum())


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name, make, example in [("ops", Ops, torch.randn(2, 3, 8, 8)),
                                ("dropout", Dropout, torch.randn(2, 8)),
                                ("bernoulli", Bernoulli, torch.randn(3, 8)),
                                ("stochastic-depth", StochasticDepth,
                                 torch.randn(3, 8)),
                                ("shared-bn", SharedBatchNorm, torch.randn(3, 4)),
                                ("activations", Activations, torch.randn(2, 3, 8, 8)),
                                ("language-ops", LanguageOps, torch.randn(2, 5, 8)),
                                ("losses", Losses, torch.randn(3, 8))]:
        torch.manual_seed(0)
        model = make().train()
        torch.jit.script(model).save(os.path.join(outdir, name + ".scripted.pt"))
        state = {k: v.clone() for k, v in model.state_dict().items()}
        traced = torch.jit.trace(model, (example,), check_trace=False)
        traced.load_state_dict(state)
        traced.save(os.path.join(outdir, name + ".traced.pt"))


if __name__ == "__main__":
    main()
