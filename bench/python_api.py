#!/usr/bin/env python3
"""python_api.py - models nobody here wrote, trained through `import remat`
beside eager PyTorch.

For each model of bench/outside_models.py (Hugging Face and timm models, the
tutorials' U-Net and LSTM language model, a 3-D U-Net), the script builds two
copies with the same weights, compiles one with remat.compile (cross entropy,
torch.optim.AdamW, --budget) and trains both on the same batches, steps
interleaved, on the same ATen threads (--threads). It prints per model:

  compile s     torch.export plus remat's import, autodiff, planning
  loss diff     |remat - eager| of the first step's loss, and the largest
                over the steps (models with random ops draw other masks than
                PyTorch: "random"; training amplifies differences where batch
                norm normalizes over a few values)
  eager ms      median eager step (zero_grad, forward, loss, backward, step)
  remat ms      median remat step, and the ratio remat / eager
  outside/plan  the most bytes ATen held outside the arena in a step, over
                the plan's peak
  while         the op whose kernel ran when they were most

A model that fails prints the first line of its remat.Error.

Usage: .venv/bin/python bench/python_api.py [--models a,b] [--steps 6]
           [--threads 1] [--budget 80%] [--batch 2] [--image 32] [--tokens 16]
           [--check]
"""

import argparse
import copy
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outside_models  # noqa: E402
import remat  # noqa: E402


def make_batch(spec, generator):
    inputs = spec.example(generator)
    if spec.per_token:
        labels = torch.randint(0, spec.classes, (inputs.numel(),),
                               generator=generator)
    elif spec.per_pixel:
        shape = (inputs.shape[0],) + tuple(inputs.shape[2:])
        labels = torch.randint(0, spec.classes, shape, generator=generator)
    else:
        labels = torch.randint(0, spec.classes, (inputs.shape[0],),
                               generator=generator)
    return inputs, labels


def has_random_ops(step):
    return "role<seed>" in step.mlir()


def run_model(name, spec, args):
    torch.manual_seed(0)
    model = spec.build().train()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    reference_optimizer = torch.optim.AdamW(reference.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(1)
    data = [make_batch(spec, generator) for _ in range(args.steps)]
    start = time.perf_counter()
    step = remat.compile(model, data[0], optimizer=optimizer,
                         budget=args.budget, check=args.check)
    compile_seconds = time.perf_counter() - start
    ours, theirs, differences = [], [], []
    for inputs, labels in data:
        start = time.perf_counter()
        loss = step(inputs, labels)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        reference_optimizer.zero_grad()
        reference_loss = F.cross_entropy(reference(inputs), labels)
        reference_loss.backward()
        reference_optimizer.step()
        theirs.append(time.perf_counter() - start)
        differences.append(abs(loss.item() - reference_loss.item()))
    memory = step.memory()
    # The first step of each allocates (ATen's and the allocator's caches).
    eager_ms = statistics.median(theirs[1:] or theirs) * 1e3
    remat_ms = statistics.median(ours[1:] or ours) * 1e3
    difference = ("random" if has_random_ops(step) else
                  "%.0e/%.0e" % (differences[0], max(differences)))
    return ("%-22s %9.1f %13s %9.1f %9.1f %6.2fx %6.1f%%  %s" % (
        name, compile_seconds, difference, eager_ms, remat_ms,
        remat_ms / eager_ms,
        100.0 * memory["outside_arena_bytes"] / memory["peak_bytes"],
        memory["outside_arena_op"].split(" at ")[0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(outside_models.MODELS))
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=outside_models.BATCH)
    parser.add_argument("--image", type=int, default=outside_models.IMAGE,
                        help="side of the image models' inputs")
    parser.add_argument("--tokens", type=int, default=outside_models.TOKENS)
    parser.add_argument("--budget", default=None,
                        help="remat.compile's budget (default: none, "
                             "nothing recomputed)")
    parser.add_argument("--check", action="store_true",
                        help="check the plan at every step (remat.compile's "
                             "check=True), not only at the first")
    args = parser.parse_args()
    outside_models.BATCH = args.batch
    outside_models.IMAGE = args.image
    outside_models.TOKENS = args.tokens
    torch.set_num_threads(args.threads)
    print("%-22s %9s %13s %9s %9s %7s %7s  %s" % (
        "model", "compile s", "loss diff", "eager ms", "remat ms", "ratio",
        "outside", "while"))
    failures = 0
    for name in args.models.split(","):
        try:
            print(run_model(name, outside_models.MODELS[name], args),
                  flush=True)
        except remat.Error as error:
            failures += 1
            print("%-22s remat.Error: %s" % (name, str(error).splitlines()[0]),
                  flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
