#!/usr/bin/env python3
"""brute-force.py - the largest batch that fits, by trying every batch size.

  brute-force.py BIN_DIR MODEL.pt WORK_DIR --sample-shape S --budget B
                 --optimizer O --policies none,sqrt,auto --max-batch N

For each policy and each batch 1..N, builds the step with the separate tools
(remat-import | remat-opt --remat-autodiff | remat-opt --budget --solver)
and prints "policy: largest batch whose step fits" - the answer
`remat max-batch` must give, found without its search.
"""

import argparse
import os
import subprocess
import sys


def fits(args, batch, solver):
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
    planned = subprocess.run(
        [os.path.join(args.bin, "remat-opt"), f"--budget={args.budget}",
         f"--solver={solver}", "-o", os.devnull],
        input=step.stdout, capture_output=True)
    return planned.returncode == 0


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
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    for policy in args.policies.split(","):
        best = 0
        for batch in range(1, args.max_batch + 1):
            if fits(args, batch, policy):
                best = batch
        print(f"{policy}: {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
