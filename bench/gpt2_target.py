#!/usr/bin/env python3
"""gpt2_target.py - how low remat takes GPT-2 (124M) at batch 8 x 1024 tokens.

  .venv/bin/python bench/gpt2_target.py [--work DIR] [--build build]
      [--batch 8] [--tokens 1024] [--layers 12] [--optimizer adamw]
      [--autocast bf16]

Builds Hugging Face GPT-2 from its default config (12 layers, width 768,
12 heads, vocabulary 50257; attn_implementation="sdpa", dropout as the
config has it), random weights, nothing downloaded; its logits flattened to
[batch * tokens, vocabulary], as Hugging Face computes its loss. Saves it
with torch.export at [batch, tokens] and asks `remat compile` for the
smallest peak of the whole step (forward, cross entropy, backward, the
optimizer; h200 profile; --budget=1 --strict=false: a budget nothing meets,
so `auto` returns the least peak its solvers reach), then the same for the
model cut to one block. With --autocast=bf16 the model runs under
torch.autocast(dtype=torch.bfloat16) (exported on the CPU, its policy
recorded in the program), the loss in f32. Prints:

  arguments       weights, optimizer state, inputs (what every schedule
                  holds), from remat's report
  unplanned peak  the step as autodiff orders it, nothing recomputed
  smallest peak   the least peak auto's solvers reach
  block working   the one-block step's smallest peak minus its arguments:
                  what running one block (and the head, its loss and their
                  gradients) takes beyond what every schedule holds
and the smallest peak against arguments + block working, the target being
within 5%.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from outside_models import Autocast, LanguageModelLogits  # noqa: E402


def build(layers, autocast):
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(n_layer=layers, attn_implementation="sdpa")
    torch.manual_seed(0)
    model = LanguageModelLogits(GPT2LMHeadModel(config))
    if autocast:
        model = Autocast(model, {"bf16": torch.bfloat16}[autocast])
    return model.train()


def export(layers, autocast, batch, tokens, path):
    model = build(layers, autocast)
    example = torch.zeros(batch, tokens, dtype=torch.long)
    torch.export.save(torch.export.export(model, (example,)), path)


def smallest_peak(args, path, work, name):
    report = os.path.join(work, f"{name}.report.json")
    command = [os.path.join(args.build, "bin", "remat"), "compile", path,
               f"--optimizer={args.optimizer}", "--budget=1",
               "--strict=false", f"--report={report}",
               "-o", os.path.join(work, f"{name}.mlir")]
    start = time.time()
    subprocess.run(command, check=True, text=True, capture_output=True)
    with open(report) as f:
        return json.load(f), time.time() - start


def gb(value):
    return f"{value / 1e9:.3f} GB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default=None)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--optimizer", default="adamw")
    parser.add_argument("--autocast", choices=["bf16"], default=None)
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="gpt2-target-")
    os.makedirs(work, exist_ok=True)

    reports = {}
    for name, layers in (("gpt2", args.layers), ("block", 1)):
        path = os.path.join(work, f"{name}.pt2")
        start = time.time()
        export(layers, args.autocast, args.batch, args.tokens, path)
        exported = time.time() - start
        reports[name], seconds = smallest_peak(args, path, work, name)
        print(f"{name}: {layers} layer(s) at {args.batch} x {args.tokens} "
              f"tokens: export {exported:.1f} s, remat compile {seconds:.1f} s "
              f"(solver {reports[name]['solver']}, "
              f"{reports[name]['status']})", flush=True)
    step, block = reports["gpt2"], reports["block"]
    working = block["peak_bytes_after"] - block["argument_bytes"]
    target = step["argument_bytes"] + working
    print(f"arguments       {gb(step['argument_bytes'])}")
    print(f"unplanned peak  {gb(step['peak_bytes_before'])}")
    print(f"smallest peak   {gb(step['peak_bytes_after'])} "
          f"(extra time {step['compute_cost_after'] / step['compute_cost_before'] - 1:+.1%})")
    print(f"block working   {gb(working)}")
    print(f"smallest peak / (arguments + block working) = "
          f"{step['peak_bytes_after'] / target:.3f}")


if __name__ == "__main__":
    main()
