#!/usr/bin/env python3
"""train-step.py - the state of Inputs/train-step.mlir over steps (test only).

  train-step.py inputs DIR STEPS   writes the step's arguments to DIR: a batch
                                   per step for x and labels ([STEPS, ...]),
                                   the state (w, b, p, w.momentum_buffer, step)
  train-step.py check DIR OUT LOG  computes as many steps as LOG has losses
                                   from DIR's arguments with NumPy (x and
                                   labels without a leading dimension: the
                                   same batch every step) and compares the
                                   final state in OUT (<argument name>.npy and
                                   the results) and the losses the harness
                                   printed to LOG

The step: logits = flatten(x) w^T + b (through two reshapes), mean cross
entropy; w by SGD with momentum 0.9 (lr 0.1), b -= 0.1 * its gradient, p =
p p^T, step += 1. Tolerance: 1e-5 of each array's largest magnitude.
"""

import os
import re
import sys

import numpy as np


def write_inputs(directory, steps):
    rng = np.random.default_rng(17)
    os.makedirs(directory, exist_ok=True)
    arrays = {
        "x": rng.standard_normal((steps, 4, 2, 3)).astype(np.float32),
        "labels": rng.integers(0, 3, (steps, 4)).astype(np.int64),
        "w": (rng.standard_normal((3, 6)) * 0.5).astype(np.float32),
        "b": (rng.standard_normal(3) * 0.5).astype(np.float32),
        "w.momentum_buffer": np.zeros((3, 6), np.float32),
        "p": (rng.standard_normal((3, 3)) * 0.5).astype(np.float32),
        "step": np.zeros((), np.float32),
    }
    for name, array in arrays.items():
        np.save(os.path.join(directory, name + ".npy"), array)


def train(directory, steps):
    load = lambda name: np.load(os.path.join(directory, name + ".npy")).astype(np.float64)
    xs, labels = load("x"), np.load(os.path.join(directory, "labels.npy"))
    if xs.ndim == 3:  # the same batch every step
        xs, labels = np.stack([xs] * steps), np.stack([labels] * steps)
    w, b, buf, p, t = (load(n) for n in ("w", "b", "w.momentum_buffer", "p", "step"))
    losses = []
    for i in range(steps):
        f = xs[i].reshape(4, 6)
        logits = f @ w.T + b
        shifted = logits - logits.max(axis=1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        losses.append(-logp[np.arange(4), labels[i]].mean())
        g = np.exp(logp)
        g[np.arange(4), labels[i]] -= 1.0
        g /= 4.0
        gw, gb = g.T @ f, g.sum(axis=0)
        buf = 0.9 * buf + gw
        w = w - 0.1 * buf
        b = b - 0.1 * gb
        p = p @ p.T
        t = t + 1.0
    state = {"w": w, "b": b, "w.momentum_buffer": buf, "p": p, "step": t}
    return state, losses


def close(got, want):
    return np.abs(got - want).max() <= 1e-5 * max(np.abs(want).max(), 1e-30)


def check(directory, out, log):
    printed = [float(v) for v in re.findall(r"^step \d+: loss = (\S+)$",
                                            open(log).read(), re.M)]
    state, losses = train(directory, len(printed))
    ok = True
    for name, want in state.items():
        for file in (name, name + ".new"):
            got = np.load(os.path.join(out, file + ".npy")).astype(np.float64)
            if got.shape != want.shape or not close(got, want):
                print("%s: %s instead of %s" % (file, got, want))
                ok = False
    if not printed or len(printed) != len(losses) or not close(np.array(printed), np.array(losses)):
        print("losses: %s instead of %s" % (printed, losses))
        ok = False
    print("%d steps: %s" % (len(losses), "agree" if ok else "differ"))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        write_inputs(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
