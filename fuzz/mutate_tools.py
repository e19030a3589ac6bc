#!/usr/bin/env python3
"""mutate_tools.py - a mutation run of remat's command-line tools.

Where the libFuzzer targets (fuzz/*.cpp) fuzz one parser in process, this
runs the installed tools the way a user does, on mutated copies of the
repository's own inputs and with mutated options, for a given time per tool:

  remat-opt        MLIR steps (test/Fixtures, test/Transforms, test/Dialect,
                   test/Execution/Inputs) with random budgets and solvers
  remat-translate  Checkmate/Moccasin graph JSON (test/Target/GraphJson/Inputs,
                   bench/graphs)
  remat-run        planned steps from remat-opt, and the MLIR inputs as given
  remat            the driver's option parsing and the step it builds for a
                   TorchScript model (examples/make-models.py; skipped when
                   the project's Python has no torch)

Each run is classified:
  crash     killed by a signal, or an exit status other than 0 and 1, or a
            crash report on stderr (a stack dump, an assertion, an LLVM
            error, an uncaught exception, a sanitizer report)
  hang      past --timeout seconds
  half-written
            a failing run (exit status 1) left its -o file behind
  ok        anything else: a result, or a diagnostic with status 1
Each crash, hang and half-written output is kept under OUT/<tool>/ with the
command that shows it (OUT/<tool>/<n>.sh). Mutations are seeded (--seed), so
a run reproduces.

Usage:
  .venv/bin/python fuzz/mutate_tools.py --build build --out mutate-out --seconds 600
  .venv/bin/python fuzz/mutate_tools.py --tools remat-opt,remat-run --seconds 60

Exits 1 when any run crashed, hung or left a half-written output.
"""

import argparse
import glob
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CRASH_PATTERNS = re.compile(
    r"Stack dump|PLEASE submit a bug report|Assertion .* failed|LLVM ERROR|"
    r"UNREACHABLE executed|terminate called|Segmentation fault|"
    r"ERROR: AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
    r"ERROR: LeakSanitizer|std::bad_alloc|Aborted")

EXTREME_NUMBERS = ["0", "-1", "1", "-0", "2147483648", "-2147483649",
                   "9223372036854775807", "-9223372036854775808",
                   "18446744073709551616", "1e300", "-1e300", "1e-320",
                   "nan", "inf", "0x7fffffff", "3.5", "65537"]
BUDGETS = ["50%", "90%", "1%", "0%", "100%", "150%", "1", "0", "-5", "1KB",
           "2.5GB", "1e30GB", "9223372036854775807", "99999999999999999999",
           "abc", "", "50", "0.5GB", "nan%", "1TiB"]
SOLVERS = ["auto", "heuristic", "chain", "blocks", "sqrt", "segments=3",
           "segments=0", "segments=-2", "segments=99999", "none", "marks",
           "search", "exact", "block-checkpoints", "bogus", "exact:work-limit=5"]


def mutate_text(text, rng):
    """One to four edits of a text input: numbers made extreme, lines
    dropped, duplicated or swapped, tokens and bytes changed."""
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        lines = text.split("\n")
        if kind == 0:
            numbers = list(re.finditer(r"-?\d+(\.\d+)?(e-?\d+)?", text))
            if numbers:
                m = rng.choice(numbers)
                text = text[:m.start()] + rng.choice(EXTREME_NUMBERS) + text[m.end():]
        elif kind == 1 and len(lines) > 1:
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 2 and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 3 and len(lines) > 2:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == 4:
            words = list(re.finditer(r"[A-Za-z_][A-Za-z0-9_.]*", text))
            if len(words) > 1:
                a, b = rng.choice(words), rng.choice(words)
                text = text[:a.start()] + b.group(0) + text[a.end():]
        elif kind == 5 and text:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice("{}[]()<>,:;=\"%@#!x0 \n") + text[i + 1:]
        elif kind == 6 and len(text) > 10:
            i = rng.randrange(len(text))
            j = min(len(text), i + rng.randint(1, 64))
            text = text[:i] + text[j:]
    return text


def mutate_json(text, rng):
    """Mutates a JSON document structurally where it parses (values made
    extreme or of the wrong type, keys dropped, lists truncated), else as
    text."""
    try:
        data = json.loads(text)
    except ValueError:
        return mutate_text(text, rng)
    nodes = []

    def walk(x):
        nodes.append(x)
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(data)
    containers = [x for x in nodes if isinstance(x, (dict, list)) and x]
    for _ in range(rng.randint(1, 4)):
        if not containers:
            break
        c = rng.choice(containers)
        if not c:
            continue
        key = rng.choice(list(c.keys())) if isinstance(c, dict) else rng.randrange(len(c))
        choice = rng.randrange(6)
        if choice == 0:
            c[key] = rng.choice([0, -1, 2**63, -2**63, 1e300, float("nan"), 3.5])
        elif choice == 1:
            c[key] = rng.choice(["", "x", None, [], {}, True])
        elif choice == 2 and isinstance(c, dict):
            del c[key]
        elif choice == 3 and isinstance(c, list):
            del c[key:]
        elif choice == 4 and isinstance(c, list):
            c.append(c[key])
        else:
            c[key] = rng.choice(nodes)
    try:
        return json.dumps(data, allow_nan=True)
    except (ValueError, RecursionError):
        return mutate_text(text, rng)


class Runner:
    def __init__(self, build, out, timeout, rng):
        self.build = build
        self.out = out
        self.timeout = timeout
        self.rng = rng
        self.counts = {}
        self.work = tempfile.mkdtemp(prefix="remat-mutate-")
        # Under ASan, an allocation too large for it returns null as malloc
        # does (LibTorch then reports it, as in a normal build) instead of
        # aborting: a mutated shape of 10^17 bytes is a diagnostic, not a
        # crash.
        self.env = dict(os.environ)
        if "ASAN_OPTIONS" in self.env:
            self.env["ASAN_OPTIONS"] += ":allocator_may_return_null=1"

    def tool(self, name):
        return os.path.join(self.build, "bin", name)

    def run(self, tool, args, inputs, output=None, stdin=None):
        """Runs one command; classifies and keeps what went wrong."""
        if output and os.path.exists(output):
            os.remove(output)
        command = [self.tool(tool)] + args
        start = time.monotonic()
        try:
            result = subprocess.run(command, capture_output=True, text=True,
                                    errors="replace", timeout=self.timeout,
                                    env=self.env,
                                    stdin=subprocess.DEVNULL if stdin is None else stdin)
            status, stderr = result.returncode, result.stderr
        except subprocess.TimeoutExpired:
            status, stderr = None, ""
        except OSError as error:
            # The tool is being rebuilt: not a verdict on it.
            print(f"{tool}: could not start: {error}", flush=True)
            time.sleep(1)
            return None
        seconds = time.monotonic() - start
        if status is None:
            verdict = "hang"
        elif status < 0 or status > 1 or CRASH_PATTERNS.search(stderr):
            verdict = "crash"
        elif status == 1 and output and os.path.exists(output):
            verdict = "half-written"
        else:
            verdict = "ok"
        counts = self.counts.setdefault(tool, {})
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict != "ok":
            self.keep(tool, verdict, command, inputs, stderr, status, seconds)
        return status

    def keep(self, tool, verdict, command, inputs, stderr, status, seconds):
        folder = os.path.join(self.out, tool)
        os.makedirs(folder, exist_ok=True)
        n = len(glob.glob(os.path.join(folder, "*.sh")))
        kept = []
        for path in inputs:
            target = os.path.join(folder, f"{n}-{os.path.basename(path)}")
            shutil.copy(path, target)
            kept.append((path, target))
        line = " ".join(shlex.quote(a) for a in command)
        for path, target in kept:
            line = line.replace(path, target)
        with open(os.path.join(folder, f"{n}.sh"), "w") as f:
            f.write(f"# {verdict}: exit status {status} after {seconds:.1f} s\n")
            f.write(line + "\n")
            f.write("# stderr:\n" + "".join("# " + l + "\n"
                                          for l in stderr.splitlines()[-30:]))
        print(f"{tool}: {verdict} ({folder}/{n}.sh)", flush=True)

    def temp(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path


def mlir_seeds():
    patterns = ["test/Fixtures/*.mlir", "test/Transforms/*.mlir",
                "test/Transforms/Inputs/*.mlir", "test/Dialect/*/*.mlir",
                "test/Execution/Inputs/*.mlir", "test/Target/Cuda/*.mlir"]
    files = []
    for pattern in patterns:
        files += glob.glob(os.path.join(ROOT, pattern))
    return sorted(f for f in files if os.path.getsize(f) < 200_000)


def json_seeds():
    files = glob.glob(os.path.join(ROOT, "test/Target/GraphJson/Inputs/*.json"))
    files += [f for f in glob.glob(os.path.join(ROOT, "bench/graphs/*.json"))
              if os.path.getsize(f) < 300_000]
    return sorted(files)


def fuzz_remat_opt(runner, rng, seeds):
    text = mutate_text(open(rng.choice(seeds)).read(), rng)
    source = runner.temp("input.mlir", text)
    output = os.path.join(runner.work, "out.mlir")
    args = [source, "--budget=" + rng.choice(BUDGETS), "-o", output]
    if rng.random() < 0.5:
        args.append("--solver=" + rng.choice(SOLVERS))
    if rng.random() < 0.2:
        args.append("--report=" + os.path.join(runner.work, "report.json"))
    if rng.random() < 0.2:
        args.append("--fit-arena=false")
    runner.run("remat-opt", args, [source], output)


def fuzz_remat_translate(runner, rng, seeds):
    text = mutate_json(open(rng.choice(seeds)).read(), rng)
    source = runner.temp("graph.json", text)
    output = os.path.join(runner.work, "graph.mlir")
    runner.run("remat-translate", ["--import-graph-json", source, "-o", output],
               [source], output)


def fuzz_remat_run(runner, rng, seeds):
    text = open(rng.choice(seeds)).read()
    source = runner.temp("step.mlir", text)
    # A planned step half of the time, then mutated.
    if rng.random() < 0.5:
        planned = os.path.join(runner.work, "planned.mlir")
        if os.path.exists(planned):
            os.remove(planned)
        subprocess.run([runner.tool("remat-opt"), source, "--budget=80%",
                        "-o", planned], capture_output=True,
                       timeout=runner.timeout)
        if os.path.exists(planned):
            text = open(planned).read()
    source = runner.temp("step.mlir", mutate_text(text, rng))
    args = [source, "--seed", str(rng.randint(-3, 3))]
    if rng.random() < 0.3:
        # (Not a huge count: running a step 10^11 times is what it asks.)
        args += ["--steps", rng.choice(["0", "1", "3", "-1", "x", "1e3"])]
    runner.run("remat-run", args, [source])


def fuzz_remat_driver(runner, rng, models):
    model = rng.choice(models)
    output = os.path.join(runner.work, "driver.mlir")
    weights = os.path.join(runner.work, "driver-weights")
    shape = rng.choice(["3x4x4xf32", "1x8x8xf32", "3x4x4", "0x4x4xf32",
                        "3x-1x4xf32", "3x99999999x99999999xf32", "3x4x4xf16",
                        "3x8x8xf32", "x", ""])
    command = rng.choice(["compile", "plan", "max-batch", "sweep", "bogus"])
    args = [command, model]
    if command == "plan":
        args += ["--sample-shape=" + shape,
                 "--batch=" + rng.choice(["1", "4", "0", "-1", "65537", "x"])]
    else:
        args += ["--input-shape=" + rng.choice(["4x" + shape, shape])]
    args += ["--classes=" + rng.choice(["10", "1", "0", "-3", "2147483648"]),
             "--budget=" + rng.choice(BUDGETS)]
    if rng.random() < 0.3:
        args.append("--optimizer=" + rng.choice(["adam", "sgd", "adamw", "x"]))
    if command in ("compile", "plan") and rng.random() < 0.7:
        args += ["-o", output]
        if rng.random() < 0.5:
            args.append("--weights=" + weights)
    runner.run("remat", args, [], output if "-o" in args else None)


def make_driver_models(runner, python):
    """The small convnets of examples/make-models.py, scripted and traced,
    where `python` has torch."""
    folder = os.path.join(runner.work, "models")
    os.makedirs(folder, exist_ok=True)
    result = subprocess.run([python,
                             os.path.join(ROOT, "examples", "make-models.py"),
                             folder, "--models=small-convnet,small-convnet-digits"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return []
    return sorted(glob.glob(os.path.join(folder, "*.pt")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default="mutate-out")
    parser.add_argument("--seconds", type=float, default=600.0,
                        help="time per tool")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="time per run before it counts as a hang")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tools", default="remat-opt,remat-translate,remat-run,remat")
    parser.add_argument("--torch-python", default=sys.executable,
                        help="a Python with torch, for the driver's models")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    runner = Runner(os.path.abspath(args.build), os.path.abspath(args.out),
                    args.timeout, rng)
    fuzzers = {
        "remat-opt": (fuzz_remat_opt, mlir_seeds),
        "remat-translate": (fuzz_remat_translate, json_seeds),
        "remat-run": (fuzz_remat_run, lambda: [
            f for f in mlir_seeds() if "/Fixtures/" in f or "/Execution/" in f]),
        "remat": (fuzz_remat_driver,
                  lambda: make_driver_models(runner, args.torch_python)),
    }
    for tool in args.tools.split(","):
        fuzz, seeds = fuzzers[tool]
        inputs = seeds()
        if not inputs:
            print(f"{tool}: no inputs (skipped)")
            continue
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            fuzz(runner, rng, inputs)
        print(f"{tool}: {runner.counts.get(tool, {})}", flush=True)
    shutil.rmtree(runner.work, ignore_errors=True)
    bad = sum(n for counts in runner.counts.values()
              for verdict, n in counts.items() if verdict != "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
