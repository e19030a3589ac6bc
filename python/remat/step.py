"""remat.compile and the Step it returns.

A Step holds one compiled training step per input signature (shapes and
dtypes of the batch): the first call with a new signature exports the model
with its loss (torch.export), and remat builds, rematerializes and plans the
step. Every call then binds the step's arguments to the user's tensors:

  weight, buffer   the module's parameters and buffers, by name (in place)
  opt_state        optimizer.state[p] ("momentum_buffer", "exp_avg",
                   "exp_avg_sq"), created as torch.optim would (in place)
  step             Adam's step count, copied from and back to every
                   parameter's state["step"]
  seed             a fresh seed from torch's generator at every call, so that
                   dropout draws new masks (recomputation within a step
                   redraws the same mask), reproducibly under
                   torch.manual_seed
  input, label     the call's tensors, in order

and sets each weight's update from its optimizer param group, so that
schedulers and per-group hyperparameters work unchanged.
"""

import contextlib
import inspect
import json
import os
import sys
import tempfile
import threading
import time

import torch
import torch.nn.functional as F

from . import _remat, cuda
from ._remat import Error

_LOSSES = {
    "cross_entropy": F.cross_entropy,
    "mse": F.mse_loss,
}

_OPTIMIZERS = (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW)


class _WithLoss(torch.nn.Module):
    """The model and its loss as one module, for export: forward(*inputs,
    target) returns the scalar loss (or the model's own, with no loss)."""

    def __init__(self, model, loss):
        super().__init__()
        self.model = model
        self.loss = loss

    def forward(self, *args):
        if self.loss is None:
            return self.model(*args)
        *inputs, target = args
        return self.loss(self.model(*inputs), target)


def _named_wrapper(model, loss, count):
    """_WithLoss for `count` inputs, its forward's parameters named as the
    model's (then `target`), so that the step's arguments and diagnostics
    use the user's names."""
    try:
        parameters = [p.name for p in
                      inspect.signature(model.forward).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        parameters = []
    model_inputs = count - (loss is not None)
    names = parameters[:model_inputs]
    names += ["input_%d" % i for i in range(len(names), model_inputs)]
    if loss is not None:
        names.append("target" if "target" not in names else "loss_target")
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter("self", kind)] +
        [inspect.Parameter(name, kind) for name in names])

    def forward(self, *args):
        return _WithLoss.forward(self, *args)

    forward.__signature__ = signature
    named = type("WithLoss", (_WithLoss,), {"forward": forward})
    return named(model, loss)


def _loss_function(loss):
    if loss is None or callable(loss):
        return loss
    if loss in _LOSSES:
        return _LOSSES[loss]
    raise Error("loss=%r is not supported: use %s, a callable "
                "loss(output, target), or None for a model that returns its "
                "own scalar loss" % (loss, ", ".join(repr(k) for k in _LOSSES)))


def _optimizer_kind(optimizer):
    if not isinstance(optimizer, _OPTIMIZERS):
        raise Error("optimizer %s is not supported: use torch.optim.SGD, "
                    "torch.optim.Adam or torch.optim.AdamW"
                    % type(optimizer).__name__)
    for group in optimizer.param_groups:
        for flag in ("maximize", "amsgrad", "differentiable", "capturable",
                     "fused"):
            if group.get(flag):
                raise Error("optimizer option %s=True is not supported"
                            % flag)
    if isinstance(optimizer, torch.optim.SGD):
        momenta = {group["momentum"] != 0 for group in optimizer.param_groups}
        if len(momenta) > 1:
            raise Error("SGD param groups must all use momentum or all not")
        return "sgd"
    return "adam"


_DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64",
    torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.int64: "int64", torch.int32: "int32", torch.uint8: "uint8",
    torch.bool: "bool",
}


_DTYPES = {name: dtype for dtype, name in _DTYPE_NAMES.items()
           if name != "bool"}


def _from_bytes(data, shape, dtype):
    if not data:
        return torch.empty(shape, dtype=_DTYPES[dtype])
    flat = torch.frombuffer(bytearray(data), dtype=_DTYPES[dtype])
    return flat.reshape(shape).clone()


def _on_device(device):
    """Makes `device` current for the CUDA step's calls (nothing for the
    emulation's CPU tensors)."""
    if device.type == "cuda":
        return torch.cuda.device(device)
    return contextlib.nullcontext()


def _device_pointer(tensor, what, device):
    """The address of `tensor`, one of a CUDA step's arguments."""
    if tensor.device != device:
        raise Error("%s is on %s; this step runs on %s"
                    % (what, tensor.device, device))
    if not tensor.is_contiguous():
        raise Error("%s is not contiguous; the step updates it in place"
                    % what)
    if tensor.dtype not in (torch.float32, torch.int64):
        raise Error("%s has dtype %s; the CUDA step holds float32 and int64"
                    % (what, tensor.dtype))
    return tensor.data_ptr(), tensor.numel() * tensor.element_size()


def _buffer(tensor, what):
    if tensor.device.type != "cpu":
        raise Error("%s is on %s; this step runs on the CPU"
                    % (what, tensor.device))
    if not tensor.is_contiguous():
        raise Error("%s is not contiguous; the step updates it in place"
                    % what)
    if tensor.dtype not in _DTYPE_NAMES:
        raise Error("%s has dtype %s, which the step cannot hold"
                    % (what, tensor.dtype))
    return (tensor.data_ptr(), list(tensor.shape), _DTYPE_NAMES[tensor.dtype])


class _Progress:
    """Says on stderr what a compile is doing once it has taken more than a
    second, and how long it took in the end."""

    def __init__(self, what):
        self.what = what
        self.start = time.perf_counter()
        self.stage = None
        self.timer = threading.Timer(1.0, self._say)
        self.timer.daemon = True
        self.timer.start()
        self.spoke = False

    def _say(self):
        self.spoke = True
        print("remat: compiling %s: %s" % (self.what, self.stage),
              file=sys.stderr, flush=True)

    def enter(self, stage):
        self.stage = stage
        if self.spoke:
            self._say()

    def finish(self, summary):
        self.timer.cancel()
        if self.spoke:
            print("remat: compiled %s in %.1f s: %s" % (
                self.what, time.perf_counter() - self.start, summary),
                file=sys.stderr, flush=True)


def _export_whole_batch(owner, wrapper, inputs, directory, progress):
    """remat.compile's step: the model exported at the example's shapes,
    built and planned under the budget."""
    path = os.path.join(directory, "step.pt2")
    progress.enter("exporting with torch.export")
    exported = torch.export.export(wrapper, tuple(inputs))
    torch.export.save(exported, path)
    progress.enter("importing, differentiating and planning under the "
                   "budget")
    return _remat.CompiledStep(path, owner._optimizer_spec(), owner.budget,
                               owner.profile, owner.device == "cpu")


class _Compiled:
    """One compiled step and how its arguments bind to the user's tensors."""

    def __init__(self, step, inputs, build=_export_whole_batch):
        self.owner = step
        wrapper = _named_wrapper(step.model, step.loss, len(inputs))
        progress = _Progress("%s for %s" % (
            type(step.model).__name__,
            ", ".join("x".join(map(str, t.shape)) or "scalar" for t in inputs)))
        try:
            with tempfile.TemporaryDirectory(prefix="remat-") as directory:
                self.step = build(step, wrapper, inputs, directory, progress)
        except BaseException:
            progress.finish("failed")
            raise
        memory = self.step.memory()
        progress.finish("peak %d bytes%s" % (
            memory["peak_bytes"], " in a budget of %d" % memory["budget_bytes"]
            if memory["budget_bytes"] else ""))
        self.arguments = self.step.arguments()
        self.tensors = dict(wrapper.named_parameters())
        self.tensors.update(wrapper.named_buffers())
        # Tensors the importer computed from constants (a position table
        # built in forward): arguments the model does not hold.
        for name, role, _, _ in self.arguments:
            if role in ("weight", "buffer") and name not in self.tensors:
                self.tensors[name] = _from_bytes(
                    *self.step.imported_value(name))
        self.cuda = None
        if step.device == "cuda":
            self._load_cuda_step()
        self.parameters = {}
        for name, role, shape, _ in self.arguments:
            if role == "weight":
                self.parameters[name] = self._state_tensor(name, shape)
        self.groups = {}
        for group in step.optimizer.param_groups:
            for parameter in group["params"]:
                self.groups[id(parameter)] = group
        for name, parameter in self.parameters.items():
            if id(parameter) not in self.groups:
                raise Error("parameter '%s' is trained by the step but is "
                            "not in the optimizer" % name[len("model."):])
        self.set_values = {}
        self.checked = False
        table = json.loads(self.step.plan_table() or "[]")
        self.accumulation_steps = next(
            (row["accumulation_steps"] for row in table if row["chosen"]), 1)

    def _load_cuda_step(self):
        """The step emitted as CUDA, compiled (once per machine) and loaded,
        with its arena: one device allocation of the planned bytes."""
        device = self.owner.tensor_device
        with _on_device(device):
            self.cuda = cuda.CudaStep(self.step.cuda_source())
        # 256 more bytes to align the arena as the harness does.
        self.arena = torch.empty(self.cuda.arena_bytes + 256,
                                 dtype=torch.uint8, device=device)
        self.arena_address = (self.arena.data_ptr() + 255) // 256 * 256
        # Values the importer computed (a position table) go to the device.
        for name, tensor in self.tensors.items():
            if tensor.device != device:
                self.tensors[name] = tensor.to(device)

    def _state_tensor(self, name, shape):
        tensor = self.tensors.get(name)
        if tensor is None:
            raise Error("the step's argument '%s' is no parameter or buffer "
                        "of the model" % name)
        if list(tensor.shape) != list(shape):
            raise Error("'%s' has shape %s, the step expects %s"
                        % (name, list(tensor.shape), list(shape)))
        return tensor

    def _optimizer_state(self, name):
        """The optimizer state tensor an opt_state argument names
        ("<weight>.exp_avg"), created as torch.optim creates it."""
        weight, _, key = name.rpartition(".")
        parameter = self.parameters.get(weight)
        if parameter is None:
            raise Error("optimizer state '%s' belongs to no weight" % name)
        state = self.owner.optimizer.state[parameter]
        if state.get(key) is None:
            state[key] = torch.zeros_like(
                parameter, memory_format=torch.contiguous_format)
            if key == "momentum_buffer":
                # torch.optim.SGD's first buffer is the gradient itself:
                # momentum * 0 + (1 - dampening) * g with dampening 0.
                self.fresh_momentum.add(weight)
        return state[key]

    def _group_values(self, name, parameter):
        """The update's hyperparameters of weight `name`, from its param
        group as torch.optim reads them at this step."""
        group = self.groups[id(parameter)]
        values = _remat.Hyperparameters()
        values.lr = float(group["lr"])
        values.weight_decay = float(group["weight_decay"])
        if "momentum" in group:
            values.momentum = float(group["momentum"])
            values.dampening = (0.0 if name in self.fresh_momentum
                                else float(group["dampening"]))
            values.nesterov = bool(group["nesterov"])
        else:
            values.beta1, values.beta2 = (float(b) for b in group["betas"])
            values.eps = float(group["eps"])
            values.decoupled_weight_decay = bool(
                group.get("decoupled_weight_decay",
                          isinstance(self.owner.optimizer,
                                     torch.optim.AdamW)))
        return values

    @staticmethod
    def _as_tuple(values):
        """In the CUDA runtime's Hyperparameter order."""
        return (values.lr, values.momentum, values.dampening,
                values.weight_decay, float(values.nesterov), values.beta1,
                values.beta2, values.eps,
                float(values.decoupled_weight_decay))

    def _update_hyperparameters(self):
        for name, parameter in self.parameters.items():
            values = self._group_values(name, parameter)
            key = self._as_tuple(values)
            if self.set_values.get(name) != key:
                self.step.set_hyperparameters(name, values)
                self.set_values[name] = key

    def _cuda_hyperparameters(self):
        flat = []
        for weight, _ in self.cuda.updates:
            flat.extend(self._as_tuple(
                self._group_values(weight, self.parameters[weight])))
        return flat

    def run(self, inputs):
        optimizer = self.owner.optimizer
        self.fresh_momentum = set()
        buffers, keep = [], []
        batch = iter(inputs)
        step_count = None
        for name, role, shape, _ in self.arguments:
            if role in ("weight", "buffer"):
                tensor = self._state_tensor(name, shape)
            elif role == "opt_state":
                tensor = self._optimizer_state(name)
            elif role == "step":
                first = optimizer.state[next(iter(self.parameters.values()))]
                count = first.get("step")
                step_count = torch.tensor(
                    float(count) if count is not None else 0.0,
                    dtype=torch.float32)
                tensor = step_count
            elif role == "seed":
                tensor = torch.randint(0, 2**62, (), dtype=torch.int64)
            else:
                tensor = next(batch).contiguous()
            if self.cuda is not None and role in ("step", "seed"):
                tensor = tensor.to(self.owner.tensor_device)
                if role == "step":
                    step_count = tensor
            keep.append(tensor)
            if self.cuda is not None:
                buffers.append(_device_pointer(
                    tensor, "'%s'" % name, self.owner.tensor_device))
            else:
                buffers.append(_buffer(tensor, "'%s'" % name))
        if self.cuda is not None:
            device = self.owner.tensor_device
            with _on_device(device):
                stream = (None if device.type != "cuda" else
                          torch.cuda.current_stream(device).cuda_stream)
                scalars = self.cuda.run(stream, buffers, self.arena_address,
                                        self._cuda_hyperparameters())
        else:
            self._update_hyperparameters()
            # The first step checks the plan as it runs (no live tensors
            # overlap, the measured peak equals the plan's); later ones
            # place every tensor the same way and skip the checks unless
            # asked.
            scalars = self.step.run(buffers, check=self.owner.check
                                    or not self.checked)
        self.checked = True
        if step_count is not None:
            for parameter in self.parameters.values():
                state = optimizer.state[parameter]
                if state.get("step") is None:
                    state["step"] = torch.tensor(0.0, dtype=torch.float32)
                state["step"].fill_(step_count.item())
        self._count_batch_norm_batches()
        # As optimizer.step() would: schedulers check that it ran.
        optimizer._opt_called = True
        return torch.tensor(scalars["loss"], dtype=torch.float32)

    def _count_batch_norm_batches(self):
        for module in self.owner.model.modules():
            if (isinstance(module, torch.nn.modules.batchnorm._BatchNorm)
                    and module.training and module.track_running_stats
                    and module.num_batches_tracked is not None):
                # One update of the running statistics per micro-batch.
                module.num_batches_tracked.add_(self.accumulation_steps)


def _step_device(model, device):
    """Where the step runs ("cpu": the executor; "cuda": the emitted CUDA
    step), and the torch device its tensors are on: `device`, or else the
    device of the model's parameters."""
    devices = {p.device for p in model.parameters()}
    devices.update(b.device for b in model.buffers())
    if len(devices) > 1:
        raise Error("the model's tensors are on %s; the step needs them on "
                    "one device" % ", ".join(sorted(map(str, devices))))
    tensors = devices.pop() if devices else torch.device("cpu")
    try:
        kind = tensors.type if device is None else torch.device(device).type
    except (RuntimeError, TypeError):
        kind = str(device)
    if kind not in ("cpu", "cuda"):
        raise Error("device %r is not supported: use 'cpu' or 'cuda'"
                    % str(device))
    if kind == "cuda" and cuda.is_emulated():
        return "cuda", torch.device("cpu")
    if kind != tensors.type:
        raise Error("the step runs on %s but the model's tensors are on %s: "
                    "move the model first (model.to(%r))"
                    % (kind, tensors, kind))
    if kind == "cuda" and not torch.cuda.is_available():
        raise Error("device 'cuda' needs a GPU, and torch.cuda finds none")
    return kind, tensors


class Step:
    """A model's training step under a byte budget; call it on a batch."""

    def __init__(self, model, loss, optimizer, budget, check=False,
                 profile="h200", device=None):
        self.model = model
        self.check = check
        self.profile = profile
        self.device, self.tensor_device = _step_device(model, device)
        self.loss = _loss_function(loss)
        self.optimizer = optimizer
        self.kind = _optimizer_kind(optimizer)
        self.budget = "" if budget is None else str(budget)
        for module in model.modules():
            if (isinstance(module, torch.nn.modules.batchnorm._BatchNorm)
                    and module.momentum is None):
                raise Error("batch norm with momentum=None (a cumulative "
                            "average) is not supported")
        self._compiled = {}

    def _optimizer_spec(self):
        spec = _remat.OptimizerSpec()
        group = self.optimizer.param_groups[0]
        spec.kind = self.kind
        spec.lr = float(group["lr"])
        spec.frozen = self._frozen_parameters()
        if self.kind == "sgd":
            spec.momentum = float(group["momentum"])
        return spec

    def _frozen_parameters(self):
        """The step's names ("model.<name>") of the parameters eager
        PyTorch would not update: requires_grad=False, or in no param group
        of the optimizer."""
        trained = {id(p) for group in self.optimizer.param_groups
                   for p in group["params"]}
        return ["model." + name for name, p in self.model.named_parameters()
                if not p.requires_grad or id(p) not in trained]

    def _get(self, inputs):
        # A parameter frozen or unfrozen since is another step.
        key = (tuple((tuple(t.shape), t.dtype) for t in inputs),
               tuple(self._frozen_parameters()))
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = _Compiled(self, inputs)
            self._compiled[key] = compiled
        return compiled

    def __call__(self, *inputs):
        """Runs one training step on the batch (the model's inputs, then
        the target unless the model returns its own loss); returns the
        loss as a 0-d tensor."""
        if not self.model.training:
            raise Error("the model is in eval mode; a training step needs "
                        "model.train()")
        with torch.no_grad():
            return self._get(inputs).run(inputs)

    def memory(self, *inputs):
        """The planned bytes of the step compiled for these inputs (or the
        last one compiled): peak, arena, arguments, the budget, the most
        bytes ATen held outside the arena in any step so far, and the op
        whose kernel ran then (its name and source location)."""
        compiled = (self._get(inputs) if inputs
                    else list(self._compiled.values())[-1])
        return compiled.step.memory()

    def report(self, html=None, inputs=()):
        """The plan's report as a dict (remat-report's JSON: bytes before
        and after, the solver, what was recomputed, per-op costs); with
        `html`, also written to that path as one self-contained page."""
        compiled = (self._get(inputs) if inputs
                    else list(self._compiled.values())[-1])
        return json.loads(compiled.step.report("" if html is None
                                               else os.fspath(html)))

    def mlir(self, *inputs):
        """The planned step as MLIR text."""
        compiled = (self._get(inputs) if inputs
                    else list(self._compiled.values())[-1])
        return compiled.step.mlir()


def compile(model, example_inputs, loss="cross_entropy", optimizer=None,
            budget=None, check=False, profile="h200", device=None):
    """Compiles model's training step with `optimizer`'s update under
    `budget` (bytes, "2.5GB", "60%", or None for no limit), for batches
    shaped like `example_inputs` (the model's inputs, then the target).
    The first step of each compiled step checks the plan as it runs;
    `check=True` checks every step. `profile` names the GPU whose cost
    model weighs what to recompute ("h200", "gtx970m", ...: docs/python.md).
    `device` ("cpu" or "cuda"; default: where the model's tensors are)
    says where the step runs: the CPU executor, or the step emitted as CUDA
    and compiled by nvcc (once per machine) on the model's CUDA tensors.
    Raises remat.Error when something is not supported or does not fit."""
    if optimizer is None:
        raise Error("compile needs the optimizer the step updates with "
                    "(torch.optim.SGD, Adam or AdamW)")
    step = Step(model, loss, optimizer, budget, check, profile, device)
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    step._get(tuple(example_inputs))
    return step
