#!/usr/bin/env python3
"""plan-brute-force.py - the fastest way to train at a batch, with the separate tools.

  plan-brute-force.py BIN_DIR MODEL.pt WORK_DIR --sample-shape S --batch B
                      --budget BYTES [--optimizer O] [--device D]
                      [--policies none,auto] [--plan-json PLAN.json]

For each micro-batch m dividing the batch (k = B / m accumulation steps) and
each policy, builds the step with the separate tools - remat-import at m |
remat-opt --remat-autodiff="... accumulation-steps=k" | remat-opt --budget
--solver=P --report=R.json - and reads from the report whether it fits
(remat-opt succeeds: strict budgets) and its estimated seconds
(compute_cost_after). Prints every micro-batch's cheapest fitting policy and
the fastest of them (ties: fewer accumulation steps, then the earlier
policy): the answer `remat plan` must give, found without it. With
--plan-json, compares `remat plan --json`'s candidates and choice with it and
exits 1 when they differ.
"""

import argparse
import json
import os
import subprocess
import sys


def faster(a, b):
    """a takes less time than b; summing the same costs in another order
    (a schedule that only reorders) is not faster."""
    return a < b - 1e-9 * max(abs(a), abs(b))


def build_step(args, micro_batch, steps):
    """The step at micro-batch m with k accumulation steps, as MLIR text."""
    # The weights are the same at every micro-batch.
    weights = os.path.join(args.work, "weights")
    importer = subprocess.run(
        [os.path.join(args.bin, "remat-import"), args.model,
         f"--input-shape={micro_batch}x{args.sample_shape}",
         f"--weights={weights}"],
        capture_output=True, check=True)
    autodiff = f"loss={args.loss} optimizer={args.optimizer}"
    if steps > 1:
        autodiff += f" accumulation-steps={steps}"
    step = subprocess.run(
        [os.path.join(args.bin, "remat-opt"), f"--remat-autodiff={autodiff}"],
        input=importer.stdout, capture_output=True, check=True)
    return step.stdout


def evaluate(args, step, micro_batch, policy):
    """(fits, estimated seconds, bytes) of the step under the policy."""
    report = os.path.join(args.work, f"report-{micro_batch}-{policy}.json")
    if os.path.exists(report):
        os.remove(report)
    planned = subprocess.run(
        [os.path.join(args.bin, "remat-opt"), f"--budget={args.budget}",
         f"--solver={policy}", f"--device={args.device}",
         f"--report={report}", "-o", os.devnull],
        input=step, capture_output=True)
    if planned.returncode != 0:
        return False, None, None
    with open(report) as f:
        r = json.load(f)
    return True, r["compute_cost_after"], r["argument_bytes"] + r["arena_bytes"]


def brute_force(args):
    """Per micro-batch (largest first): (m, k, policy, seconds, bytes) of its
    cheapest fitting policy, or (m, k, None, None, None)."""
    rows = []
    for micro_batch in range(args.batch, 0, -1):
        if args.batch % micro_batch:
            continue
        steps = args.batch // micro_batch
        step = build_step(args, micro_batch, steps)
        best = (micro_batch, steps, None, None, None)
        for policy in args.policies.split(","):
            fits, seconds, used = evaluate(args, step, micro_batch, policy)
            if fits and (best[2] is None or faster(seconds, best[3])):
                best = (micro_batch, steps, policy, seconds, used)
        rows.append(best)
    return rows


def choose(rows):
    chosen = None
    for row in rows:
        if row[2] is not None and (chosen is None or faster(row[3], chosen[3])):
            chosen = row
    return chosen


def same_seconds(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def compare(plan, rows, chosen):
    """The differences between `remat plan --json` and the brute force."""
    problems = []
    planned = {c["micro_batch"]: c for c in plan["candidates"]}
    for m, k, policy, seconds, used in rows:
        c = planned.get(m)
        if policy is None:
            if c is not None:
                problems.append(f"micro-batch {m}: plan says {c['policy']} "
                                f"fits, the tools that nothing does")
            continue
        if c is None:
            problems.append(f"micro-batch {m}: the tools fit it with {policy}, "
                            f"plan with nothing")
        elif (c["policy"] != policy or c["accumulation_steps"] != k or
              not same_seconds(c["est_seconds_per_step"], seconds) or
              c["bytes"] != used):
            problems.append(
                f"micro-batch {m}: plan {c['policy']} {c['est_seconds_per_step']!r} s "
                f"{c['bytes']} bytes, the tools {policy} {seconds!r} s {used} bytes")
    c = plan["chosen"]
    if (c["micro_batch"], c["policy"]) != (chosen[0], chosen[2]):
        problems.append(f"plan chose micro-batch {c['micro_batch']} with "
                        f"{c['policy']}, the tools micro-batch {chosen[0]} "
                        f"with {chosen[2]}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bin")
    parser.add_argument("model")
    parser.add_argument("work")
    parser.add_argument("--sample-shape", required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--budget", required=True)
    parser.add_argument("--loss", default="cross-entropy")
    parser.add_argument("--optimizer", default="none")
    parser.add_argument("--device", default="h200")
    parser.add_argument("--policies", default="none,auto")
    parser.add_argument("--plan-json")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = brute_force(args)
    for m, k, policy, seconds, used in rows:
        if policy is None:
            print(f"micro-batch {m} x {k}: nothing fits")
        else:
            print(f"micro-batch {m} x {k}: {policy} fits, {used} bytes, "
                  f"{seconds:.6g} s a step")
    chosen = choose(rows)
    if chosen is None:
        print("chosen: nothing fits")
        return 0
    print(f"chosen: micro-batch {chosen[0]} x {chosen[1]}, policy {chosen[2]}")
    if args.plan_json:
        with open(args.plan_json) as f:
            problems = compare(json.load(f), rows, chosen)
        for problem in problems:
            print(f"differs: {problem}")
        print("remat plan agrees" if not problems else "remat plan differs")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
