#!/usr/bin/env python3
"""torch_step.py - PyTorch's time and peak memory for the training step the GPU check runs.

  torch_step.py --manifest OUT/manifest.json --name neta --mode eager|checkpoint
                [--steps 20] [--warmup 5] [--device cuda] [--json-out F] [--cudnn-benchmark]

Builds the model of the manifest entry (examples/make-models.py's definition,
training mode, float32), random inputs and labels of the entry's shape, and
the entry's optimizer with its hyperparameters, then runs `--warmup` steps
and times `--steps` more, all of them training (the parameters and optimizer
state carried from step to step in place, as the CUDA harness's timed steps
carry the state in the argument buffers; its warm-up steps train too, after
which it restores the initial state: the values do not change the time of
a step). One step is what remat's step computes:

    zero_grad(set_to_none=True); forward; cross entropy; backward; optimizer.step()

- `eager`: the model as written.
- `checkpoint`: torch.utils.checkpoint.checkpoint_sequential over the model
  as a flat sequence - its top-level children, with nn.Sequential children
  expanded one level (NetA's eight blocks, resnet18's eight basic blocks)
  and an nn.Flatten before the first nn.Linear, where the forward flattens -
  in round(sqrt(n)) segments; use_reentrant=False where the installed torch
  takes it (otherwise the reentrant form, with the input requiring grad so
  that the first segment's parameters get gradients). Before timing, the
  sequential form's forward is checked against the model's.

Time is measured with CUDA events around the timed steps (wall time on the
CPU); peak memory is torch.cuda.max_memory_allocated over the whole run,
warm-up included (the caching allocator's reserved peak is reported too).
TF32 is off (matmul and cuDNN), as in remat's emitted code; cuDNN's
autotuner is off unless --cudnn-benchmark. Prints one JSON object on the
last line of stdout (and writes it to --json-out).

The model code comes from examples/make-models.py in this checkout; resnet18
uses torchvision when it is installed, else the equivalent definition below.
"""

import argparse
import importlib.util
import inspect
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- resnet18 without torchvision (the same architecture as torchvision's) ---

class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = nn.Sequential(BasicBlock(64, 64, 1), BasicBlock(64, 64, 1))
        self.layer2 = nn.Sequential(BasicBlock(64, 128, 2), BasicBlock(128, 128, 1))
        self.layer3 = nn.Sequential(BasicBlock(128, 256, 2), BasicBlock(256, 256, 1))
        self.layer4 = nn.Sequential(BasicBlock(256, 512, 2), BasicBlock(512, 512, 1))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def build_model(name):
    """Returns (model, where its definition came from)."""
    path = os.path.join(ROOT, "examples", "make-models.py")
    spec = importlib.util.spec_from_file_location("make_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if name not in module.MODELS:
        sys.exit(f"torch_step.py: error: unknown model '{name}' (make-models.py has "
                 f"{', '.join(module.MODELS)})")
    torch.manual_seed(0)
    if name == "resnet18":
        try:
            return module.MODELS[name][0](), "torchvision"
        except ImportError:
            return ResNet18(num_classes=10), "torch_step.py (torchvision is not installed)"
    return module.MODELS[name][0](), "examples/make-models.py"


def sequential_form(model):
    """The model as one flat nn.Sequential sharing its modules (see the docstring)."""
    layers, flattened = [], False
    for child in model.children():
        parts = list(child.children()) if isinstance(child, nn.Sequential) else [child]
        for part in parts:
            if isinstance(part, nn.Linear) and not flattened:
                layers.append(nn.Flatten(1))
                flattened = True
            layers.append(part)
    return nn.Sequential(*layers)


def make_optimizer(spec, parameters):
    kind = spec["kind"]
    if kind == "adam":
        return torch.optim.Adam(parameters, lr=spec["lr"], betas=(spec["beta1"], spec["beta2"]),
                                eps=spec["eps"], weight_decay=spec["weight_decay"])
    if kind == "sgd":
        return torch.optim.SGD(parameters, lr=spec["lr"], momentum=spec["momentum"],
                               dampening=spec["dampening"], weight_decay=spec["weight_decay"],
                               nesterov=spec["nesterov"])
    if kind == "none":
        return None
    sys.exit(f"torch_step.py: error: unknown optimizer '{kind}'")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--name", required=True, help="the manifest entry")
    parser.add_argument("--mode", choices=["eager", "checkpoint"], required=True)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--cudnn-benchmark", action="store_true")
    parser.add_argument("--json-out")
    args = parser.parse_args()

    with open(args.manifest) as handle:
        entries = {m["name"]: m for m in json.load(handle)["models"]}
    if args.name not in entries:
        sys.exit(f"torch_step.py: error: no model '{args.name}' in {args.manifest}")
    entry = entries[args.name]
    if entry.get("input_dtype", "f32") != "f32":
        sys.exit("torch_step.py: error: only f32 inputs are supported")

    cuda = args.device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        sys.exit("torch_step.py: error: torch.cuda.is_available() is false "
                 f"(torch {torch.__version__}, built for CUDA {torch.version.cuda})")
    # TF32 off: remat's emitted code computes in full float32.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    device = torch.device(args.device)

    model, source = build_model(entry["model"])
    model = model.to(device).train()
    shape = entry["input_shape"]
    generator = torch.Generator(device="cpu").manual_seed(entry.get("seed", 0))
    x = torch.randn(*shape, generator=generator).to(device)
    labels = torch.randint(0, entry.get("classes", 10), (shape[0],), generator=generator).to(device)

    record = {"name": entry["name"], "model": entry["model"], "model_source": source,
              "mode": args.mode, "device": str(device), "batch": shape[0],
              "input_shape": shape, "optimizer": entry["optimizer"]["kind"],
              "steps": args.steps, "warmup": args.warmup, "torch": torch.__version__,
              "tf32": False, "cudnn_benchmark": args.cudnn_benchmark}
    forward = model
    if args.mode == "checkpoint":
        from torch.utils.checkpoint import checkpoint_sequential
        flat = sequential_form(model)
        segments = max(1, round(math.sqrt(len(flat))))
        with torch.no_grad():
            # Compare the flat form with the model on a copy of the state (the
            # check runs batch norm in training mode, which updates statistics).
            state = {k: v.clone() for k, v in model.state_dict().items()}
            expected, got = model(x), flat(x)
            model.load_state_dict(state)
        if expected.shape != got.shape or not torch.allclose(expected, got, rtol=1e-4, atol=1e-5):
            sys.exit("torch_step.py: error: the sequential form of the model does not compute "
                     "what its forward does; checkpoint_sequential cannot be applied to it")
        reentrant_only = "use_reentrant" not in inspect.signature(checkpoint_sequential).parameters
        if reentrant_only:
            x.requires_grad_(True)

            def forward(inputs):
                return checkpoint_sequential(flat, segments, inputs)
        else:
            def forward(inputs):
                return checkpoint_sequential(flat, segments, inputs, use_reentrant=False)
        record.update({"modules": len(flat), "segments": segments,
                       "use_reentrant": reentrant_only})

    optimizer = make_optimizer(entry["optimizer"], model.parameters())

    def step():
        if optimizer is not None:
            optimizer.zero_grad(set_to_none=True)
        else:
            model.zero_grad(set_to_none=True)
        loss = F.cross_entropy(forward(x), labels)
        loss.backward()
        if optimizer is not None:
            optimizer.step()
        return loss

    loss = None
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    for _ in range(args.warmup):
        step()
    if cuda:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.steps):
            loss = step()
        end.record()
        torch.cuda.synchronize()
        milliseconds = start.elapsed_time(end)
        record["max_memory_allocated"] = torch.cuda.max_memory_allocated()
        record["max_memory_reserved"] = torch.cuda.max_memory_reserved()
        record["gpu"] = torch.cuda.get_device_name(device)
        record["cuda"] = torch.version.cuda
        record["cudnn"] = torch.backends.cudnn.version()
    else:
        begin = time.perf_counter()
        for _ in range(args.steps):
            loss = step()
        milliseconds = (time.perf_counter() - begin) * 1e3
        record["max_memory_allocated"] = None
        record["max_memory_reserved"] = None
    record["ms_per_step"] = milliseconds / max(args.steps, 1)
    record["loss"] = float(loss) if loss is not None else None
    text = json.dumps(record)
    if args.json_out:
        with open(args.json_out, "w") as handle:
            handle.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
