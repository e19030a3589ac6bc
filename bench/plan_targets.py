#!/usr/bin/env python3
"""plan_targets.py - `remat plan`'s choice against brute force on two targets (NetA, GPT).

  .venv/bin/python bench/plan_targets.py [--targets neta,gpt] [--work DIR] [--build build]

For each target:

  neta  NetA at batch 64 (3x224x224, 10 classes) in 2.5 GB, Adam, GTX 970M profile
  gpt   the GPT-style model at its defaults (12 blocks, d=768, 256 tokens,
        vocabulary 8192) at batch 32 in 3 GB, Adam, GTX 970M profile

makes the TorchScript model (examples/make-models.py), runs `remat plan
--json` (policies none,auto), then test/Driver/Inputs/plan-brute-force.py,
which builds every micro-batch's step with the separate tools and takes the
fastest that fits, and says whether they agree. Prints plan's table, the
brute force's lines and each command's wall time (this machine, whatever its
load). Exits 1 when a target disagrees.
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# model, sample shape, batch, budget, classes
TARGETS = {
    "neta": ("neta", "3x224x224xf32", 64, "2.5GB", 10),
    "gpt": ("gpt", "256xi64", 32, "3GB", 8192),
}
COMMON = ["--optimizer=adam", "--device=gtx970m"]


def run(command, **kwargs):
    start = time.time()
    result = subprocess.run(command, check=True, text=True, **kwargs)
    return result, time.time() - start


def check(target, args):
    model, shape, batch, budget, classes = TARGETS[target]
    bin_dir = os.path.join(args.build, "bin")
    models = os.path.join(args.work, "models")
    path = os.path.join(models, f"{model}.scripted.pt")
    if not os.path.exists(path):
        run([sys.executable, os.path.join(ROOT, "examples", "make-models.py"),
             models, "--models", model])
    plan = [os.path.join(bin_dir, "remat"), "plan", path, f"--sample-shape={shape}",
            f"--batch={batch}", f"--budget={budget}", f"--classes={classes}"] + COMMON
    print(f"## {target}: batch {batch} in {budget}\n", flush=True)
    table, seconds = run(plan, capture_output=True)
    print(table.stdout)
    print(f"remat plan: {seconds:.1f} s\n", flush=True)
    plan_json = os.path.join(args.work, f"{target}.plan.json")
    with open(plan_json, "w") as f:
        run(plan + ["--json"], stdout=f, stderr=subprocess.DEVNULL)
    brute = subprocess.run(
        [sys.executable,
         os.path.join(ROOT, "test", "Driver", "Inputs", "plan-brute-force.py"),
         bin_dir, path, os.path.join(args.work, target),
         "--sample-shape", shape, "--batch", str(batch), "--budget", budget,
         "--optimizer", "adam", "--device", "gtx970m", "--plan-json", plan_json],
        capture_output=True, text=True)
    print(brute.stdout)
    if brute.returncode not in (0, 1):
        print(brute.stderr, file=sys.stderr)
    return brute.returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="neta,gpt")
    parser.add_argument("--work", default="plan-targets")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    agree = True
    for target in args.targets.split(","):
        start = time.time()
        agree &= check(target, args)
        print(f"{target}: {time.time() - start:.1f} s in all\n", flush=True)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
