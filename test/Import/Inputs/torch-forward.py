#!/usr/bin/env python3
"""torch-forward.py - PyTorch's own forward of a TorchScript model, as .npy.

  torch-forward.py MODEL.pt OUTDIR --input-shape 4x3x32x32xf32 [...]
                   [--seed N] [--int-high N]

Loads MODEL.pt in training mode, fills each input of forward from a seeded
torch generator (floats: normal(0, 1); integers: uniform below --int-high),
runs forward once, and writes
  OUTDIR/inputs/<input name>.npy     what remat-run reads with --inputs
  OUTDIR/expected/output.npy         the forward's result (output.K for
                                     several)
  OUTDIR/expected/<buffer>.npy       each running statistic forward updated
                                     (remat-run writes state under its name)
so that compare-npy.py can check remat-import | remat-run against PyTorch.
"""

import argparse
import os

import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64,
          "i32": torch.int32}


def parse_shape(text):
    *dims, dtype = text.split("x")
    return [int(d) for d in dims], DTYPES[dtype]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("outdir")
    parser.add_argument("--input-shape", action="append", default=[])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--int-high", type=int, default=10)
    args = parser.parse_args()

    model = torch.jit.load(args.model).train()
    names = [a.name for a in model.forward.schema.arguments[1:]]
    generator = torch.Generator().manual_seed(args.seed)
    inputs = []
    for text in args.input_shape:
        shape, dtype = parse_shape(text)
        if dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=generator, dtype=dtype))
        else:
            inputs.append(torch.randint(0, args.int_high, shape,
                                        generator=generator, dtype=dtype))
    before = {k: v.clone() for k, v in model.named_buffers()}
    with torch.no_grad():
        outputs = model(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = {"output": outputs}
    else:
        outputs = {f"output.{i}": o for i, o in enumerate(outputs)}
    for name, value in model.named_buffers():
        if value.is_floating_point() and not torch.equal(value, before[name]):
            outputs[name] = value

    os.makedirs(os.path.join(args.outdir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(args.outdir, "expected"), exist_ok=True)
    import numpy as np
    for name, value in zip(names, inputs):
        np.save(os.path.join(args.outdir, "inputs", name.split(".")[0] + ".npy"),
                value.numpy())
    for name, value in outputs.items():
        np.save(os.path.join(args.outdir, "expected", name + ".npy"),
                value.detach().numpy())


if __name__ == "__main__":
    main()
