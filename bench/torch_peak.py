#!/usr/bin/env python3
"""torch_peak.py - PyTorch's peak memory for one training step on the CPU.

  torch_peak.py --model neta --input-shape 61x3x224x224xf32 --classes 10
                [--optimizer adam|sgd|none] [--lr X] [--momentum X]
                [--int-high N] [--threads 1] [--json-out F]
  torch_peak.py --self-test

Builds the model from examples/make-models.py (the eager nn.Module, training
mode, float32, weights from torch seed 0), random inputs of the given full
shapes (floats normal(0, 1), integers uniform below --int-high, default
--classes) and one label per row of the model's [N, C] logits (the batch, or
batch x tokens for the GPT-style model), and the optimizer (Adam lr 1e-3 as
remat-autodiff's default; SGD lr 0.01). One step is

    forward; F.cross_entropy(logits, labels); backward; optimizer.step()

Two steps run. The first (warm-up) allocates the optimizer's state, as in
steady-state training, and measures what autograd saves for backward. Then
the gradients are dropped (zero_grad(set_to_none=True)) and the second step
runs under torch.profiler.profile(profile_memory=True, activities=[CPU]).

Measured peak: the profiler reports every CPU allocation and free made while
it records (c10's memory reporting) as an Allocation event with a signed
size. The step's peak above its baseline is the maximum, over those events in
time order, of the running sum of allocated minus freed bytes from the start
of the step. The baseline is what exists before the step: the parameters, the
optimizer state and the inputs and labels (unique storages). peak_bytes =
baseline + that maximum. Frees of memory allocated before profiling began are
not reported by the profiler; in this step nothing allocated before it is
freed (parameters and optimizer state are updated in place; the gradients of
the warm-up step are dropped before the profile starts).

Analytic parts: parameter bytes; gradient bytes (one per parameter that gets
a gradient); optimizer state bytes (torch.optim's per-parameter state: Adam's
exp_avg, exp_avg_sq and its per-parameter 4-byte step tensor); and the bytes
autograd saves for backward in the forward (torch.autograd.graph.
saved_tensors_hooks over the warm-up step's forward and loss: unique storages,
parameters and inputs excluded, as they exist anyway).

Prints one JSON object (and writes it to --json-out). Uses the project
environment's torch (.venv/bin/python): the allocation events come from
prof.profiler.kineto_results.experimental_event_tree().

--self-test measures a small MLP whose peak is derived by hand in
self_test() below and exits 1 if the measurement differs.
"""

import argparse
import importlib.util
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64,
          "i32": torch.int32}


def parse_shape(text):
    *dims, dtype = text.split("x")
    if dtype not in DTYPES:
        sys.exit(f"torch_peak.py: error: unknown element type in '{text}'")
    return [int(d) for d in dims], DTYPES[dtype]


def load_model(name):
    path = os.path.join(ROOT, "examples", "make-models.py")
    spec = importlib.util.spec_from_file_location("make_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if name not in module.MODELS:
        sys.exit(f"torch_peak.py: error: unknown model '{name}' (make-models.py has "
                 f"{', '.join(module.MODELS)})")
    torch.manual_seed(0)
    return module.MODELS[name][0]().train()


def storage_key(tensor):
    storage = tensor.storage()
    return storage.data_ptr(), storage.nbytes()


def unique_bytes(tensors):
    seen = {}
    for tensor in tensors:
        if tensor is None or tensor.device.type != "cpu":
            continue
        ptr, nbytes = storage_key(tensor)
        seen[ptr] = max(seen.get(ptr, 0), nbytes)
    return sum(seen.values())


def tensor_bytes(tensor):
    return tensor.numel() * tensor.element_size()


def make_optimizer(args, params):
    if args.optimizer == "adam":
        return torch.optim.Adam(params, lr=args.lr or 1e-3)
    if args.optimizer == "sgd":
        return torch.optim.SGD(params, lr=args.lr or 0.01, momentum=args.momentum)
    return None


def optimizer_state_tensors(optimizer):
    if optimizer is None:
        return []
    return [value for state in optimizer.state.values() for value in state.values()
            if torch.is_tensor(value)]


def allocation_events(prof):
    """(time ns, signed bytes) of every CPU allocation and free the profiler saw."""
    events = []
    stack = list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        event = stack.pop()
        stack.extend(event.children)
        if str(event.tag).endswith("Allocation"):
            fields = event.extra_fields
            if fields.device.type == "cpu":
                events.append((event.start_time_ns, fields.alloc_size))
    events.sort(key=lambda item: item[0])
    return events


def measure(model, inputs, labels_for, optimizer, step_fn=None):
    """Runs the warm-up and the profiled step; returns the JSON fields."""
    params = [p for p in model.parameters() if p.requires_grad]
    param_ptrs = {storage_key(p)[0] for p in params}
    input_ptrs = {storage_key(t)[0] for t in inputs}

    def step():
        logits = model(*inputs)
        labels = labels_for(logits)
        loss = F.cross_entropy(logits, labels)
        return loss, labels

    # Warm-up: optimizer state allocated; saved tensors measured.
    saved = {}

    def pack(tensor):
        ptr, nbytes = storage_key(tensor)
        if ptr not in param_ptrs and ptr not in input_ptrs:
            saved[ptr] = max(saved.get(ptr, 0), nbytes)
        return tensor

    start = time.time()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        loss, labels = step()
    loss.backward()
    if optimizer is not None:
        optimizer.step()
    warmup_seconds = time.time() - start
    grad_bytes = sum(tensor_bytes(p.grad) for p in params if p.grad is not None)
    model.zero_grad(set_to_none=True)
    del loss

    state = optimizer_state_tensors(optimizer)
    baseline = unique_bytes(list(params) + list(model.buffers()) + state + list(inputs)
                            + [labels])
    start = time.time()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        loss, _ = step()
        loss.backward()
        if optimizer is not None:
            optimizer.step()
        del loss
    step_seconds = time.time() - start

    running = peak = 0
    events = allocation_events(prof)
    for _, size in events:
        running += size
        peak = max(peak, running)
    return {
        "baseline_bytes": baseline,
        "step_peak_above_baseline_bytes": peak,
        "peak_bytes": baseline + peak,
        "end_above_baseline_bytes": running,
        "allocation_events": len(events),
        "parameter_bytes": sum(tensor_bytes(p) for p in params),
        "buffer_bytes": unique_bytes(list(model.buffers())),
        "gradient_bytes": grad_bytes,
        "optimizer_state_bytes": sum(tensor_bytes(t) for t in state),
        "input_bytes": unique_bytes(list(inputs) + [labels]),
        "saved_activation_bytes": sum(saved.values()),
        "warmup_seconds": round(warmup_seconds, 2),
        "profiled_step_seconds": round(step_seconds, 2),
    }


def self_test():
    """A two-layer MLP whose step's peak is derived by hand.

    x [64, 256] f32, Linear(256, 512) -> ReLU -> Linear(512, 10), SGD without
    momentum (no optimizer state). Parameters: W1 524288 + b1 2048 + W2 20480
    + b2 40 = 546856 bytes; baseline: those + x 65536 + labels 512.
    The forward keeps relu's result r [64, 512] (131072; addmm's result h is
    freed once relu has read it), the logits' log_softmax (2560) and two
    4-byte scalars (the loss, and nll_loss's total weight). The backward
    frees as it goes; gradients start as None (dropped before the step), so
    AccumulateGrad keeps each computed gradient without a copy. Its largest
    live set is reached when b1's gradient is allocated: the gradient of h
    (threshold_backward, 131072) + every parameter's gradient (546856) + the
    two scalars (8) = 677936 bytes above the baseline; by then r, the log
    softmax and the gradient of r have been freed. SGD updates in place.
    """
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
    x = torch.randn(64, 256)
    labels = torch.randint(0, 10, (64,))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    result = measure(model, [x], lambda logits: labels, optimizer)
    expected = {"parameter_bytes": 546856, "gradient_bytes": 546856,
                "baseline_bytes": 546856 + 65536 + 512,
                "step_peak_above_baseline_bytes": 131072 + 546856 + 8,
                "end_above_baseline_bytes": 546856,
                "optimizer_state_bytes": 0}
    failed = False
    for key, value in expected.items():
        ok = result[key] == value
        failed |= not ok
        print(f"{key}: measured {result[key]}, by hand {value}: "
              f"{'ok' if ok else 'DIFFERENT'}")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model")
    parser.add_argument("--input-shape", action="append", default=[])
    parser.add_argument("--classes", type=int)
    parser.add_argument("--int-high", type=int)
    parser.add_argument("--optimizer", default="adam", choices=["adam", "sgd", "none"])
    parser.add_argument("--lr", type=float, default=0.0)
    parser.add_argument("--momentum", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-out")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.self_test:
        sys.exit(self_test())
    if not args.model or not args.input_shape or not args.classes:
        parser.error("--model, --input-shape and --classes are required")

    model = load_model(args.model)
    generator = torch.Generator().manual_seed(args.seed)
    inputs = []
    for text in args.input_shape:
        shape, dtype = parse_shape(text)
        if dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=generator, dtype=dtype))
        else:
            inputs.append(torch.randint(0, args.int_high or args.classes, shape,
                                        generator=generator, dtype=dtype))
    labels = {}

    def labels_for(logits):
        if "value" not in labels:
            labels["value"] = torch.randint(0, args.classes, (logits.shape[0],),
                                            generator=generator)
        return labels["value"]

    optimizer = make_optimizer(args, [p for p in model.parameters()])
    result = {"model": args.model, "input_shapes": args.input_shape,
              "optimizer": args.optimizer, "threads": args.threads,
              "torch": torch.__version__}
    result.update(measure(model, inputs, labels_for, optimizer))
    text = json.dumps(result)
    print(text)
    if args.json_out:
        with open(args.json_out, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    main()
