#!/usr/bin/env python3
"""stepinfo.py - what prepare.sh needs to know about a planned step, in plain Python.

  stepinfo.py strip-weights IN.mlir OUT.mlir
      Copies the step without its function's `remat.weights` attribute, so
      that remat-run and the CUDA harness draw every argument from the
      seeded generator (no weights need to travel to the GPU machine).

  stepinfo.py optimizer STEP.mlir
      Prints the step's optimizer as JSON: the attributes of its first
      nn.adam or nn.sgd op, with the op's defaults where the attribute is
      not written ({"kind": "none"} for a step that returns gradients).

  stepinfo.py manifest-add MANIFEST.json --name N --model M --step STEP.mlir
          --report REPORT.json --input-shape 56x3x224x224xf32 --budget 2.5GB
          --seed S [--run-log REMAT-RUN.txt] [--files k=v ...]
      Adds (or replaces) the entry of model N in the manifest: what the
      PyTorch side needs (model, batch, input shape, classes, optimizer)
      and what the plan says (budget, planned bytes, solver, recomputed
      values), plus the remat-run figures from its log.
"""

import argparse
import json
import os
import re
import sys

# The defaults of nn.adam and nn.sgd (include/remat/Dialect/NN/IR/NNOptimizerOps.td).
DEFAULTS = {
    "adam": {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0},
    "sgd": {"momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0, "nesterov": False},
}


def fail(message):
    sys.exit(f"stepinfo.py: error: {message}")


def strip_weights(source, target):
    with open(source) as handle:
        text = handle.read()
    pattern = r'remat\.weights = "(?:[^"\\]|\\.)*"'
    count = len(re.findall(pattern, text))
    if count > 1:
        fail(f"{source}: {count} remat.weights attributes; expected one function")
    # The attribute is one entry of the function's `attributes {...}`: drop it
    # with the comma that separates it from its neighbour, or the whole
    # dictionary when it is the only entry.
    text = re.sub(r" attributes \{" + pattern + r"\}", "", text)
    text = re.sub(r",\s*" + pattern, "", text)
    text = re.sub(pattern + r",\s*", "", text)
    if re.search(pattern, text):
        fail(f"{source}: could not remove remat.weights")
    with open(target, "w") as handle:
        handle.write(text)
    print(f"stepinfo.py: {target}: " + ("remat.weights removed" if count else
                                         "no remat.weights attribute (nothing to remove)"))


def optimizer(step):
    with open(step) as handle:
        for line in handle:
            match = re.search(r"= nn\.(adam|sgd) [^{]*\{([^}]*)\}", line)
            if not match:
                continue
            kind, attributes = match.groups()
            result = {"kind": kind}
            result.update(DEFAULTS[kind])
            for name, value in re.findall(r"(\w+) = ([-+0-9.eE]+) : f64", attributes):
                result[name] = float(value)
            if re.search(r"\bnesterov = true\b", attributes):
                result["nesterov"] = True
            if kind == "sgd" and "lr" not in result:
                fail(f"{step}: nn.sgd without lr")
            return result
    return {"kind": "none"}


def parse_run_log(path):
    """The figures remat-run prints: planned bytes, the arena's measured peak, the loss."""
    figures = {}
    with open(path) as handle:
        text = handle.read()
    match = re.search(r"planned: arguments (\d+) bytes \+ arena (\d+) bytes", text)
    if match:
        figures["argument_bytes"], figures["arena_bytes"] = map(int, match.groups())
    match = re.search(r"measured: arguments \+ the most arena bytes live at once = (\d+) bytes", text)
    if match:
        figures["measured_peak_bytes"] = int(match.group(1))
    match = re.search(r"outside the arena \(.*\): at most (\d+) bytes", text)
    if match:
        figures["outside_arena_bytes"] = int(match.group(1))
    match = re.search(r"^loss = (\S+)", text, re.M)
    if match:
        figures["loss"] = float(match.group(1))
    return figures


def parse_shape(text):
    match = re.fullmatch(r"((?:\d+x)+)(f32|f64|f16|bf16)", text)
    if not match:
        fail(f"input shape '{text}' is not like 56x3x224x224xf32")
    return [int(d) for d in match.group(1).rstrip("x").split("x")], match.group(2)


def manifest_add(args):
    with open(args.report) as handle:
        report = json.load(handle)
    if isinstance(report, list):
        fail(f"{args.report}: several functions; expected one")
    shape, dtype = parse_shape(args.input_shape)
    before, after = report.get("compute_cost_before"), report.get("compute_cost_after")
    entry = {
        "name": args.name,
        "model": args.model,
        "function": report["function"],
        "batch": shape[0],
        "input_shape": shape,
        "input_dtype": dtype,
        "classes": args.classes,
        "optimizer": optimizer(args.step),
        "seed": args.seed,
        "budget": args.budget,
        "budget_bytes": report["budget_bytes"],
        "solver": report["solver"],
        "status": report["status"],
        "argument_bytes": report["argument_bytes"],
        "arena_bytes": report["arena_bytes"],
        "planned_bytes": report["argument_bytes"] + report["arena_bytes"],
        "peak_bytes_before": report["peak_bytes_before"],
        "peak_bytes_after": report["peak_bytes_after"],
        "extra_time": (after / before - 1.0) if before else None,
        "recomputed": report.get("recomputed", []),
    }
    if args.run_log:
        entry["remat_run"] = parse_run_log(args.run_log)
        planned = entry["remat_run"].get("argument_bytes", 0) + entry["remat_run"].get("arena_bytes", 0)
        if planned and planned != entry["planned_bytes"]:
            fail(f"remat-run planned {planned} bytes, the report {entry['planned_bytes']}")
    for item in args.files or []:
        key, _, value = item.partition("=")
        entry.setdefault("files", {})[key] = value

    manifest = {"format": "remat-gpu-check-1", "models": []}
    if os.path.exists(args.manifest):
        with open(args.manifest) as handle:
            manifest = json.load(handle)
    manifest["models"] = [m for m in manifest["models"] if m["name"] != args.name] + [entry]
    with open(args.manifest + ".tmp", "w") as handle:
        json.dump(manifest, handle, indent=1)
        handle.write("\n")
    os.replace(args.manifest + ".tmp", args.manifest)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    strip = sub.add_parser("strip-weights")
    strip.add_argument("source")
    strip.add_argument("target")
    opt = sub.add_parser("optimizer")
    opt.add_argument("step")
    add = sub.add_parser("manifest-add")
    add.add_argument("manifest")
    add.add_argument("--name", required=True)
    add.add_argument("--model", required=True)
    add.add_argument("--step", required=True)
    add.add_argument("--report", required=True)
    add.add_argument("--input-shape", required=True)
    add.add_argument("--budget", required=True)
    add.add_argument("--classes", type=int, default=10)
    add.add_argument("--seed", type=int, default=0)
    add.add_argument("--run-log")
    add.add_argument("--files", nargs="*", help="KEY=PATH entries (relative to the manifest)")
    args = parser.parse_args()
    if args.command == "strip-weights":
        strip_weights(args.source, args.target)
    elif args.command == "optimizer":
        print(json.dumps(optimizer(args.step)))
    else:
        manifest_add(args)


if __name__ == "__main__":
    main()
