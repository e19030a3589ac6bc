"""remat.plan: the fastest way to train at a batch that may not fit.

    table, step = remat.plan(model, (x, y), batch=64, optimizer=opt,
                             budget="2.5GB")
    for x, y in loader:            # batches of 64
        loss = step(x, y)          # k micro-steps of 64 / k, one update

remat weighs every way of running the whole batch in the budget that it
knows (the batch in one step, rematerialized where it does not fit; or the
gradients accumulated over k micro-batches of batch / k, each
rematerialized too) by the cost model's estimated time, and compiles the
fastest that fits. The model is exported with torch.export at each
micro-batch it weighs. The step takes the whole batch and runs the k
micro-steps inside: each on its slice of batch / k samples in order, the
loss divided by k, the gradients summed, then one optimizer update, as
PyTorch's accumulation loop does. Batch norm then normalizes over each
micro-batch, as that loop does too.
"""

import json
import os

import torch

from . import _remat
from ._remat import Error
from .step import Step, _Compiled

_DEFAULT_MAX_ACCUMULATION_STEPS = 256


def _rows_at(tensor, example_batch, batch):
    """The first dimension of an input shaped as `tensor` at `batch` samples,
    where `tensor` holds `example_batch` samples (a language model's labels
    hold one row per token: tokens x batch rows)."""
    return tensor.shape[0] * batch // example_batch


def _at_batch(inputs, batch):
    """The example inputs at `batch` samples, repeating the example's rows:
    torch.export reads only shapes and dtypes."""
    example_batch = inputs[0].shape[0]
    return tuple(t[torch.arange(_rows_at(t, example_batch, batch))
                   % t.shape[0]] for t in inputs)


def _export_per_micro_batch(batch, max_accumulation_steps):
    def build(owner, wrapper, inputs, directory, progress):
        exported = {}
        # An interrupt (Ctrl-C) while exporting: the planner skips the rest
        # and the interrupt is raised again once it has returned.
        interrupted = []

        def program_at_batch(micro_batch):
            if interrupted:
                return "", "interrupted"
            path = exported.get(micro_batch)
            if path is not None:
                return path, ""
            progress.enter("exporting at micro-batch %d of %d"
                           % (micro_batch, batch))
            try:
                sample = _at_batch(inputs, micro_batch)
                program = torch.export.export(wrapper, sample)
                path = os.path.join(directory, "micro%d.pt2" % micro_batch)
                torch.export.save(program, path)
            except Exception as error:  # the plan skips this micro-batch
                return "", "%s: %s" % (type(error).__name__, error)
            except BaseException as error:
                interrupted.append(error)
                return "", "interrupted"
            exported[micro_batch] = path
            progress.enter("planning micro-batch %d of %d under the budget"
                           % (micro_batch, batch))
            return path, ""

        try:
            step = _remat.CompiledStep(program_at_batch, batch,
                                       max_accumulation_steps,
                                       owner._optimizer_spec(), owner.budget,
                                       owner.profile, owner.device == "cpu")
        except Error:
            if interrupted:
                raise interrupted[0]
            raise
        if interrupted:
            raise interrupted[0]
        return step
    return build


class PlannedStep(Step):
    """The step remat.plan chose: call it on whole batches."""

    def __init__(self, model, loss, optimizer, budget, check, profile,
                 device, batch):
        super().__init__(model, loss, optimizer, budget, check, profile,
                         device)
        self.batch = batch
        self.shapes = None

    def _get(self, inputs):
        shapes = tuple((tuple(t.shape), t.dtype) for t in inputs)
        if shapes != self.shapes:
            raise Error(
                "this step was planned for whole batches shaped %s; got %s "
                "(remat.plan again for another batch)" % (
                    _describe(self.shapes), _describe(shapes)))
        if self.frozen != tuple(self._frozen_parameters()):
            raise Error("a parameter was frozen or unfrozen since the step "
                        "was planned: remat.plan again")
        return self._compiled[self.shapes]

    def _plan(self, inputs, max_accumulation_steps):
        example_batch = inputs[0].shape[0]
        self.shapes = tuple(
            ((_rows_at(t, example_batch, self.batch),) + tuple(t.shape[1:]),
             t.dtype) for t in inputs)
        self.frozen = tuple(self._frozen_parameters())
        self._compiled[self.shapes] = _Compiled(
            self, inputs, _export_per_micro_batch(self.batch,
                                                  max_accumulation_steps))
        return self._compiled[self.shapes]


def _describe(shapes):
    return ", ".join("x".join(map(str, shape)) for shape, _ in shapes)


class Plan(tuple):
    """(table, step): the micro-batches remat weighed, and the step of the
    one chosen."""

    def __new__(cls, table, step):
        return super().__new__(cls, (table, step))

    @property
    def table(self):
        """One dict per micro-batch, largest first: micro_batch,
        accumulation_steps, chosen, and either skipped (why the model does
        not build there) or fits, policy, solver, bytes (arguments and
        arena), peak_bytes, estimated_seconds (of the whole batch's step on
        the cost model's device profile), extra_time (over the whole batch
        in one step without recomputation) and batch_norm."""
        return self[0]

    @property
    def step(self):
        return self[1]

    @property
    def chosen(self):
        return next(row for row in self.table if row["chosen"])

    def __str__(self):
        lines = ["micro-batch  steps  policy  bytes          est. s     "
                 "extra"]
        for row in self.table:
            mark = "*" if row["chosen"] else " "
            if "skipped" in row:
                lines.append("%s%-11d %6d  skipped: %s" % (
                    mark, row["micro_batch"], row["accumulation_steps"],
                    row["skipped"]))
                continue
            lines.append("%s%-11d %6d  %-6s  %-13d  %-9.4g  %+.1f%%%s" % (
                mark, row["micro_batch"], row["accumulation_steps"],
                row["policy"] or "-", row["bytes"], row["estimated_seconds"],
                100 * row["extra_time"],
                "" if row["fits"] else "  (does not fit)"))
        return "\n".join(lines)


def plan(model, example_inputs, batch, loss="cross_entropy", optimizer=None,
         budget=None, max_accumulation_steps=_DEFAULT_MAX_ACCUMULATION_STEPS,
         check=False, profile="h200", device=None):
    """Plans model's training step at `batch` samples per optimizer step in
    `budget` bytes ("2.5GB"): the whole batch in one step, or accumulated
    over k micro-batches of batch / k (k at most max_accumulation_steps),
    each rematerialized where it must be, whichever the cost model
    estimates fastest. `example_inputs` are the model's inputs and the
    target at any batch: the first input's first dimension is the batch,
    and every input's first dimension grows with it (a language model's
    per-token labels hold tokens rows per sample); only shapes and dtypes
    are read. A loss the model returns itself is taken as a mean
    over its batch. Returns Plan(table, step); step(x, y) trains on a whole
    batch. `profile` names the GPU whose cost model estimates the times
    ("h200", "gtx970m", ...); `device` where the step runs, as for
    remat.compile. Raises remat.Error when nothing fits."""
    if optimizer is None:
        raise Error("plan needs the optimizer the step updates with "
                    "(torch.optim.SGD, Adam or AdamW)")
    if budget is None:
        raise Error("plan needs a budget in bytes, such as budget='2.5GB'")
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    for index, tensor in enumerate(example_inputs):
        if tensor.dim() == 0:
            raise Error("example input %d is a scalar; plan splits every "
                        "input along its first (batch) dimension" % index)
        if tensor.shape[0] % example_inputs[0].shape[0]:
            raise Error("example input %d has %d rows, not a multiple of the "
                        "first input's %d samples" % (
                            index, tensor.shape[0],
                            example_inputs[0].shape[0]))
    step = PlannedStep(model, loss, optimizer, budget, check, profile,
                       device, int(batch))
    compiled = step._plan(tuple(example_inputs), int(max_accumulation_steps))
    table = json.loads(compiled.step.plan_table())
    return Plan(table, step)
