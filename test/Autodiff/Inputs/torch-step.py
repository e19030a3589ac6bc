#!/usr/bin/python3
"""torch-step.py - PyTorch's own training step of a TorchScript model, as .npy.

  torch-step.py MODEL.pt OUTDIR --input-shape 4x3x32x32xf32 [...]
                --classes C [--seed N] [--int-high N]
                [--optimizer none|sgd|adam] [--lr X] [--momentum X]
                [--weight-decay X]

Loads MODEL.pt in training mode, draws each input of forward from a seeded
torch generator (floats normal(0, 1), integers uniform below --int-high) and
labels uniform below --classes (one per row of the [N, C] logits), runs forward, cross entropy and autograd
once, and with an optimizer one torch.optim step. Writes
  OUTDIR/inputs/<input>.npy, OUTDIR/inputs/labels.npy   for remat-run --inputs
  OUTDIR/expected/loss.npy
  OUTDIR/expected/<buffer>.npy        every running statistic forward updated
  OUTDIR/expected/<param>.grad.npy    (optimizer none) every parameter's gradient
  OUTDIR/expected/<param>.npy and the optimizer state after the step
      (<param>.momentum_buffer; <param>.exp_avg, <param>.exp_avg_sq, step)
named as remat-run names them: gradients by the step's result names, state
updated in place by the name of the argument it updates.
"""

import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

DTYPES = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64,
          "i32": torch.int32}


def parse_shape(text):
    *dims, dtype = text.split("x")
    return [int(d) for d in dims], DTYPES[dtype]


def draw_inputs(args, generator):
    inputs = []
    for text in args.input_shape:
        shape, dtype = parse_shape(text)
        if dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=generator, dtype=dtype))
        else:
            inputs.append(torch.randint(0, args.int_high, shape,
                                        generator=generator, dtype=dtype))
    return inputs


def make_optimizer(args, params):
    if args.optimizer == "sgd":
        return torch.optim.SGD(params, lr=args.lr or 0.01,
                               momentum=args.momentum,
                               weight_decay=args.weight_decay)
    if args.optimizer == "adam":
        return torch.optim.Adam(params, lr=args.lr or 1e-3,
                                weight_decay=args.weight_decay)
    return None


def optimizer_state(args, optimizer, name, param):
    state = optimizer.state[param]
    if args.optimizer == "sgd" and args.momentum != 0:
        return {name + ".momentum_buffer": state["momentum_buffer"]}
    if args.optimizer == "adam":
        return {name + ".exp_avg": state["exp_avg"],
                name + ".exp_avg_sq": state["exp_avg_sq"]}
    return {}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("outdir")
    parser.add_argument("--input-shape", action="append", default=[])
    parser.add_argument("--classes", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--int-high", type=int, default=10)
    parser.add_argument("--optimizer", default="none")
    parser.add_argument("--lr", type=float, default=0.0)
    parser.add_argument("--momentum", type=float, default=0.0)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    args = parser.parse_args()

    model = torch.jit.load(args.model).train()
    names = [a.name for a in model.forward.schema.arguments[1:]]
    generator = torch.Generator().manual_seed(args.seed)
    inputs = draw_inputs(args, generator)
    before = {k: v.clone() for k, v in model.named_buffers()}
    params = dict(model.named_parameters())
    optimizer = make_optimizer(args, list(params.values()))
    logits = model(*inputs)
    # One label per row of the [N, C] logits: the batch, or batch x tokens
    # for a model that returns token-level logits.
    labels = torch.randint(0, args.classes, (logits.shape[0],),
                           generator=generator)
    loss = F.cross_entropy(logits, labels)
    loss.backward()

    expected = {"loss": loss.detach()}
    for name, value in model.named_buffers():
        if value.is_floating_point() and not torch.equal(value, before[name]):
            expected[name] = value
    if optimizer is None:
        for name, param in params.items():
            grad = param.grad if param.grad is not None else torch.zeros_like(param)
            expected[name + ".grad"] = grad
    else:
        optimizer.step()
        for name, param in params.items():
            expected[name] = param.detach()
            expected.update(optimizer_state(args, optimizer, name, param))
        if args.optimizer == "adam":
            expected["step"] = torch.tensor(1.0)

    for sub in ("inputs", "expected"):
        os.makedirs(os.path.join(args.outdir, sub), exist_ok=True)
    for name, value in list(zip(names, inputs)) + [("labels", labels)]:
        np.save(os.path.join(args.outdir, "inputs", name + ".npy"), value.numpy())
    for name, value in expected.items():
        np.save(os.path.join(args.outdir, "expected", name + ".npy"),
                value.detach().numpy())


if __name__ == "__main__":
    main()
