#!/usr/bin/env python3
"""Makes the training steps the solver benchmark runs on, then runs it.

The steps, from examples/make-models.py's models, imported and
differentiated (remat-import | remat-opt --remat-autodiff):

  gpt       the GPT-style decoder at its defaults (12 pre-LN blocks, d=768,
            256 tokens, vocabulary 8192), batch 8, Adam
  resnet18  torchvision's resnet18, batch 64, 3x224x224, SGD momentum 0.9
  resnet50  torchvision's resnet50, batch 64, 3x224x224, SGD momentum 0.9

and then `remat-bench-solvers STEP.mlir... --solvers=...`: at budgets from the
peak down to the smallest peak `auto` reaches, each solver's extra compute
(estimated time on the h200 profile) and solve time, as Markdown.

Usage: .venv/bin/python bench/solver_steps.py [--work DIR] [--models gpt,resnet18]
         [--solvers LIST] [--build build] > steps.md
Needs torch and torchvision (run with .venv/bin/python).
"""

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (input shape, autodiff options)
STEPS = {
    "gpt": ("8x256xi64", "loss=cross-entropy optimizer=adam"),
    "resnet18": ("64x3x224x224xf32", "loss=cross-entropy optimizer=sgd momentum=0.9"),
    "resnet50": ("64x3x224x224xf32", "loss=cross-entropy optimizer=sgd momentum=0.9"),
}

SOLVERS = ("none,sqrt,segments=2,segments=4,segments=8,segments=16,"
           "block-checkpoints,chain,heuristic,auto")


def run(command, **kwargs):
    print("+ " + " ".join(command), file=sys.stderr)
    return subprocess.run(command, check=True, **kwargs)


def make_step(args, name):
    shape, autodiff = STEPS[name]
    step = os.path.join(args.work, f"{name}.step.mlir")
    if os.path.exists(step):
        return step
    model = os.path.join(args.work, f"{name}.scripted.pt")
    if not os.path.exists(model):
        run([sys.executable, os.path.join(ROOT, "examples", "make-models.py"),
             args.work, "--models", name])
    forward = os.path.join(args.work, f"{name}.forward.mlir")
    bin_dir = os.path.join(args.build, "bin")
    run([os.path.join(bin_dir, "remat-import"), model, f"--input-shape={shape}",
         f"--weights={os.path.join(args.work, name + '.weights')}", "-o", forward])
    run([os.path.join(bin_dir, "remat-opt"), forward,
         f"--remat-autodiff={autodiff}", "-o", step])
    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="solver-steps")
    parser.add_argument("--models", default="gpt,resnet18,resnet50")
    parser.add_argument("--solvers", default=SOLVERS)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    steps = []
    for name in args.models.split(","):
        if name not in STEPS:
            sys.exit(f"solver_steps.py: error: unknown model '{name}' ({', '.join(STEPS)})")
        steps.append(make_step(args, name))
    sys.stdout.flush()
    run([os.path.join(args.build, "bin", "remat-bench-solvers"), *steps,
         f"--solvers={args.solvers}"])


if __name__ == "__main__":
    main()
