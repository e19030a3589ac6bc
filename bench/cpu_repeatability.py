#!/usr/bin/env python3
"""cpu_repeatability.py - are remat-run's CPU results the same from run to run?

Runs `remat-run STEP --seed 1 --output-dir D` RUNS times in each of LOOPS
concurrent loops (the load), with ATen on its default threads or on one
(--one-thread sets OMP_NUM_THREADS=1), and prints, for each result that came
out differently, how many runs gave each distinct value. ATen's CPU kernels
on several threads were seen to differ here from run to run under load, which
is why `remat-run --reference` runs on one thread.

Usage: bench/cpu_repeatability.py [STEP.mlir] [--runs 80] [--loops 3]
           [--one-thread] [--bin-dir build/bin]
Plain Python 3; needs a built remat.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_loop(args, work, loop, env):
    digests = []
    for run in range(args.runs):
        out = os.path.join(work, f"{loop}-{run}")
        subprocess.run([os.path.join(args.bin_dir, "remat-run"), args.step,
                        "--seed", "1", "--output-dir", out], check=True,
                       capture_output=True, env=env)
        digests.append({name[:-4]: hashlib.md5(
            open(os.path.join(out, name), "rb").read()).hexdigest()
            for name in os.listdir(out) if name.endswith(".npy")})
    return digests


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", nargs="?", default=os.path.join(
        ROOT, "test", "Fixtures", "mlp-adam.mlir"))
    parser.add_argument("--runs", type=int, default=80)
    parser.add_argument("--loops", type=int, default=3)
    parser.add_argument("--one-thread", action="store_true")
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    args = parser.parse_args()
    env = dict(os.environ)
    if args.one_thread:
        env["OMP_NUM_THREADS"] = "1"
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(args.loops) as pool:
        loops = pool.map(lambda loop: run_loop(args, work, loop, env),
                         range(args.loops))
        runs = [digests for loop in loops for digests in loop]
    values = collections.defaultdict(collections.Counter)
    for digests in runs:
        for name, digest in digests.items():
            values[name][digest] += 1
    threads = "one thread" if args.one_thread else "ATen's default threads"
    print(f"{len(runs)} runs ({args.loops} at a time, {threads}) of {args.step}")
    differing = {name: counts for name, counts in sorted(values.items())
                 if len(counts) > 1}
    for name, counts in differing.items():
        print(f"  {name}: {len(counts)} values, runs each: "
              f"{sorted(counts.values(), reverse=True)}")
    print(f"{len(values) - len(differing)} of {len(values)} results the same "
          "in every run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
