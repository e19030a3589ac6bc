#!/usr/bin/env python3
"""scale_pipeline.py - the whole remat-opt pipeline on large training graphs.

Generates (bench/scale_graphs.py) a training graph with a residual edge every
four layers and a chain, at the given node counts, imports each with
remat-translate and times `remat-opt --budget=50%` (the default pipeline:
rematerialize, pack the arena, plan memory) with each build given, side by
side in one run, so that ratios between builds are measured under the same
load. Prints a Markdown table: graph, nodes, build, wall seconds (or "> T s"
past the timeout), peak and arena after, the extra compute (cost after /
cost before - 1) and the status.

Usage: bench/scale_pipeline.py [--build build [--build other-build]]
           [--residual 10000,20000,100000] [--chain 200000] [--timeout 120]
           [--work scale-work]
Plain Python 3, no dependencies; needs a built remat.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def graph_file(work, kind, nodes):
    path = os.path.join(work, f"{kind}-{nodes}.json")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "scale_graphs.py"),
                        kind, str(nodes), path], check=True)
    return path


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pipeline(build, mlir, report, timeout, one_thread):
    command = [os.path.join(build, "bin", "remat-opt"), "--budget=50%",
               f"--report={report}", "-o", os.devnull, mlir]
    if one_thread:
        command.append("--mlir-disable-threading")
    start = time.monotonic()
    cpu_start = children_cpu_seconds()
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"> {timeout} s", "-", "-", "-", "-", "timed out"
    seconds = time.monotonic() - start
    cpu = f"{children_cpu_seconds() - cpu_start:.1f}"
    if result.returncode != 0:
        return f"{seconds:.1f}", cpu, "-", "-", "-", result.stderr.splitlines()[0][:80]
    with open(report) as f:
        data = json.load(f)
    extra = data["compute_cost_after"] / data["compute_cost_before"] - 1
    return (f"{seconds:.1f}", cpu, str(data["peak_bytes_after"]), str(data["arena_bytes"]),
            f"+{100 * extra:.1f}%", data["status"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="append", help="a build directory (repeatable)")
    parser.add_argument("--residual", default="10000,20000,100000")
    parser.add_argument("--chain", default="200000")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--one-thread", action="store_true",
                        help="also time each build under --mlir-disable-threading")
    parser.add_argument("--work", default="scale-work")
    args = parser.parse_args()
    builds = args.build or [os.path.join(ROOT, "build")]
    os.makedirs(args.work, exist_ok=True)
    graphs = [("residual", int(n)) for n in args.residual.split(",") if n] + \
             [("chain", int(n)) for n in args.chain.split(",") if n]
    print("| graph | nodes | build | threads | seconds | CPU seconds | peak after | arena "
          "| extra compute | status |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, nodes in graphs:
        path = graph_file(args.work, kind, nodes)
        for index, build in enumerate(builds):
            # Each build imports the graph itself: builds on either side of
            # a change to the IR's syntax read only their own.
            mlir = path[:-len(".json")] + f".{index}.mlir"
            subprocess.run([os.path.join(build, "bin", "remat-translate"),
                            "--import-graph-json", path, "-o", mlir], check=True)
            for one_thread in [False, True] if args.one_thread else [False]:
                report = os.path.join(args.work, "report.json")
                row = run_pipeline(build, mlir, report, args.timeout, one_thread)
                threads = "1" if one_thread else "all"
                print(f"| {kind} | {nodes} | {build} | {threads} | " + " | ".join(row) + " |",
                      flush=True)


if __name__ == "__main__":
    main()
