#!/usr/bin/env python3
"""torch-step.py - PyTorch's own training step of a TorchScript model, as .npy.

  torch-step.py MODEL.pt OUTDIR --input-shape 4x3x32x32xf32 [...]
                --classes C [--seed N] [--int-high N]
                [--optimizer none|sgd|adam|adamw] [--lr X] [--momentum X]
                [--weight-decay X] [--accumulation-steps K]

Loads MODEL.pt in training mode, draws each input of forward from a seeded
torch generator (floats normal(0, 1), integers uniform below --int-high) and
labels uniform below --classes (one per row of [N, C] logits, one per
position of [N, C, d1, ...] logits), runs forward, cross entropy and autograd
once, and with an optimizer one torch.optim step. Writes
  OUTDIR/inputs/<input>.npy, OUTDIR/inputs/labels.npy   for remat-run --inputs
  OUTDIR/expected/loss.npy
  OUTDIR/expected/<buffer>.npy        every running statistic forward updated
  OUTDIR/expected/<param>.grad.npy    (optimizer none) every parameter's gradient
  OUTDIR/expected/<param>.npy and the optimizer state after the step
      (<param>.momentum_buffer; <param>.exp_avg, <param>.exp_avg_sq, step)
named as remat-run names them: gradients by the step's result names, state
updated in place by the name of the argument it updates.

With --accumulation-steps K (the --input-shape is the whole batch, split
into K equal micro-batches along dim 0) it runs PyTorch's accumulation loop
instead: for each micro-batch i, loss_i = cross_entropy(model(x_i), y_i) / K
and loss_i.backward(); then one optimizer step. The labels are drawn for the
whole batch (K times the rows of one micro-batch's logits) and sliced the
same way; the expected loss is loss_0 + loss_1 + ... in that order (the
accumulated step's `loss` result), the gradients are the sums in .grad.
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
    if args.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=args.lr or 1e-3,
                                 weight_decay=args.weight_decay)
    return None


def optimizer_state(args, optimizer, name, param):
    state = optimizer.state[param]
    if args.optimizer == "sgd" and args.momentum != 0:
        return {name + ".momentum_buffer": state["momentum_buffer"]}
    if args.optimizer in ("adam", "adamw"):
        return {name + ".exp_avg": state["exp_avg"],
                name + ".exp_avg_sq": state["exp_avg_sq"]}
    return {}


def micro_batches(inputs, steps):
    """Each input split into `steps` equal slices along dim 0."""
    for x in inputs:
        if x.shape[0] % steps:
            raise SystemExit("torch-step.py: --accumulation-steps %d does not "
                             "divide the batch %d" % (steps, x.shape[0]))
    return [[x[i * (x.shape[0] // steps):(i + 1) * (x.shape[0] // steps)]
             for x in inputs] for i in range(steps)]


def run_forward_backward(args, model, inputs, generator):
    """Forward, cross entropy and backward, over --accumulation-steps
    micro-batches (1: the whole batch, the loss not divided)."""
    steps = args.accumulation_steps
    micro = micro_batches(inputs, steps)
    if steps > 1:
        # TorchScript's graph executor optimizes a model's graph once it
        # has run (profiled) it, and the optimized graph rounds differently:
        # the loop's second forward would not compute what the first does.
        # That matters where a gradient is zero but for rounding (a
        # transformer's key bias) and Adam divides it by its own square
        # root. Every micro-step here runs the graph as given, as the single
        # forward of a step without accumulation does.
        with torch.jit.optimized_execution(False):
            return accumulate(args, model, micro, generator)
    return accumulate(args, model, micro, generator)


def accumulate(args, model, micro, generator):
    steps = len(micro)
    logits = model(*micro[0])
    # One label per row of the [N, C] logits (the batch, or batch x tokens
    # for a model that returns token-level logits), or per position of
    # [N, C, d1, ...] logits, as F.cross_entropy takes them.
    rows = logits.shape[0]
    labels = torch.randint(0, args.classes,
                           (steps * rows,) + tuple(logits.shape[2:]),
                           generator=generator)
    total = None
    for i in range(steps):
        if i > 0:
            logits = model(*micro[i])
        loss = F.cross_entropy(logits, labels[i * rows:(i + 1) * rows])
        if steps > 1:
            loss = loss / steps
        loss.backward()
        total = loss.detach() if total is None else total + loss.detach()
    return {"loss": total, "labels": labels}


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
    parser.add_argument("--accumulation-steps", type=int, default=1)
    args = parser.parse_args()

    model = torch.jit.load(args.model).train()
    names = [a.name for a in model.forward.schema.arguments[1:]]
    generator = torch.Generator().manual_seed(args.seed)
    inputs = draw_inputs(args, generator)
    before = {k: v.clone() for k, v in model.named_buffers()}
    params = dict(model.named_parameters())
    optimizer = make_optimizer(args, list(params.values()))
    loss = run_forward_backward(args, model, inputs, generator)
    labels = loss["labels"]

    expected = {"loss": loss["loss"]}
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
        if args.optimizer in ("adam", "adamw"):
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
