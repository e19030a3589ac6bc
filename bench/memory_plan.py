#!/usr/bin/env python3
"""memory_plan.py - peak, arena and fragmentation of every public graph and fixture.

For each graph of bench/graphs (imported with remat-translate) and
each training-step fixture of test/Fixtures, runs remat-opt's report on the
given order (no rematerialization) and prints a Markdown table: the peak of
the given order, the argument bytes, the planner's arena, its fragmentation
((arguments + arena - peak) / peak) and the time the planning took.

Usage: bench/memory_plan.py [--build build] [--graphs bench/graphs]
Plain Python 3, no dependencies; needs a built remat.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def report(build, source, is_graph):
    """Returns the report of `source` and the seconds the tools took."""
    with tempfile.TemporaryDirectory() as tmp:
        mlir = os.path.join(tmp, "step.mlir")
        out = os.path.join(tmp, "report.json")
        start = time.perf_counter()
        if is_graph:
            subprocess.run([os.path.join(build, "bin", "remat-translate"),
                            "--import-graph-json", source, "-o", mlir], check=True)
        else:
            mlir = source
        subprocess.run([os.path.join(build, "bin", "remat-opt"), mlir,
                        f"--report={out}", "-o", os.devnull], check=True)
        seconds = time.perf_counter() - start
        with open(out) as handle:
            return json.load(handle), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--graphs", default=os.path.join(ROOT, "bench", "graphs"))
    args = parser.parse_args()

    inputs = [(path, True) for path in sorted(glob.glob(os.path.join(args.graphs, "*.json")))]
    inputs += [(path, False) for path in sorted(glob.glob(os.path.join(ROOT, "test", "Fixtures", "*.mlir")))]
    print("| input | peak of the given order (bytes) | arguments | arena | fragmentation | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for path, is_graph in inputs:
        data, seconds = report(args.build, path, is_graph)
        peak, arena, arguments = data["peak_bytes_after"], data["arena_bytes"], data["argument_bytes"]
        fragmentation = (arguments + arena - peak) / peak if peak else 0.0
        if is_graph:
            worst = max(worst, fragmentation)
        name = os.path.basename(path)
        print(f"| {name} | {peak:,} | {arguments:,} | {arena:,} | {100 * fragmentation:.2f}% | {seconds:.2f} |")
    print(f"\nLargest fragmentation on a public graph: {100 * worst:.2f}% (target: at most 5%).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
