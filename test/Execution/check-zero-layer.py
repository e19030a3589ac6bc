#!/usr/bin/env python3
"""check-zero-layer.py - a zero-sized layer's training step against PyTorch.

Usage: check-zero-layer.py MODEL.pt WEIGHTS_DIR INPUTS_DIR OUTPUT_DIR LOSS

MODEL.pt is test/Execution/Inputs/zero-linear.scripted.pt (out(x) +
fc(x).sum() with fc = Linear(8, 0)). Reads the weights remat-import wrote,
the inputs remat-run read (x.npy, labels.npy), runs one SGD step (lr 0.1)
with cross entropy in PyTorch and checks the loss remat-run printed (LOSS)
and every updated weight in OUTPUT_DIR (relative 1e-5). Prints one line per
check; exits non-zero on a mismatch.
"""

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F


def main():
    model_path, weights_dir, inputs_dir, output_dir, loss_text = sys.argv[1:6]
    model = torch.jit.load(model_path)
    with torch.no_grad():
        for name, param in model.named_parameters():
            param.copy_(torch.from_numpy(np.load(os.path.join(weights_dir, name + ".npy"))))
    x = torch.from_numpy(np.load(os.path.join(inputs_dir, "x.npy")))
    labels = torch.from_numpy(np.load(os.path.join(inputs_dir, "labels.npy")))
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    ok = abs(loss.item() - float(loss_text)) <= 1e-5 * abs(loss.item())
    print("loss", "ok" if ok else "differs: torch %g" % loss.item())
    for name, param in model.named_parameters():
        expected = (param - 0.1 * param.grad).detach().numpy()
        actual = np.load(os.path.join(output_dir, name + ".npy"))
        same = actual.shape == expected.shape and np.allclose(actual, expected, rtol=1e-5, atol=1e-7)
        print(name, list(actual.shape), "ok" if same else "differs")
        ok = ok and same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
