#!/usr/bin/env python3
"""side_by_side.py - remat's peaks beside PyTorch's for one training step.

  .venv/bin/python bench/side_by_side.py [--models neta,resnet18,gpt] [--work DIR]
                                [--build build] [--threads 1] [--reuse-torch]
                                [--unit GB|MB] [--out side-by-side.md]

For each model (Adam, float32, the batch below):

  NetA       61x3x224x224  the README's largest NetA batch in 2.5 GB
  resnet18   16x3x128x128  (10 classes)
  gpt        8x256 tokens  the GPT-style model at its defaults (97.8M parameters)
  gpt-tiny   4x16 tokens   its tiny configuration (for tests; not in the default list)
  small-convnet, small-convnet-digits, transformer: the other example models
             (256x3x4x4, 64x1x8x8, 32x16 tokens; not in the default list; --unit MB)

makes the TorchScript model (examples/make-models.py), then

- remat: `remat compile MODEL.scripted.pt --input-shape=... --classes=C
  --optimizer=adam --budget=1 --strict=false --report=R.json`. A budget of one
  byte cannot be met, and with --strict=false the driver keeps the smallest
  peak any solver reaches. The report's peak_bytes_before is the step's peak
  with nothing recomputed and peak_bytes_after that smallest peak (both by the
  memory model: arguments + live values); argument_bytes + arena_bytes are
  the arguments plus the planned arena of the smallest-peak plan; the
  warning's "no schedule can peak below" is the floor (arguments plus the
  largest single-op working set).
- PyTorch: bench/torch_peak.py (one CPU training step under torch.profiler
  with profile_memory=True after a warm-up step; see its docstring), the
  measured peak and its analytic parts.

Prints a markdown table (and writes it to --out, with the raw numbers as JSON
beside it: OUT.json). --reuse-torch takes PyTorch's numbers from an earlier
run's WORK/<model>.torch.json (they do not change when remat does). Each
command's wall time is printed on stderr. GB are 10^9 bytes.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, make-models.py model, input shapes, classes, label
CONFIGS = {
    "neta": ("NetA", "neta", ["61x3x224x224xf32"], 10, "batch 61, 3x224x224"),
    "resnet18": ("resnet18", "resnet18", ["16x3x128x128xf32"], 10, "batch 16, 3x128x128"),
    "gpt": ("GPT-style", "gpt", ["8x256xi64"], 8192, "batch 8, 256 tokens"),
    "small-convnet": ("small conv net", "small-convnet", ["256x3x4x4xf32"], 10,
                      "batch 256, 3x4x4"),
    "small-convnet-digits": ("small conv net (digits)", "small-convnet-digits",
                             ["64x1x8x8xf32"], 10, "batch 64, 1x8x8"),
    "transformer": ("transformer block", "transformer", ["32x16xi64"], 10,
                    "batch 32, 16 tokens"),
    # For tests: seconds, not minutes.
    "gpt-tiny": ("GPT-style, tiny", "gpt-tiny", ["4x16xi64"], 64, "batch 4, 16 tokens"),
}

FLOOR = re.compile(r"no schedule can peak below (\d+) bytes")


def run(command, **kwargs):
    start = time.time()
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    print(f"  ({time.time() - start:.1f} s)", file=sys.stderr, flush=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        sys.exit(f"side_by_side.py: error: the command failed ({result.returncode})")
    return result


def remat_numbers(args, model, shapes, classes, work):
    report = os.path.join(work, model + ".remat.json")
    step = os.path.join(work, model + ".step.mlir")
    command = [os.path.join(args.build, "bin", "remat"), "compile",
               os.path.join(work, model + ".scripted.pt")]
    command += [f"--input-shape={shape}" for shape in shapes]
    command += [f"--classes={classes}", "--optimizer=adam", "--budget=1",
                "--strict=false", "-o", step, f"--report={report}"]
    result = run(command)
    with open(report) as f:
        data = json.load(f)
    floor = FLOOR.search(result.stderr)
    # The step and its weights are not needed afterwards (390 MB for gpt).
    subprocess.run(["rm", "-rf", step, step + ".weights"])
    return {
        "peak_nothing_recomputed": data["peak_bytes_before"],
        "smallest_peak": data["peak_bytes_after"],
        "smallest_arguments_plus_arena": data["argument_bytes"] + data["arena_bytes"],
        "arguments": data["argument_bytes"],
        "floor": int(floor.group(1)) if floor else None,
        "solver": data["solver"],
        "breakdown_at_smallest": data.get("peak_breakdown"),
    }


def torch_numbers(args, model, shapes, classes):
    path = os.path.join(args.work, model + ".torch.json")
    if args.reuse_torch and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    command = [sys.executable, os.path.join(ROOT, "bench", "torch_peak.py"),
               "--model", model, "--classes", str(classes), "--optimizer", "adam",
               "--threads", str(args.threads), "--json-out", path]
    for shape in shapes:
        command += ["--input-shape", shape]
    run(command)
    with open(path) as f:
        return json.load(f)


UNITS = {"GB": 1e9, "MB": 1e6}


def formatter(unit):
    scale = UNITS[unit]
    return lambda value: "n/a" if value is None else f"{value / scale:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="neta,resnet18,gpt")
    parser.add_argument("--work", default="side-by-side")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reuse-torch", action="store_true")
    parser.add_argument("--unit", choices=sorted(UNITS), default="GB",
                        help="unit of the table's figures (10^9 or 10^6 bytes)")
    parser.add_argument("--out")
    args = parser.parse_args()
    gb = formatter(args.unit)
    os.makedirs(args.work, exist_ok=True)

    rows, raw = [], {}
    for key in args.models.split(","):
        if key not in CONFIGS:
            sys.exit(f"side_by_side.py: error: unknown model '{key}' "
                     f"({', '.join(CONFIGS)})")
        name, model, shapes, classes, setting = CONFIGS[key]
        if not os.path.exists(os.path.join(args.work, model + ".scripted.pt")):
            run([sys.executable, os.path.join(ROOT, "examples", "make-models.py"),
                 args.work, "--models", model])
        remat = remat_numbers(args, model, shapes, classes, args.work)
        torch = torch_numbers(args, model, shapes, classes)
        raw[key] = {"remat_peaks": remat, "torch_step": torch}
        rows.append(
            f"| {name} | {setting} | {gb(remat['peak_nothing_recomputed'])} | "
            f"{gb(remat['smallest_peak'])} | {gb(remat['floor'])} | "
            f"{gb(remat['arguments'])} | {gb(torch['peak_bytes'])} | "
            f"{gb(torch['baseline_bytes'])} | {gb(torch['parameter_bytes'])} | "
            f"{gb(torch['gradient_bytes'])} | {gb(torch['optimizer_state_bytes'])} | "
            f"{gb(torch['saved_activation_bytes'])} |")

    table = "\n".join([
        f"| model (Adam, fp32; {args.unit}) | setting | remat: nothing recomputed | remat: smallest "
        "reachable | remat: floor | remat: arguments | PyTorch: measured peak | "
        "PyTorch: before the step | parameters | gradients | optimizer state | "
        "saved for backward |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ] + rows) + "\n"
    print(table, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
        with open(args.out + ".json", "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
