#!/usr/bin/env python3
"""brute-force.py - the largest batch that fits, by trying every batch size.

  brute-force.py BIN_DIR MODEL.pt WORK_DIR --sample-shape S --budget B
                 --optimizer O --policies none,sqrt,auto --max-batch N
                 [--device D --max-overhead P]

For each policy and each batch 1..N, builds the step with the separate tools
(remat-import | remat-opt --remat-autodiff | remat-opt --budget --solver)
and prints "policy: largest batch whose step fits" - the answer
`remat max-batch` must give, found without its search. With --max-overhead
(a percentage), also "policy within P%: largest batch whose step fits with
extra estimated time at most P%" from remat-opt's report on --device.
"""

import argparse
import json
import os
import subprocess
import sys


def plan(args, batch, solver):
    """Whether the step fits, and its extra estimated time (a fraction)."""
    shape = f"{batch}x{args.sample_shape}"
    weights = os.path.join(args.work, f"weights-{batch}")
    importer = subprocess.run(
        [os.path.join(args.bin, "remat-import"), args.model,
         f"--input-shape={shape}", f"--weights={weights}"],
        capture_output=True, check=True)
    step = subprocess.run(
        [os.path.join(args.bin, "remat-opt"),
         f"--remat-autodiff=loss=cross-entropy optimizer={args.optimizer}"],
        input=importer.stdout, capture_output=True, check=True)
    report = os.path.join(args.work, "report.json")
    planned = subprocess.run(
        [os.path.join(args.bin, "remat-opt"), f"--budget={args.budget}",
         f"--solver={solver}", f"--device={args.device}",
         f"--report={report}", "-o", os.devnull],
        input=step.stdout, capture_output=True)
    if planned.returncode != 0:
        return False, None
    with open(report) as f:
        r = json.load(f)
    return True, r["compute_cost_after"] / r["compute_cost_before"] - 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bin")
    parser.add_argument("model")
    parser.add_argument("work")
    parser.add_argument("--sample-shape", required=True)
    parser.add_argument("--budget", required=True)
    parser.add_argument("--optimizer", default="none")
    parser.add_argument("--policies", default="none,sqrt,auto")
    parser.add_argument("--max-batch", type=int, required=True)
    parser.add_argument("--device", default="h200")
    parser.add_argument("--max-overhead")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    limit = None
    if args.max_overhead is not None:
        limit = float(args.max_overhead.rstrip("%")) / 100
    for policy in args.policies.split(","):
        best = within = 0
        for batch in range(1, args.max_batch + 1):
            fits, extra = plan(args, batch, policy)
            if fits:
                best = batch
                # As remat: the same costs summed in another order are 0.
                if limit is not None and extra <= limit + 1e-9:
                    within = batch
        print(f"{policy}: {best}")
        if limit is not None:
            print(f"{policy} within {args.max_overhead}: {within}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
