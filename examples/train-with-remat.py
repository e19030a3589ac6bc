#!/usr/bin/env python3
"""train-with-remat.py - trains from a plain PyTorch loop through `import remat`.

Three runs, each beside the same loop in eager PyTorch on a copy of the
model (same initial weights, same batches, same optimizer and scheduler):

  digits-sgd     the small conv net for scikit-learn's digits (1x8x8,
                 examples/make-models.py small-convnet-digits), SGD with
                 momentum 0.9 and weight decay, a DataLoader of shuffled
                 batches of 32;
  digits-adamw   the same net, AdamW with a cosine learning-rate schedule;
  gpt-tiny       the GPT-style decoder at its tiny configuration (2 layers,
                 d=32, 16 tokens, vocabulary 64) learning a counting
                 sequence, AdamW with a linear warm-up (LambdaLR).

Each step is compiled with remat.compile under a budget below what the step
needs as given (--budget-fraction of it), so activations are discarded and
recomputed. The script prints, per run, the first and last loss and the
largest difference from eager PyTorch in any step's loss and in the final
state dicts (model and optimizer), and exits 1 when one exceeds --tolerance.
The state comparison leaves out parameters whose gradient is zero in exact
arithmetic (every eager gradient below 1e-6: GPT's attention key biases, as
softmax ignores a shift common to all scores): Adam normalizes the rounding
noise in those gradients into updates of the order of the learning rate, in
PyTorch as in remat, so no two implementations agree on them.

Usage: .venv/bin/python examples/train-with-remat.py [--steps 50]
                                                    [--budget-fraction 0.8]
"""

import argparse
import copy
import importlib.util
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import remat


def load_make_models():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "make-models.py")
    spec = importlib.util.spec_from_file_location("make_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def digits_loader(batch, seed):
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16
    labels = torch.tensor(digits.target, dtype=torch.int64)
    return DataLoader(TensorDataset(images, labels), batch_size=batch,
                      shuffle=True, drop_last=True,
                      generator=torch.Generator().manual_seed(seed))


def counting_loader(batch, tokens, vocab, count, seed):
    """Sequences that count up modulo the vocabulary from a random start;
    the target of each token is the next one."""
    generator = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, vocab, (count, 1), generator=generator)
    ids = (starts + torch.arange(tokens + 1)) % vocab
    inputs, targets = ids[:, :-1], ids[:, 1:].reshape(count, tokens)
    return DataLoader(TensorDataset(inputs, targets), batch_size=batch,
                      shuffle=True, drop_last=True,
                      generator=torch.Generator().manual_seed(seed))


def batches(loader, steps, flatten_targets):
    while True:
        for inputs, targets in loader:
            if flatten_targets:
                targets = targets.reshape(-1)
            yield inputs, targets
            steps -= 1
            if steps == 0:
                return


def largest_difference(ours, theirs, skip=()):
    if isinstance(ours, dict):
        return max((largest_difference(ours[k], theirs[k]) for k in ours
                    if k not in skip), default=0.0)
    if isinstance(ours, torch.Tensor):
        return (ours.double() - theirs.double()).abs().max().item()
    return 0.0 if ours == theirs else math.inf


def needed_bytes(model, example, make_optimizer):
    """What the step needs with nothing recomputed."""
    probe = copy.deepcopy(model)
    return remat.compile(probe, example, optimizer=make_optimizer(probe)
                         ).memory()["peak_bytes"]


def train(name, model, loader, steps, make_optimizer, make_scheduler,
          budget_fraction, flatten_targets=False):
    reference = copy.deepcopy(model)
    data = list(batches(loader, steps, flatten_targets))
    budget = int(needed_bytes(model, data[0], make_optimizer) * budget_fraction)
    optimizer, reference_optimizer = (make_optimizer(model),
                                      make_optimizer(reference))
    scheduler, reference_scheduler = (make_scheduler(optimizer),
                                      make_scheduler(reference_optimizer))
    step = remat.compile(model, data[0], loss="cross_entropy",
                         optimizer=optimizer, budget=budget)
    losses, loss_difference = [], 0.0
    names = [key for key, _ in reference.named_parameters()]
    largest_gradient = dict.fromkeys(names, 0.0)
    for inputs, targets in data:
        loss = step(inputs, targets)
        scheduler.step()
        reference_optimizer.zero_grad()
        reference_loss = F.cross_entropy(reference(inputs), targets)
        reference_loss.backward()
        for key, parameter in reference.named_parameters():
            largest_gradient[key] = max(largest_gradient[key],
                                        parameter.grad.abs().max().item())
        reference_optimizer.step()
        reference_scheduler.step()
        losses.append(loss.item())
        loss_difference = max(loss_difference,
                              abs(loss.item() - reference_loss.item()))
    no_gradient = [key for key in names if largest_gradient[key] < 1e-6]
    state_difference = max(
        largest_difference(model.state_dict(), reference.state_dict(),
                           skip=no_gradient),
        largest_difference(optimizer.state_dict()["state"],
                           reference_optimizer.state_dict()["state"],
                           skip=[names.index(key) for key in no_gradient]))
    memory = step.memory()
    print("%-13s %5d %10.4f %10.4f %12.2e %12.2e %9d %9d" % (
        name, len(data), losses[0], losses[-1], loss_difference,
        state_difference, memory["peak_bytes"], budget))
    if no_gradient:
        print("%-13s (state compared without %s: no gradient)"
              % ("", ", ".join(no_gradient)))
    return max(loss_difference, state_difference)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--budget-fraction", type=float, default=0.8)
    parser.add_argument("--tolerance", type=float, default=1e-5)
    args = parser.parse_args()
    models = load_make_models()
    torch.manual_seed(0)
    print("%-13s %5s %10s %10s %12s %12s %9s %9s" % (
        "run", "steps", "first loss", "last loss", "loss vs eager",
        "state diff", "peak B", "budget B"))
    worst = 0.0

    torch.manual_seed(0)
    worst = max(worst, train(
        "digits-sgd", models.small_convnet_digits(), digits_loader(32, 1),
        args.steps, lambda m: torch.optim.SGD(
            m.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4),
        lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=20, gamma=0.5),
        args.budget_fraction))

    torch.manual_seed(0)
    worst = max(worst, train(
        "digits-adamw", models.small_convnet_digits(), digits_loader(32, 2),
        args.steps, lambda m: torch.optim.AdamW(
            m.parameters(), lr=2e-3, weight_decay=0.01),
        lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(
            o, T_max=args.steps), args.budget_fraction))

    torch.manual_seed(0)
    config = models.GPT_TINY_CONFIG
    warmup = max(args.steps // 5, 1)
    worst = max(worst, train(
        "gpt-tiny", models.GPT(**config),
        counting_loader(8, config["tokens"], config["vocab"], 512, 3),
        args.steps, lambda m: torch.optim.AdamW(m.parameters(), lr=3e-3),
        lambda o: torch.optim.lr_scheduler.LambdaLR(
            o, lambda s: min(1.0, (s + 1) / warmup)),
        args.budget_fraction, flatten_targets=True))

    if worst > args.tolerance:
        print("FAILED: a difference from eager PyTorch of %.2e exceeds %.0e"
              % (worst, args.tolerance))
        return 1
    print("every loss and state within %.0e of eager PyTorch" % args.tolerance)
    return 0


if __name__ == "__main__":
    sys.exit(main())
