#!/usr/bin/env python3
"""check-steps.py - remat-run --steps against PyTorch's training loop.

Usage: check-steps.py REMAT_RUN STEP.mlir sgd|adam WORKDIR [--same-inputs]
                      [--schedule]

STEP.mlir is test/Execution/Inputs/{sgd,adam}-step.mlir: a linear layer on an
input [4, 2, 3] reshaped to [4, 6], cross entropy, and SGD (lr 0.1, momentum
0.9) or Adam (lr 0.01), its new weights and optimizer state marked
remat.updates. Writes the weights and 3 steps' batches ([3, ...] .npy files;
with --same-inputs one batch that every step reads), runs
`remat-run --steps=3`, and checks every step's printed loss and the final
state written to --output-dir against torch.optim from the same weights and
batches (relative 1e-5). With --schedule, each step has its own learning
rate (`remat-run --lr`; torch's param group set before each step). Prints one
line per check; exits non-zero on a mismatch.
"""

import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

STEPS = 3
# Each step's learning rate with --schedule: a warm-up, then a decay.
SCHEDULE = [0.02, 0.1, 0.05]


def main():
    remat_run, step_file, optimizer, workdir = sys.argv[1:5]
    same_inputs = "--same-inputs" in sys.argv[5:]
    schedule = "--schedule" in sys.argv[5:]
    inputs = os.path.join(workdir, "inputs")
    outputs = os.path.join(workdir, "outputs")
    os.makedirs(inputs, exist_ok=True)
    generator = np.random.default_rng(7)
    w = generator.standard_normal((3, 6)).astype(np.float32)
    b = generator.standard_normal(3).astype(np.float32)
    batches = 1 if same_inputs else STEPS
    x = generator.standard_normal((batches, 4, 2, 3)).astype(np.float32)
    labels = generator.integers(0, 3, (batches, 4)).astype(np.int64)
    np.save(os.path.join(inputs, "w.npy"), w)
    np.save(os.path.join(inputs, "b.npy"), b)
    np.save(os.path.join(inputs, "x.npy"), x[0] if same_inputs else x)
    np.save(os.path.join(inputs, "labels.npy"),
            labels[0] if same_inputs else labels)
    run = subprocess.run(
        [remat_run, step_file, "--steps=%d" % STEPS, "--inputs=" + inputs,
         "--output-dir=" + outputs]
        + (["--lr=" + ",".join(map(str, SCHEDULE))] if schedule else []),
        capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("remat-run failed:\n" + run.stderr)
    losses = [float(m.group(2)) for m in
              re.finditer(r"^step (\d+): loss = (\S+)$", run.stdout, re.M)]
    if len(losses) != STEPS:
        sys.exit("expected %d loss lines, got:\n%s" % (STEPS, run.stdout))

    weight = torch.tensor(w, requires_grad=True)
    bias = torch.tensor(b, requires_grad=True)
    if optimizer == "sgd":
        # dampening 0: PyTorch's first momentum buffer (the gradient itself)
        # equals nn.sgd's 0.9 * 0 + gradient.
        optim = torch.optim.SGD([weight, bias], lr=0.1, momentum=0.9)
    else:
        optim = torch.optim.Adam([weight, bias], lr=0.01)
    worst = 0.0
    for step in range(STEPS):
        batch = 0 if same_inputs else step
        if schedule:
            optim.param_groups[0]["lr"] = SCHEDULE[step]
        optim.zero_grad()
        logits = F.linear(torch.tensor(x[batch]).reshape(4, 6), weight, bias)
        loss = F.cross_entropy(logits, torch.tensor(labels[batch]))
        loss.backward()
        optim.step()
        difference = abs(losses[step] - loss.item()) / abs(loss.item())
        worst = max(worst, difference)
        print("step %d: loss %.6f, torch %.6f: %s" % (
            step + 1, losses[step], loss.item(),
            "ok" if difference <= 1e-5 else "DIFFERS"))
    finals = {"w": weight, "b": bias}
    for name, param in [("w", weight), ("b", bias)]:
        state = optim.state[param]
        if optimizer == "sgd":
            finals[name + ".momentum_buffer"] = state["momentum_buffer"]
        else:
            finals[name + ".exp_avg"] = state["exp_avg"]
            finals[name + ".exp_avg_sq"] = state["exp_avg_sq"]
            finals["step"] = torch.tensor(float(state["step"]))
    for name, expected in sorted(finals.items()):
        written = np.load(os.path.join(outputs, name + ".npy"))
        expected = expected.detach().numpy()
        difference = float(np.max(np.abs(written - expected) /
                                   np.maximum(np.abs(expected), 1e-6)))
        worst = max(worst, difference)
        print("final %s: %s" % (name, "ok" if written.shape == expected.shape
                                and difference <= 1e-5 else "DIFFERS"))
    print("largest relative difference: %.2g" % worst)
    return 0 if worst <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
