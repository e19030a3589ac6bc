#!/usr/bin/env python3
"""python_plan.py - the README's main job through `import remat`: NetA at
batch 64 in 2.5 GB planned by remat.plan and trained beside PyTorch's own
accumulation loop.

NetA (examples/make-models.py) is built twice with the same weights; one copy
goes through remat.plan(batch=--batch, budget=--budget, profile=--profile,
torch.optim.Adam), which weighs the whole batch against accumulation over
micro-batches (each rematerialized where it must be) and compiles the
fastest that fits. The other trains with the loop a PyTorch user writes for
the micro-batch remat chose (zero_grad; per micro-batch: forward, loss / k,
backward; step). Both train on the same batches, steps interleaved, on the
same ATen threads. It prints the plan's table, then per step both losses and
times, and at the end:

  plan s        remat.plan (torch.export per micro-batch, remat's import,
                autodiff and planning at each)
  eager s       median eager step (after the first when there are several)
  remat s       median remat step, and the ratio remat / eager
  planned       arguments plus the arena's peak, the bytes the budget bounds
  outside       the most bytes ATen held outside the arena in a step, and
                their share of the planned bytes

Usage: .venv/bin/python bench/python_plan.py [--steps 2] [--batch 64]
           [--image 224] [--budget 2.5GB] [--profile gtx970m] [--threads 1]
"""

import argparse
import copy
import importlib.util
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import remat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_net_a():
    spec = importlib.util.spec_from_file_location(
        "make_models", os.path.join(ROOT, "examples", "make-models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.NetA


def eager_accumulation_step(model, optimizer, x, y, steps):
    micro = x.shape[0] // steps
    optimizer.zero_grad()
    total = 0.0
    for i in range(steps):
        part = slice(i * micro, (i + 1) * micro)
        loss = F.cross_entropy(model(x[part]), y[part]) / steps
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--image", type=int, default=224)
    parser.add_argument("--budget", default="2.5GB")
    parser.add_argument("--profile", default="gtx970m")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = load_net_a()(num_classes=10).train()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(1)
    data = [(torch.randn(args.batch, 3, args.image, args.image,
                         generator=generator),
             torch.randint(0, 10, (args.batch,), generator=generator))
            for _ in range(args.steps)]
    start = time.perf_counter()
    plan = remat.plan(model, data[0], batch=args.batch, optimizer=optimizer,
                      budget=args.budget, profile=args.profile)
    plan_seconds = time.perf_counter() - start
    print(plan, flush=True)
    steps = plan.chosen["accumulation_steps"]
    ours, theirs = [], []
    for index, (x, y) in enumerate(data):
        start = time.perf_counter()
        loss = plan.step(x, y).item()
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        reference_loss = eager_accumulation_step(
            reference, reference_optimizer, x, y, steps)
        theirs.append(time.perf_counter() - start)
        print("step %d: remat loss %.7f in %.1f s, eager loss %.7f in %.1f s"
              % (index, loss, ours[-1], reference_loss, theirs[-1]),
              flush=True)
    memory = plan.step.memory()
    eager = statistics.median(theirs[1:] or theirs)
    ours_median = statistics.median(ours[1:] or ours)
    print("plan s %.1f | eager s %.1f | remat s %.1f (%.2fx) | planned %d "
          "bytes in a budget of %d | outside %d bytes (%.1f%%)" % (
              plan_seconds, eager, ours_median, ours_median / eager,
              memory["peak_bytes"], memory["budget_bytes"],
              memory["outside_arena_bytes"],
              100.0 * memory["outside_arena_bytes"] / memory["peak_bytes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
