#!/usr/bin/env python3
"""make-models.py - writes the example and test models as torch.export programs and TorchScript files.

Each model is saved three times, as a torch.export program
(torch.export.export at the example input's shape, torch.export.save),
scripted (torch.jit.script) and traced (torch.jit.trace), in training mode, with weights initialised from a fixed
torch seed (nothing is downloaded):

  neta         NetA: eight conv3x3-BatchNorm-ReLU blocks (3->64 ... 512->512,
               stride 2 every second block), adaptive average pooling,
               flatten, Linear(512, 10). Input: N x 3 x 224 x 224 (CIFAR-10
               upsampled), or smaller for tests.
  small-convnet the seed blog post's net: conv 3->32, conv 32->64 (3x3,
               padding 1), view(-1, 64*4*4), Linear(1024, 10). Input N x 3 x 4 x 4.
  small-convnet-digits the same net for scikit-learn's digits: conv 1->32,
               conv 32->64, view(-1, 64*8*8), Linear(4096, 10). Input
               N x 1 x 8 x 8 (examples/train-digits.py trains it).
  resnet18     torchvision's resnet18 (random weights), 10 classes.
  resnet50     torchvision's resnet50 (random weights), 10 classes.
  transformer  a small transformer block on token ids: embedding plus learned
               positions, layer norm, multi-head attention written with
               matmul and softmax, GELU MLP, residuals, mean over tokens,
               linear head.
  gpt          a GPT-style decoder on token ids: token embedding plus learned
               positions; L pre-LN blocks (layer norm, causal multi-head
               attention with a causal-mask buffer added to the scaled
               scores, residual, layer norm, GELU MLP of width 4d, residual)
               in an nn.ModuleList; final layer norm; untied linear head.
               Returns [batch x tokens, vocabulary] logits, so cross entropy
               on them is the token-level loss (labels: batch x tokens ids).
               Defaults L=12, d=768, 12 heads, 256 tokens, vocabulary 8192
               (98M parameters); --gpt-layers, --gpt-dim, --gpt-heads,
               --gpt-tokens and --gpt-vocab change them.
  gpt-tiny     the same GPT at L=2, d=32, 4 heads, 16 tokens, vocabulary 64,
               for tests.

Usage: make-models.py OUTDIR [--models a,b,...] [--gpt-layers L ...]
Writes OUTDIR/<model>.pt2, OUTDIR/<model>.scripted.pt and
OUTDIR/<model>.traced.pt. The default
is every model but gpt (98M parameters: 390 MB a file) and resnet50 (94 MB a
file); name them in --models.
Run with .venv/bin/python (the project environment: scripts/setup-python.sh).
"""

import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class NetA(nn.Module):
    CHANNELS = [(3, 64, 1), (64, 64, 2), (64, 128, 1), (128, 128, 2),
                (128, 256, 1), (256, 256, 2), (256, 512, 1), (512, 512, 2)]

    def __init__(self, num_classes=10):
        super().__init__()
        blocks = []
        for cin, cout, stride in self.CHANNELS:
            blocks.append(nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                nn.BatchNorm2d(cout), nn.ReLU(inplace=True)))
        self.features = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


class SmallConvNet(nn.Module):
    """The model of the seed blog post, without its checkpoint() calls; for
    `channels` x `size` x `size` inputs (the post's 3 x 4 x 4 by default)."""

    def __init__(self, channels=3, size=4):
        super().__init__()
        self.features = 64 * size * size
        self.conv1 = nn.Conv2d(channels, 32, kernel_size=3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(32, 64, kernel_size=3, stride=1, padding=1)
        self.fc = nn.Linear(self.features, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(-1, self.features)
        return self.fc(x)


def small_convnet_digits():
    """The seed's small conv net for scikit-learn's 1 x 8 x 8 digits."""
    return SmallConvNet(channels=1, size=8)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def split_heads(self, x):
        batch, tokens, dim = x.shape
        x = x.reshape(batch, tokens, self.heads, self.head_dim)
        return x.permute(0, 2, 1, 3)

    def forward(self, x):
        batch, tokens, dim = x.shape
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        attn = torch.softmax(scores, dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(batch, tokens, dim)
        return self.proj(out)


class TransformerBlock(nn.Module):
    def __init__(self, vocab=64, tokens=16, dim=32, heads=4, num_classes=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Parameter(torch.randn(tokens, dim) * 0.02)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(),
                                 nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, num_classes)

    def forward(self, ids):
        x = self.embed(ids) + self.position
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x.mean(dim=1))


class CausalSelfAttention(Attention):
    """Attention whose scores get an additive mask (the causal-mask buffer)
    before the softmax."""

    def forward(self, x, mask):
        batch, tokens, dim = x.shape
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        attn = torch.softmax(scores + mask, dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(batch, tokens, dim)
        return self.proj(out)


class GPTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(),
                                 nn.Linear(4 * dim, dim))

    def forward(self, x, mask):
        x = x + self.attn(self.norm1(x), mask)
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module):
    """A GPT-style decoder; forward(ids [B, T]) -> logits [B*T, vocab]."""

    def __init__(self, layers=12, dim=768, heads=12, tokens=256, vocab=8192):
        super().__init__()
        self.vocab = vocab
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Parameter(torch.randn(tokens, dim) * 0.02)
        self.blocks = nn.ModuleList([GPTBlock(dim, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)
        # Added to the attention scores: -inf above the diagonal, so token t
        # attends to tokens 0..t only. One buffer, shared by every block.
        self.register_buffer(
            "mask", torch.full((tokens, tokens), float("-inf")).triu(1))

    def forward(self, ids):
        x = self.embed(ids) + self.position
        for block in self.blocks:
            x = block(x, self.mask)
        logits = self.head(self.norm(x))
        return logits.reshape(-1, self.vocab)


# The gpt model's size; --gpt-* options change it.
GPT_CONFIG = {"layers": 12, "dim": 768, "heads": 12, "tokens": 256, "vocab": 8192}
GPT_TINY_CONFIG = {"layers": 2, "dim": 32, "heads": 4, "tokens": 16, "vocab": 64}


def resnet18():
    import torchvision
    return torchvision.models.resnet18(num_classes=10)


def resnet50():
    import torchvision
    return torchvision.models.resnet50(num_classes=10)


# name -> (constructor, example input for tracing)
MODELS = {
    "neta": (NetA, lambda: torch.randn(2, 3, 32, 32)),
    "small-convnet": (SmallConvNet, lambda: torch.randn(2, 3, 4, 4)),
    "small-convnet-digits": (small_convnet_digits,
                             lambda: torch.randn(2, 1, 8, 8)),
    "resnet18": (resnet18, lambda: torch.randn(2, 3, 64, 64)),
    "resnet50": (resnet50, lambda: torch.randn(2, 3, 64, 64)),
    "transformer": (TransformerBlock, lambda: torch.randint(0, 64, (2, 16))),
    "gpt": (lambda: GPT(**GPT_CONFIG),
            lambda: torch.randint(0, GPT_CONFIG["vocab"], (2, GPT_CONFIG["tokens"]))),
    "gpt-tiny": (lambda: GPT(**GPT_TINY_CONFIG),
                 lambda: torch.randint(0, GPT_TINY_CONFIG["vocab"],
                                       (2, GPT_TINY_CONFIG["tokens"]))),
}

# Written when --models is not given: gpt and resnet50 are large.
DEFAULT_MODELS = [name for name in MODELS if name not in ("gpt", "resnet50")]


def save(name, outdir):
    make_model, make_input = MODELS[name]
    torch.manual_seed(0)
    model = make_model().train()
    torch.jit.script(model).save(os.path.join(outdir, name + ".scripted.pt"))
    example = make_input()
    # The torch.export program, at the example's shapes (export does not run
    # the model, so its state stays as it is).
    torch.export.save(torch.export.export(model, (example,)),
                      os.path.join(outdir, name + ".pt2"))
    # Tracing runs the model once: keep its batch-norm running statistics
    # out of the saved weights, so both files hold the same state.
    state = {k: v.clone() for k, v in model.state_dict().items()}
    traced = torch.jit.trace(model, (example,), check_trace=False)
    traced.load_state_dict(state)
    traced.save(os.path.join(outdir, name + ".traced.pt"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS))
    for key in GPT_CONFIG:
        parser.add_argument(f"--gpt-{key}", type=int, default=GPT_CONFIG[key],
                            help=f"the gpt model's {key} (default {GPT_CONFIG[key]})")
    args = parser.parse_args()
    for key in GPT_CONFIG:
        GPT_CONFIG[key] = getattr(args, f"gpt_{key}")
    if GPT_CONFIG["dim"] % GPT_CONFIG["heads"]:
        sys.exit("make-models.py: --gpt-dim must be a multiple of --gpt-heads")
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"make-models.py: unknown model '{name}'")
        save(name, args.outdir)


if __name__ == "__main__":
    main()
