#!/usr/bin/env python3
"""train-digits.py - trains the seed's small conv net on scikit-learn's digits
with remat-run, planned at 86% of its peak, and checks it against PyTorch.

The digits data set (1,797 8x8 images of handwritten digits) ships with
scikit-learn (in the project environment): nothing is downloaded. For each optimizer (SGD with
momentum, Adam) the script

  1. writes the model (make-models.py small-convnet-digits: conv 1->32,
     conv 32->64, view, Linear(4096, 10)) and imports it with remat-import,
     which writes the initial weights (MODEL.mlir.weights/<name>.npy);
  2. differentiates it with the optimizer (remat-opt --remat-autodiff: the
     unplanned step) and plans that step at 86% of its peak (remat-opt
     --budget=86%: the planned step; why not lower: examples/README.md);
  3. writes every step's batch for two epochs (shuffled, last partial batch
     dropped) as x.npy [N, B, 1, 8, 8] and labels.npy [N, B];
  4. runs `remat-run --steps=N` on both steps, the state carried in place from
     step to step, and reads the loss of every step and the final state
     (--output-dir, the weights-directory layout);
  5. trains the same net eagerly in PyTorch (torch.optim) from the weights
     remat-import wrote, loaded into its state_dict by name, on the same
     batches.

It checks that the loss at every step, and the final parameters, equal
PyTorch's within 1e-5 relative, and that the planned and unplanned steps agree
bit for bit (every loss and every final state file). Exits non-zero
otherwise.

Usage: train-digits.py [--bin build/bin] [--workdir DIR] [--optimizers sgd,adam]
                       [--epochs 2] [--batch 64] [--budget 86%]
Run with .venv/bin/python (the project environment's torch, numpy and
scikit-learn).
"""

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 1e-5
SGD = {"lr": 0.05, "momentum": 0.9}
ADAM = {"lr": 0.001}


def load_make_models():
    spec = importlib.util.spec_from_file_location(
        "make_models", os.path.join(HERE, "make-models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("train-digits: %s failed:\n%s%s" % (
            " ".join(command), result.stdout, result.stderr))
    return result.stdout


def batches(epochs, batch):
    """Two epochs of shuffled digits, each image scaled to [0, 1]."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    labels = digits.target.astype(np.int64)
    generator = np.random.default_rng(0)
    per_epoch = len(images) // batch
    xs, ys = [], []
    for _ in range(epochs):
        order = generator.permutation(len(images))[:per_epoch * batch]
        xs.append(images[order].reshape(per_epoch, batch, 1, 8, 8))
        ys.append(labels[order].reshape(per_epoch, batch))
    return np.concatenate(xs), np.concatenate(ys)


def remat_losses(output):
    losses = [(int(m.group(1)), m.group(2)) for m in
              re.finditer(r"^step (\d+): loss = (\S+)$", output, re.M)]
    return [value for _, value in losses]


def torch_losses(make_models, weights, x, y, optimizer):
    model = make_models.small_convnet_digits().train()
    state = {name: torch.from_numpy(np.load(os.path.join(weights, name + ".npy")))
             for name in model.state_dict()}
    model.load_state_dict(state)
    if optimizer == "sgd":
        # dampening 0 (the default): PyTorch's first momentum buffer, the
        # gradient itself, equals nn.sgd's momentum * 0 + gradient.
        optim = torch.optim.SGD(model.parameters(), **SGD)
    else:
        optim = torch.optim.Adam(model.parameters(), **ADAM)
    losses = []
    for step in range(len(x)):
        optim.zero_grad()
        loss = F.cross_entropy(model(torch.from_numpy(x[step])),
                               torch.from_numpy(y[step]))
        loss.backward()
        optim.step()
        losses.append(loss.item())
    return losses, model


def train(args, make_models, optimizer, workdir, x, y):
    tool = lambda name: os.path.join(args.bin, name)
    model = os.path.join(workdir, "small-convnet-digits.scripted.pt")
    forward = os.path.join(workdir, "forward.mlir")
    weights = forward + ".weights"
    step = os.path.join(workdir, optimizer + "-step.mlir")
    planned = os.path.join(workdir, optimizer + "-planned.mlir")
    if not os.path.exists(forward):
        run([tool("remat-import"), model,
             "--input-shape=%dx1x8x8xf32" % args.batch, "-o", forward])
    options = ("lr=%g momentum=%g" % (SGD["lr"], SGD["momentum"])
               if optimizer == "sgd" else "lr=%g" % ADAM["lr"])
    run([tool("remat-opt"), forward,
         "--remat-autodiff=loss=cross-entropy optimizer=%s %s" % (optimizer,
                                                                 options),
         "-o", step])
    if "remat.updates" not in open(step).read():
        sys.exit("train-digits: the %s step updates no state in place (no "
                 "result is marked remat.updates): remat-run --steps would "
                 "run every step from the initial weights" % optimizer)
    run([tool("remat-opt"), step, "--budget=" + args.budget, "-o", planned])
    losses, finals = {}, {}
    for kind, path in (("unplanned", step), ("planned", planned)):
        out = os.path.join(workdir, optimizer + "-" + kind)
        output = run([tool("remat-run"), path, "--steps=%d" % len(x),
                      "--inputs=" + os.path.join(workdir, "batches"),
                      "--output-dir=" + out])
        losses[kind] = remat_losses(output)
        if len(losses[kind]) != len(x):
            sys.exit("train-digits: remat-run printed %d losses for %d steps"
                     % (len(losses[kind]), len(x)))
        finals[kind] = out
        peak = re.search(r"^measured: arguments \+ the most arena bytes live "
                         r"at once = (\d+) bytes", output, re.M)
        if peak:
            print("%s %s: arguments + arena peak %s bytes" % (
                optimizer, kind, peak.group(1)))
    reference, trained = torch_losses(make_models, weights, x, y, optimizer)

    ok = True
    worst = max(abs(float(mine) - theirs) / abs(theirs)
                for mine, theirs in zip(losses["planned"], reference))
    identical = losses["planned"] == losses["unplanned"]
    for name, value in trained.state_dict().items():
        planned_file = os.path.join(finals["planned"], name + ".npy")
        unplanned_file = os.path.join(finals["unplanned"], name + ".npy")
        mine = np.load(planned_file)
        expected = value.detach().numpy()
        worst_state = float(np.max(np.abs(mine - expected)) /
                            max(float(np.max(np.abs(expected))), 1e-30))
        identical &= (open(planned_file, "rb").read() ==
                      open(unplanned_file, "rb").read())
        if worst_state > TOLERANCE:
            print("%s: final %s differs from PyTorch's by %.2g (relative to "
                  "its largest element)" % (optimizer, name, worst_state))
            ok = False
    print("%s: %d steps, loss %.4f -> %.4f; largest relative loss difference "
          "from PyTorch %.2g; planned and unplanned %s" % (
              optimizer, len(x), reference[0], reference[-1], worst,
              "bit-identical" if identical else "DIFFER"))
    return ok and identical and worst <= TOLERANCE


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(HERE, "..", "build",
                                                      "bin"))
    parser.add_argument("--workdir")
    parser.add_argument("--optimizers", default="sgd,adam")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--budget", default="86%")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="train-digits.")
    os.makedirs(os.path.join(workdir, "batches"), exist_ok=True)
    make_models = load_make_models()
    make_models.save("small-convnet-digits", workdir)
    x, y = batches(args.epochs, args.batch)
    np.save(os.path.join(workdir, "batches", "x.npy"), x)
    np.save(os.path.join(workdir, "batches", "labels.npy"), y)
    ok = True
    for optimizer in args.optimizers.split(","):
        if optimizer not in ("sgd", "adam"):
            sys.exit("train-digits: unknown optimizer '%s'" % optimizer)
        ok &= train(args, make_models, optimizer, workdir, x, y)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
