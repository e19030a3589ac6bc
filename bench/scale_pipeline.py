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

With --lstm=T1,T2,... it also times a graph nobody here generated: the LSTM
language model of bench/outside_models.py (PyTorch's word language model,
two layers) at T tokens, saved with torch.export, imported with remat-import
(every step of the recurrence unrolled) and differentiated with
remat-autodiff; the import and autodiff seconds are printed before its rows.

Usage: bench/scale_pipeline.py [--build build [--build other-build]]
           [--residual 10000,20000,100000] [--chain 200000] [--lstm 2000]
           [--timeout 120] [--work scale-work]
Plain Python 3 and a built remat; --lstm needs the project's Python
(.venv/bin/python: PyTorch).
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


def lstm_step(build, work, tokens, timeout):
    """The LSTM language model's training step at `tokens` tokens (batch 2):
    exported, imported and differentiated with the build's tools. Returns
    the step's path and its op count."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import torch  # the project's Python only
    import outside_models

    program = os.path.join(work, f"lstm-{tokens}.pt2")
    if not os.path.exists(program):
        torch.manual_seed(0)
        model = outside_models.LSTMLanguageModel().train()
        ids = torch.randint(0, outside_models.VOCAB, (2, tokens))
        torch.export.save(torch.export.export(model, (ids,)), program)
    forward = os.path.join(work, f"lstm-{tokens}.forward.mlir")
    step = os.path.join(work, f"lstm-{tokens}.step.mlir")
    bins = os.path.join(build, "bin")
    for stage, command in (
            ("import", [os.path.join(bins, "remat-import"), program,
                        f"--input-shape=2x{tokens}xi64", "-o", forward]),
            ("autodiff", [os.path.join(bins, "remat-opt"), forward,
                          "--remat-autodiff=loss=cross-entropy", "-o", step])):
        start = time.monotonic()
        subprocess.run(command, check=True, timeout=timeout)
        print(f"lstm {tokens} tokens, {build}: {stage} "
              f"{time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)
    with open(step) as f:
        ops = sum(1 for line in f if " nn." in line)
    return step, ops


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
    parser.add_argument("--lstm", default="",
                        help="token counts of the LSTM language model's step")
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
            print_rows(args, kind, nodes, build, mlir)
    for tokens in (int(n) for n in args.lstm.split(",") if n):
        for index, build in enumerate(builds):
            work = os.path.join(args.work, f"build{index}")
            os.makedirs(work, exist_ok=True)
            step, ops = lstm_step(build, work, tokens, args.timeout * 10)
            print_rows(args, f"lstm-lm {tokens} tokens", ops, build, step)


def print_rows(args, kind, nodes, build, mlir):
    for one_thread in [False, True] if args.one_thread else [False]:
        report = os.path.join(args.work, "report.json")
        row = run_pipeline(build, mlir, report, args.timeout, one_thread)
        threads = "1" if one_thread else "all"
        print(f"| {kind} | {nodes} | {build} | {threads} | " + " | ".join(row) + " |",
              flush=True)


if __name__ == "__main__":
    main()
