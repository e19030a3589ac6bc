#!/usr/bin/env python3
"""zoo_check.py - torchvision's classification models through remat, checked against PyTorch.

  zoo_check.py [--models=a,b,...|outside|timm-families|--all] [--bin-dir DIR] [--work-dir DIR]
               [--json FILE] [--allow-failures] [--keep]
               [--forms traced,scripted,exported]
  zoo_check.py --self-test [--bin-dir DIR] [--work-dir DIR]
  zoo_check.py ... --autocast=bf16

For each model (default: the 22 below; --all: every model of
torchvision.models.list_models(module=torchvision.models), a benchmark;
--models=outside: the Hugging Face, timm, U-Net and LSTM models of
outside_models.py, which says how each is built and wrapped; timm-families
and video: its other timm families and torchvision's video classifiers),
num_classes=10, batch 2, 64x64 inputs unless SPECS says otherwise (language
models: token ids [2, 16] below 128, one label per token), weights drawn by
torch.manual_seed(0):

 1. export: torch.jit.trace and torch.jit.script of the model in training
    mode (a model torch.jit.script rejects gets the row "not scriptable",
    which is not a failure), and torch.export.export in training mode,
    saved by torch.export.save; the saved buffers are those of the model
    before tracing ran its forward;
 2. import: remat-import MODEL.pt --input-shape=2x3xSxSxf32 (timed; a
    .pt2 program takes the same shape, to which it is specialized);
 3. autodiff: remat-opt --remat-autodiff=loss=cross-entropy;
 4. run: remat-run STEP.mlir --inputs DIR, where DIR holds x (normal(0, 1)
    from a seeded torch generator), labels (uniform below 10) and one value
    per argument of role "seed";
 5. compare: the loss, every gradient and every updated batch-norm running
    statistic against PyTorch's fp32 autograd on the eager model (same
    weights, same inputs): each tensor's largest difference within 5e-3 of
    its largest magnitude (the reported error is the worst of these ratios;
    see compare() for tensors that are rounding noise in PyTorch itself);
 6. remat: remat-opt STEP.mlir --budget=P% --solver=heuristic for P = 99.5,
    99, 98, ... until the result holds a remat.recompute_of (see
    rematerialize() for budgets the heuristic cannot meet), and remat-run of
    it with --reference STEP.mlir: every result bit-identical.

Random ops: the imported function's seed arguments are in the order of the
forward's random ops. The check chooses each seed's value and, in the eager
reference, replaces torch.nn.functional.dropout, the dropout of
F.scaled_dot_product_attention (on the attention weights, [B, H, Lq, Lk]) and
torchvision's stochastic_depth with versions that consume those seeds in call
order and draw remat's masks (include/remat/Execution/Random.h): with key = mix(seed) and
uniform(key, i) = (mix(key + (i + 1) * 0x9e3779b97f4a7c15) >> 11) * 2^-53,
dropout keeps element i (row-major) when uniform(key, i) >= p and scales by
1 / (1 - p); nn.bernoulli(p) is 1 where uniform(key, i) < p. Dropout with
p = 0 or outside training is the identity and takes no seed. --self-test
checks this generator against remat-run's own dropout (and nn.bernoulli, when
the importer converts stochastic depth) on tiny models.

With --autocast=bf16 each model's forward runs under torch.autocast("cpu",
dtype=torch.bfloat16) (the exported and traced modules and the eager
reference alike), the loss in f32, and step 5 compares against PyTorch's
autocast step within BF16_TOLERANCE (compare() says what else passes).

Prints a markdown table (model | form | status | loss/grad max rel error |
recompute bit-identical | import seconds), status "pass" or the failing stage
and the first line of its error; --json FILE writes the rows. Exits 1 when any
row fails, unless --allow-failures. Runs one model at a time (no parallelism).
Uses the project environment's torch and torchvision (.venv/bin/python);
no weights are downloaded.
"""

import argparse
import contextlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from torchvision import models

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_models import MODELS, TIMM_FAMILIES, VIDEO, Autocast  # noqa: E402

# Every model outside torchvision, by name.
OUTSIDE = {**MODELS, **TIMM_FAMILIES, **VIDEO}

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 5e-3
# --autocast=bf16: the step against PyTorch's own autocast step, within
# 2e-2 of each tensor's scale (five bf16 roundings of 2^-8: the two compute
# the same bf16 ops, with their own rounding order in reductions and in
# ATen's mixed-type normalizations); see compare() for the other way to pass.
BF16_TOLERANCE = 2e-2
# The autocast type of the check (None: f32), set by --autocast.
AUTOCAST = None
AUTOCAST_NAME = "bf16"
NOISE_CAP = 0.05  # a tensor at noise: within 5% of its fp64 value at most
BATCH = 2
CLASSES = 10
# Budgets tried in turn (of what the step needs as given) until the heuristic
# recomputes; at batch 2 the weights are most of the peak.
BUDGETS = ("99.5%", "99%", "98%", "97%", "95%", "90%", "80%", "70%", "50%")

# The default 22 models: constructor options and input size (default 64).
SPECS = {
    "alexnet": {}, "vgg11_bn": {}, "resnet18": {}, "resnet50": {},
    "resnext50_32x4d": {}, "wide_resnet50_2": {}, "squeezenet1_1": {},
    "densenet121": {},
    "googlenet": dict(aux_logits=False, init_weights=True),
    "inception_v3": dict(aux_logits=False, init_weights=True, size=96),
    "mobilenet_v2": {}, "mobilenet_v3_small": {}, "mobilenet_v3_large": {},
    "mnasnet0_5": {}, "shufflenet_v2_x0_5": {}, "efficientnet_b0": {},
    "efficientnet_v2_s": {}, "regnet_x_400mf": {}, "regnet_y_400mf": {},
    "convnext_tiny": {}, "vit_b_16": dict(image_size=64), "swin_t": {},
}
# The other models of --all, where the defaults do not construct or run.
EXTRA_SPECS = {
    "vit_b_32": dict(image_size=64), "vit_l_16": dict(image_size=64),
    "vit_l_32": dict(image_size=64), "vit_h_14": dict(image_size=56, size=56),
    "maxvit_t": dict(size=224),
}


def spec(name):
    kwargs = dict(SPECS.get(name, EXTRA_SPECS.get(name, {})))
    size = kwargs.pop("size", 64)
    return kwargs, size


def input_shape(x):
    """The --input-shape of tensor x: 2x3x64x64xf32, 2x16xi64."""
    element = {torch.float32: "f32", torch.float64: "f64",
               torch.int64: "i64"}[x.dtype]
    return "x".join(str(d) for d in x.shape) + "x" + element


# --- remat's generator (include/remat/Support/SplitMix.h, Random.h) ---------

_INCREMENT = np.uint64(0x9E3779B97F4A7C15)


def mix_bits(z):
    """splitmix64's finalizer on a uint64 array (wrapping arithmetic)."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def uniform(key, count):
    """uniform(key, i) for i in [0, count), as float64."""
    index = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        bits = mix_bits(np.uint64(key) + (index + np.uint64(1)) * _INCREMENT)
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def seed_key(seed):
    return mix_bits(np.array([seed], dtype=np.int64).view(np.uint64))[0]


def dropout_keep(seed, shape, p):
    """remat's dropout mask: 1 where element i is kept."""
    count = int(np.prod(shape, dtype=np.int64))
    return (uniform(seed_key(seed), count) >= p).reshape(shape)


def bernoulli_ones(seed, shape, p):
    """remat's nn.bernoulli(p): 1 where uniform(key, i) < p."""
    count = int(np.prod(shape, dtype=np.int64))
    return (uniform(seed_key(seed), count) < p).reshape(shape)


def seed_values(count):
    """The seed values the check writes, in argument order."""
    return [0x5EED0000 + 7919 * k for k in range(count)]


# PyTorch's own attention, for the calls without dropout.
SDPA = F.scaled_dot_product_attention


class RematRandom:
    """Replaces PyTorch's dropout, stochastic depth and attention dropout by
    remat's masks, consuming the given seeds in call order."""

    def __init__(self, seeds):
        self.seeds = list(seeds)
        self.used = 0

    def _next(self):
        if self.used >= len(self.seeds):
            raise RuntimeError(
                f"the forward draws more random masks than the "
                f"{len(self.seeds)} seed argument(s)")
        self.used += 1
        return self.seeds[self.used - 1]

    def dropout(self, input, p=0.5, training=True, inplace=False):
        if not training or p == 0.0:
            return input
        keep = dropout_keep(self._next(), tuple(input.shape), p)
        mask = torch.from_numpy(keep.astype(np.float32)).to(input.dtype)
        return input * mask * (1.0 / (1.0 - p))

    def stochastic_depth(self, input, p, mode, training=True):
        if not training or p == 0.0:
            return input
        survival = 1.0 - p
        size = ([input.shape[0]] + [1] * (input.ndim - 1) if mode == "row"
                else [1] * input.ndim)
        noise = torch.from_numpy(
            bernoulli_ones(self._next(), tuple(size), survival)
            .astype(np.float32)).to(input.dtype)
        if survival > 0.0:
            noise = noise / survival
        return input * noise

    def attention(self, query, key, value, attn_mask=None, dropout_p=0.0,
                  is_causal=False, scale=None, enable_gqa=False):
        """F.scaled_dot_product_attention, its dropout remat's: keep mask
        at each score's flat index in [B, Hq, Lq, Lk]."""
        if dropout_p == 0.0:
            return SDPA(query, key, value, attn_mask=attn_mask,
                        is_causal=is_causal, scale=scale,
                        enable_gqa=enable_gqa)
        group = query.shape[1] // key.shape[1]
        if group > 1:
            key = key.repeat_interleave(group, 1)
            value = value.repeat_interleave(group, 1)
        if scale is None:
            scale = 1.0 / math.sqrt(query.shape[-1])
        scores = query @ key.transpose(-2, -1) * scale
        if is_causal:
            dropped = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1)
            scores = scores.masked_fill(dropped, float("-inf"))
        if attn_mask is not None:
            scores = (scores.masked_fill(~attn_mask, float("-inf"))
                      if attn_mask.dtype == torch.bool else scores + attn_mask)
        weights = torch.softmax(scores, -1)
        keep = dropout_keep(self._next(), tuple(weights.shape), dropout_p)
        mask = torch.from_numpy(keep.astype(np.float32)).to(weights.dtype)
        return (weights * mask * (1.0 / (1.0 - dropout_p))) @ value

    @contextlib.contextmanager
    def patched(self):
        depth_module = sys.modules["torchvision.ops.stochastic_depth"]
        saved = (F.dropout, depth_module.stochastic_depth,
                 F.scaled_dot_product_attention)
        F.dropout = self.dropout
        depth_module.stochastic_depth = self.stochastic_depth
        F.scaled_dot_product_attention = self.attention
        try:
            yield self
        finally:
            (F.dropout, depth_module.stochastic_depth,
             F.scaled_dot_product_attention) = saved


# --- running the tools ------------------------------------------------------

class StageError(Exception):
    def __init__(self, stage, message):
        super().__init__(f"{stage}: {message}")
        self.stage = stage
        self.message = message


def first_line(text, limit=200):
    for line in text.splitlines():
        line = line.strip()
        if line:
            # Paths of Python sources and of the work directory by base name.
            line = re.sub(r"(/[^\s:'\"]+)+/([^/\s:'\"]+)", r"\2", line)
            return line[:limit]
    return ""


def run_tool(stage, command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise StageError(stage, f"timed out after {timeout} s")
    if done.returncode != 0:
        message = first_line(done.stderr) or first_line(done.stdout) or \
            f"exit status {done.returncode}"
        raise StageError(stage, message)
    return done


_ARG = re.compile(r"%arg\d+: tensor<([^>]*)>\s*\{([^}]*)\}")
# `remat.name = "x"`, `remat.role = #remat.role<weight>`: the string or the
# enum value.
_ATTR = re.compile(r'(remat\.\w+) = (?:"([^"]*)"|#remat\.\w+<(\w+)>)')
_DTYPES = {"f32": np.float32, "f64": np.float64, "i64": np.int64,
           "i32": np.int32}


def signature(mlir_path):
    """The arguments of the file's first function: (name, role, shape, dtype)."""
    with open(mlir_path) as f:
        for line in f:
            if "func.func" in line:
                header = line.split(") ->")[0]
                break
        else:
            raise StageError("autodiff", f"no function in {mlir_path}")
    arguments = []
    for type_text, attrs in _ARG.findall(header):
        values = {key: text or enum for key, text, enum in _ATTR.findall(attrs)}
        *dims, element = type_text.split("x")
        arguments.append((values.get("remat.name", ""),
                          values.get("remat.role", "input"),
                          tuple(int(d) for d in dims), _DTYPES.get(element)))
    return arguments


# --- the eager reference ----------------------------------------------------

def build_model(name):
    model = build_plain_model(name)
    return Autocast(model, AUTOCAST).train() if AUTOCAST else model


def build_plain_model(name):
    kwargs, _ = spec(name)
    torch.manual_seed(0)
    if name in OUTSIDE:
        model = OUTSIDE[name].build()
        redraw_zero_matrices(model)
        return model.train()
    model = models.get_model(name, num_classes=CLASSES, **kwargs) \
        if hasattr(models, "get_model") else \
        getattr(models, name)(num_classes=CLASSES, **kwargs)
    redraw_zero_matrices(model)
    return model.train()


def redraw_zero_matrices(model):
    """Draws weight matrices that the model initializes to zeros (ViT's
    classification head) from normal(0, 0.02): with a zero head every
    gradient before it is zero, and the comparison would check nothing."""
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.dim() >= 2 and not parameter.any():
                parameter.copy_(torch.randn(parameter.shape,
                                            generator=generator) * 0.02)


def draw_inputs(name):
    """The model's input and labels, from a seeded generator: images
    normal(0, 1) [2, 3, S, S] (token ids for language models), labels
    uniform below the classes, one per row of the logits (per pixel for a
    segmentation model's [N, C, H, W] logits)."""
    generator = torch.Generator().manual_seed(0)
    shape, classes = (BATCH,), CLASSES
    if name in OUTSIDE:
        outside = OUTSIDE[name]
        x = outside.example(generator)
        classes = outside.classes
        if outside.per_token:
            shape = (x.numel(),)
        elif outside.per_pixel:
            shape = (x.shape[0],) + tuple(x.shape[2:])
    else:
        _, size = spec(name)
        x = torch.randn(BATCH, 3, size, size, generator=generator)
    labels = torch.randint(0, classes, shape, generator=generator)
    return x, labels


def eager_step(name, x, labels, seeds, dtype=torch.float32):
    """PyTorch's loss, gradients and updated running statistics on the eager
    model (in dtype), with remat's random masks; and how many seeds the
    forward used. Where oneDNN refuses a kernel on this CPU (a bf16 LSTM
    without the CPU's bf16 instructions), ATen's own kernels compute it."""
    try:
        return eager_step_once(name, x, labels, seeds, dtype)
    except RuntimeError as error:
        if "primitive descriptor" not in str(error):
            raise
    with torch.backends.mkldnn.flags(enabled=False):
        return eager_step_once(name, x, labels, seeds, dtype)


def eager_step_once(name, x, labels, seeds, dtype):
    model = build_model(name).to(dtype)
    if x.is_floating_point():  # token ids stay integers
        x = x.to(dtype)
    before = {k: v.clone() for k, v in model.named_buffers()}
    random = RematRandom(seeds)
    with random.patched():
        logits = model(x)
    if isinstance(logits, tuple):  # googlenet / inception outputs
        logits = logits[0]
    # Autocast computes cross entropy in f32.
    loss = F.cross_entropy(logits.float() if AUTOCAST else logits, labels)
    loss.backward()
    expected = {"loss": loss.detach().numpy()}
    for pname, param in model.named_parameters():
        if param.grad is not None:
            expected[pname + ".grad"] = param.grad.numpy()
    for bname, value in model.named_buffers():
        if value.is_floating_point() and not torch.equal(value, before[bname]):
            expected[bname] = value.detach().numpy()
    return expected, random.used


def fp64_references(name, x, labels, seeds, perturbations=2):
    """PyTorch's fp64 results for x, then for x with each element scaled by
    1 +- 2^-23 (one float32 rounding, signs from a seeded generator), once
    per perturbation."""
    generator = torch.Generator().manual_seed(1)
    results = [eager_step(name, x, labels, seeds, torch.float64)[0]]
    if not x.is_floating_point():  # token ids: nothing to perturb
        return results
    for _ in range(perturbations):
        signs = torch.randint(0, 2, x.shape, generator=generator) * 2 - 1
        moved = x.double() * (1 + 2.0 ** -23 * signs.double())
        results.append(eager_step(name, moved, labels, seeds, torch.float64)[0])
    return results


# --- one model --------------------------------------------------------------

def export(name, directory, forms, dtype=torch.float32):
    """Saves the traced and scripted modules and the torch.export program
    (of the model in dtype: its f64 twin for f64); returns {form: path or
    error}."""
    x, _ = draw_inputs(name)
    if x.is_floating_point():
        x = x.to(dtype)
    result = {}
    for form in forms:
        model = build_model(name).to(dtype)
        # Every buffer, the non-persistent ones (not in the state dict:
        # Hugging Face's position ids, rotary frequencies) included.
        state = {k: v.clone() for k, v in model.named_buffers()}
        suffix = "" if dtype == torch.float32 else ".f64"
        path = os.path.join(directory, f"{name}{suffix}.{form}.pt")
        try:
            if form == "exported":
                # Training mode; export traces with fake tensors and leaves
                # the module's buffers as they were.
                path += "2"
                torch.export.save(torch.export.export(model, (x,)), path)
                result[form] = path
                continue
            with warnings.catch_warnings():  # TracerWarnings of the models
                warnings.simplefilter("ignore")
                if form == "traced":
                    module = torch.jit.trace(model, x, check_trace=False)
                else:
                    module = torch.jit.script(model)
            # Tracing ran the forward in training mode: restore the buffers
            # (running statistics) the eager reference starts from.
            with torch.no_grad():
                for bname, value in module.named_buffers():
                    value.copy_(state[bname])
            module.save(path)
            result[form] = path
        except Exception as error:  # noqa: BLE001 - PyTorch's own refusal
            result[form] = StageError(
                "not scriptable" if form == "scripted" else "export",
                first_line(str(error)) or type(error).__name__)
    return result


def relative_error(got, want):
    """max |got - want| over max |want| (the difference itself when want is 0)."""
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    largest = float(np.abs(want.astype(np.float64)).max()) if want.size else 0.0
    error = float(diff.max()) if diff.size else 0.0
    return error / largest if largest > 0 else error


def compare(expected, out_dir, reference64, tolerance=TOLERANCE):
    """Checks remat-run's results against PyTorch's fp32 ones. Returns the
    worst relative error, its tensor, and the tensors judged otherwise.

    A tensor within TOLERANCE of PyTorch's fp32 value passes. Otherwise
    PyTorch's fp64 autograd decides (reference64(): fp64_references()): the
    tensor passes when it is within TOLERANCE of the fp64 value ("vs fp64":
    PyTorch's own fp32 result was the farther one), or when it is at the
    step's noise: remat's difference from fp64 is at most 4 times the step's
    own sensitivity to rounding, the largest of PyTorch's fp32 value's
    difference from fp64 and the fp64 value's change when each input
    element moves by one float32 rounding. This covers gradients that are
    zero in exact arithmetic (the bias of a convolution or batch norm that
    only feeds a batch norm: rounding residue) and steps with a kink that
    rounding decides (an input change of one rounding per element moves the
    fp64 gradient of some tensors of deep regnet_y blocks at batch 2 by
    1-13%). A tensor
    at noise must still be within NOISE_CAP of its fp64 value, unless the
    fp64 value itself is no larger than that noise (a gradient that is zero
    in exact arithmetic). Tensors judged against fp64 count in the worst
    error by that relative error; tensors at noise do not count (--json:
    noise_worst).

    Last, the criterion PyTorch checks its own compiler with (torch._dynamo's
    same() with an fp64 reference, there on the root mean square error with
    a multiplier of 2 for f32 and 3 for bf16, here on the largest difference
    with 2): a tensor passes whose error from fp64 is at most twice PyTorch's
    step's plus a tenth of the tolerance ("as accurate"). Where PyTorch's own
    step is far from fp64, two steps that round in different orders differ
    by as much as each differs from fp64: at batch 2, PyTorch's fp32 gradient of a
    convolution in regnet_y_1_6gf's third stage is 13% from fp64 (remat's
    13%); under bf16 autocast, the U-Net's convolution gradients before
    batch norm up to 13% (the table prints these: farthest_from_fp64()).
    These do not count in the worst error either. judged["over"] holds the
    tensors none of this passes, by their relative error; judged["from_fp64"]
    each tensor's relative error from fp64, remat's and PyTorch's, wherever
    fp64 was consulted (farthest_from_fp64() picks the figure to quote)."""
    produced = {f[:-4] for f in os.listdir(out_dir) if f.endswith(".npy")}
    worst, worst_name = 0.0, ""
    judged = {"fp64": [], "noise": [], "accurate": [], "over": {},
              "errors": {}, "from_fp64": {}}
    for key, want in expected.items():
        if key not in produced:
            raise StageError("compare", f"remat-run wrote no {key}")
        got = np.load(os.path.join(out_dir, key + ".npy"))
        if got.shape != want.shape:
            raise StageError("compare", f"{key}: shape {list(got.shape)} "
                             f"instead of {list(want.shape)}")
        relative = relative_error(got, want)
        if not relative <= tolerance:
            want64, *moved64 = (r.get(key) for r in reference64())
            if want64 is not None:
                judged["from_fp64"][key] = (relative_error(got, want64),
                                            relative_error(want, want64))
                ours = np.abs(got.astype(np.float64) - want64).max()
                rounding = max([np.abs(want.astype(np.float64) - want64).max()]
                               + [np.abs(m - want64).max() for m in moved64])
                if relative_error(got, want64) <= tolerance:
                    judged["fp64"].append(key)
                    relative = relative_error(got, want64)
                elif ours <= 4 * rounding and (
                        relative_error(got, want64) <= NOISE_CAP or
                        np.abs(want64).max() <= 4 * rounding):
                    judged["noise"].append(key)
                    judged["noise_worst"] = max(
                        judged.get("noise_worst", 0.0),
                        relative_error(got, want64))
                    continue
                elif relative_error(got, want64) <= \
                        2 * relative_error(want, want64) + tolerance / 10:
                    judged["accurate"].append(key)
                    continue
        judged["errors"][key] = relative
        if not relative <= tolerance:
            judged["over"][key] = relative
        if not relative <= worst:  # NaN counts as worst
            worst, worst_name = relative, key
    grads = {k for k in produced if k.endswith(".grad")}
    missing = sorted(grads - set(expected))
    if missing:
        raise StageError("compare", f"{missing[0]}: PyTorch computes no such gradient")
    judged["compared"] = len(expected)
    return worst, worst_name, judged


def farthest_from_fp64(judged):
    """Among the tensors judged as accurate, by the twin or not at all, the
    one whose PyTorch result is farthest from fp64: {tensor, pytorch, remat}
    (relative errors), or None."""
    keys = sorted(k for k in set(judged["accurate"]) | set(judged["over"])
                  if k in judged["from_fp64"])
    if not keys:
        return None
    key = max(keys, key=lambda k: judged["from_fp64"][k][1])
    ours, theirs = judged["from_fp64"][key]
    return {"tensor": key, "pytorch": theirs, "remat": ours}


def fp64_text(farthest):
    """'PyTorch 0.13 from fp64 in T, remat 0.13' (relative errors) for a
    table row."""
    return (f"PyTorch {farthest['pytorch']:.2g} from fp64 in "
            f"{farthest['tensor']}, remat {farthest['remat']:.2g}")


TWIN_TOLERANCE = 1e-9


def f64_twin(name, form, work, x, labels, seeds, want64, judged, args):
    """Where fp32 results miss every test of compare(), decides whether
    remat computes the model's step or rounding does: the model in f64
    (model.double(), saved in the same form) through the same tools, against
    PyTorch's fp64 step. When every tensor is within TWIN_TOLERANCE of it
    (remat's ops, gradients and kernels are the model's; the fp32 difference
    is rounding in an ill-conditioned step), the tensors over the tolerance
    pass ("by the f64 twin") and leave the worst error. Returns the worst
    error and tensor of the others; raises StageError otherwise."""
    (over_name, over_error), = sorted(judged["over"].items(),
                                      key=lambda item: -item[1])[:1]
    failure = StageError("compare", f"{over_name}: relative error "
                         f"{over_error:.3g} > {TOLERANCE}")
    directory = os.path.join(work, "f64")
    os.makedirs(directory, exist_ok=True)
    path = export(name, directory, [form], torch.float64)[form]
    if isinstance(path, StageError):
        raise failure
    bins = args.bin_dir
    forward = os.path.join(directory, "forward.mlir")
    step = os.path.join(directory, "step.mlir")
    wide = x.double() if x.is_floating_point() else x
    run_tool("f64 twin", [os.path.join(bins, "remat-import"), path,
                          f"--input-shape={input_shape(wide)}", "-o",
                          forward], args.timeout)
    run_tool("f64 twin", [os.path.join(bins, "remat-opt"), forward,
                          "--remat-autodiff=loss=cross-entropy", "-o", step],
             args.timeout)
    inputs = os.path.join(directory, "inputs")
    os.makedirs(inputs, exist_ok=True)
    arguments = signature(step)
    for (arg_name, role, _, _) in arguments:
        if role == "input":
            np.save(os.path.join(inputs, arg_name + ".npy"), wide.numpy())
        elif role == "label":
            np.save(os.path.join(inputs, arg_name + ".npy"), labels.numpy())
    for (arg_name, _, _, _), value in zip(
            [a for a in arguments if a[1] == "seed"], seeds):
        np.save(os.path.join(inputs, arg_name + ".npy"),
                np.array(value, dtype=np.int64))
    out = os.path.join(directory, "out")
    run_tool("f64 twin", [os.path.join(bins, "remat-run"), step, "--inputs",
                          inputs, "--output-dir", out], args.timeout)
    twin = max(relative_error(np.load(os.path.join(out, key + ".npy")), value)
               for key, value in want64.items())
    if not twin <= TWIN_TOLERANCE:
        raise StageError("compare", f"{failure.message}; the f64 twin too "
                         f"({twin:.3g} from PyTorch's fp64)")
    judged["twin"], judged["twin_error"] = sorted(judged["over"]), twin
    rest = [(error, key) for key, error in judged["errors"].items()
            if key not in judged["over"]]
    return max(rest, default=(0.0, ""))


def rematerialize(step, remat, args):
    """remat-opt --solver=heuristic at the first budget of BUDGETS whose
    result recomputes (holds a remat.recompute_of). A budget the heuristic
    cannot meet is replaced by the smallest arguments + arena it reached;
    when no budget it meets makes it recompute (alexnet and vit_b_16 at batch
    2: no recomputation it finds lowers the peak), its smallest-peak schedule
    for an unmet 50% (--strict=false) is used. Returns the budget."""
    tool = os.path.join(args.bin_dir, "remat-opt")

    def recomputes(budget, *extra):
        run_tool("remat", [tool, step, f"--budget={budget}",
                           "--solver=heuristic", *extra, "-o", remat],
                 args.timeout)
        with open(remat) as f:
            return "remat.recompute_of" in f.read()

    for budget in BUDGETS:
        try:
            if recomputes(budget):
                return budget
        except StageError as error:
            asked = re.search(r"budget of (\d+) bytes", error.message)
            reached = re.search(r"arguments \+ arena (\d+)", error.message)
            if not asked or not reached:
                break
            # The smallest the heuristic reached, in bytes; shown as its
            # share of what the step needs as given.
            whole = int(asked.group(1)) / (float(budget[:-1]) / 100)
            try:
                if recomputes(reached.group(1) + "B"):
                    return f"{100 * int(reached.group(1)) / whole:.2f}%"
            except StageError:
                pass
            break
    if recomputes("50%", "--strict=false"):
        return "50%, unmet"
    raise StageError("remat", "the heuristic does not recompute at any "
                     "budget")


def check_form(name, form, module_path, directory, x, labels, args,
               reference_cache):
    started = time.monotonic()
    row = {"model": name, "form": form, "status": None, "stage": None,
           "error": None, "max_rel_error": None, "worst_tensor": None,
           "budget": None, "bit_identical": None,
           "import_seconds": None}
    bins = args.bin_dir
    work = os.path.join(directory, form)
    os.makedirs(work, exist_ok=True)
    forward = os.path.join(work, "forward.mlir")
    step = os.path.join(work, "step.mlir")
    try:
        start = time.monotonic()
        run_tool("import", [os.path.join(bins, "remat-import"), module_path,
                            f"--input-shape={input_shape(x)}",
                            "-o", forward], args.timeout)
        row["import_seconds"] = round(time.monotonic() - start, 2)
        run_tool("autodiff", [os.path.join(bins, "remat-opt"), forward,
                              "--remat-autodiff=loss=cross-entropy", "-o", step],
                 args.timeout)

        arguments = signature(step)
        seeds = [a for a in arguments if a[1] == "seed"]
        values = seed_values(len(seeds))
        row["seeds"] = len(seeds)
        inputs = os.path.join(work, "inputs")
        os.makedirs(inputs, exist_ok=True)
        for (arg_name, role, shape, dtype) in arguments:
            if role == "input":
                np.save(os.path.join(inputs, arg_name + ".npy"), x.numpy())
            elif role == "label":
                np.save(os.path.join(inputs, arg_name + ".npy"), labels.numpy())
        for (arg_name, _, _, _), value in zip(seeds, values):
            np.save(os.path.join(inputs, arg_name + ".npy"),
                    np.array(value, dtype=np.int64))

        if len(values) not in reference_cache:
            try:
                reference_cache[len(values)] = eager_step(
                    name, x, labels, values)
            except Exception as error:  # noqa: BLE001
                raise StageError("reference", first_line(str(error)))
        expected, used = reference_cache[len(values)]
        if used != len(values):
            raise StageError("reference", f"PyTorch's forward draws {used} "
                             f"random masks, the function has {len(values)} "
                             f"seed arguments")

        out = os.path.join(work, "out")
        run_tool("run", [os.path.join(bins, "remat-run"), step, "--inputs",
                         inputs, "--output-dir", out], args.timeout)
        key64 = (len(values), "f64")

        def reference64():
            if key64 not in reference_cache:
                reference_cache[key64] = fp64_references(name, x, labels,
                                                         values)
            return reference_cache[key64]

        tolerance = BF16_TOLERANCE if AUTOCAST else TOLERANCE
        worst, worst_name, judged = compare(expected, out, reference64,
                                            tolerance)
        row["max_rel_error"], row["worst_tensor"] = worst, worst_name
        if judged["over"] and not AUTOCAST:
            worst, worst_name = f64_twin(name, form, work, x, labels, values,
                                         reference64()[0], judged, args)
        row["max_rel_error"], row["worst_tensor"] = worst, worst_name
        row["judged_fp64"], row["judged_noise"] = judged["fp64"], judged["noise"]
        row["judged_accurate"] = judged["accurate"]
        row["judged_twin"] = judged.get("twin", [])
        row["twin_error"] = judged.get("twin_error")
        row["noise_worst"] = judged.get("noise_worst")
        row["compared_tensors"] = judged["compared"]
        row["farthest_from_fp64"] = farthest_from_fp64(judged)
        if not worst <= tolerance:
            theirs = judged["from_fp64"].get(worst_name)
            beside = "" if theirs is None else \
                f" (from fp64: remat {theirs[0]:.3g}, PyTorch {theirs[1]:.3g})"
            raise StageError("compare", f"{worst_name}: relative error "
                             f"{worst:.3g} > {tolerance}{beside}")

        remat = os.path.join(work, "step-remat.mlir")
        row["budget"] = rematerialize(step, remat, args)
        done = run_tool("reference-run",
                        [os.path.join(bins, "remat-run"), remat, "--inputs",
                         inputs, "--reference", step], args.timeout)
        match = re.search(r"reference: (\d+) of (\d+) results bit-identical",
                          done.stdout + done.stderr)
        if not match or match.group(1) != match.group(2):
            raise StageError("reference-run", "results differ from the "
                             "unrematerialized step")
        row["bit_identical"] = f"{match.group(1)}/{match.group(2)}"
        row["status"] = "pass"
    except StageError as error:
        row["status"] = "fail"
        row["stage"], row["error"] = error.stage, error.message
    row["seconds"] = round(time.monotonic() - started, 1)
    return row


def check_model(name, args):
    directory = os.path.join(args.work_dir, name)
    os.makedirs(directory, exist_ok=True)
    rows = []
    try:
        exported = export(name, directory, args.forms)
    except Exception as error:  # noqa: BLE001 - the constructor failed
        return [dict(model=name, form=form, status="fail", stage="export",
                     error=first_line(str(error))) for form in args.forms]
    x, labels = draw_inputs(name)
    reference_cache = {}
    for form in args.forms:
        path = exported[form]
        if isinstance(path, StageError):
            rows.append(dict(model=name, form=form,
                             status="not scriptable" if path.stage ==
                             "not scriptable" else "fail",
                             stage=path.stage, error=path.message))
            continue
        rows.append(check_form(name, form, path, directory, x, labels, args,
                               reference_cache))
    check_names(rows, directory)
    if not args.keep:
        shutil.rmtree(directory, ignore_errors=True)
    return rows


def op_names(mlir_path):
    """The remat.name of every op of an imported forward, in order, but
    nn.convert's: a traced autocast region converts each operand where the
    trace met it, a program where the op reads it."""
    with open(mlir_path) as file:
        return re.findall(r'= nn\.(?!convert\b)\w+[^\n]*?'
                          r'remat\.name = "([^"]*)"', file.read())


def check_names(rows, directory):
    """Fails a scripted or exported row whose op names differ from the
    traced form's: every form names ops by their module paths."""
    by_form = {row["form"]: row for row in rows}
    for form in ("scripted", "exported"):
        check_form_names(by_form, form, directory)


def check_form_names(by_form, form, directory):
    paths = {f: os.path.join(directory, f, "forward.mlir")
             for f in ("traced", form)}
    if not all(f in by_form and by_form[f]["status"] == "pass" and
               os.path.exists(paths[f]) for f in paths):
        return
    traced, other = op_names(paths["traced"]), op_names(paths[form])
    row = by_form[form]
    row["op_names"] = len(other)
    if not traced:
        row["status"], row["stage"] = "fail", "names"
        row["error"] = "no op with a remat.name in the imported forward"
        return
    if traced == other:
        return
    index = next((i for i, (a, b) in enumerate(zip(traced, other))
                  if a != b), min(len(traced), len(other)))
    row["status"], row["stage"] = "fail", "names"
    row["error"] = (f"op {index}: {form} "
                    f"'{other[index] if index < len(other) else '-'}', "
                    f"traced '{traced[index] if index < len(traced) else '-'}'")


# --- output -----------------------------------------------------------------

def status_text(row):
    if row["status"] == "pass":
        return "pass"
    if row["status"] == "not scriptable":
        return f"not scriptable ({row['error']})"
    return f"{row['stage']}: {row['error']}".replace("|", "\\|")


def table(rows):
    lines = ["| model | form | status | loss/grad max rel error | "
             "recompute bit-identical | import seconds |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        error = row.get("max_rel_error")
        error_text = "" if error is None else f"{error:.2g}"
        notes = [f"{len(row[key])} {text}" for key, text in
                 (("judged_fp64", "vs fp64"), ("judged_noise", "at noise"),
                  ("judged_accurate", "as accurate"),
                  ("judged_twin", "by the f64 twin"))
                 if row.get(key)]
        farthest = row.get("farthest_from_fp64")
        if farthest and (row.get("judged_accurate") or row.get("judged_twin")):
            notes.append(fp64_text(farthest))
        if notes:
            error_text += f" ({', '.join(notes)})"
        identical = row.get("bit_identical")
        identical_text = "" if identical is None else \
            f"yes ({identical} at {row['budget']})"
        seconds = row.get("import_seconds")
        form = row["form"] + (f" {AUTOCAST_NAME}" if AUTOCAST else "")
        lines.append(f"| {row['model']} | {form} | {status_text(row)} "
                     f"| {error_text} | {identical_text} | "
                     f"{'' if seconds is None else seconds} |")
    return "\n".join(lines)


# --- self-test of the generator ---------------------------------------------

class _Dropout(torch.nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, True)


class _Depth(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.depth = torchvision.ops.StochasticDepth(0.4, "row")

    def forward(self, x):
        return self.depth(x)


def self_test(args):
    """remat-run's dropout (and bernoulli) masks equal mix_bits/uniform's."""
    bins = args.bin_dir
    directory = os.path.join(args.work_dir, "self-test")
    os.makedirs(directory, exist_ok=True)
    ok = True
    # splitmix64 seeded with 0 first returns mix(0x9e3779b97f4a7c15) =
    # 0xe220a8397b1dcdaf (the reference C implementation's first output).
    if int(mix_bits(np.array([0x9E3779B97F4A7C15], dtype=np.uint64))[0]) \
            != 0xE220A8397B1DCDAF:
        print("mix_bits differs from splitmix64's finalizer")
        ok = False
    cases = [("dropout-0.5", _Dropout(0.5), (3, 5, 7), 12345),
             ("dropout-0.3", _Dropout(0.3), (2, 1000), 2 ** 62 + 17),
             ("stochastic-depth", _Depth(), (64, 3, 2), 99)]
    for label, module, shape, seed in cases:
        work = os.path.join(directory, label)
        os.makedirs(os.path.join(work, "inputs"), exist_ok=True)
        x = torch.ones(shape)
        path = os.path.join(work, "model.pt")
        torch.jit.trace(module.train(), x, check_trace=False).save(path)
        mlir = os.path.join(work, "model.mlir")
        try:
            run_tool("import", [os.path.join(bins, "remat-import"), path,
                                "--input-shape=" + "x".join(map(str, shape)) +
                                "xf32", "-o", mlir], args.timeout)
        except StageError as error:
            print(f"{label}: not checked (import: {error.message})")
            ok = False
            continue
        seeds = [a for a in signature(mlir) if a[1] == "seed"]
        if len(seeds) != 1:
            print(f"{label}: {len(seeds)} seed arguments instead of 1")
            ok = False
            continue
        np.save(os.path.join(work, "inputs", "x.npy"), x.numpy())
        np.save(os.path.join(work, "inputs", seeds[0][0] + ".npy"),
                np.array(seed, dtype=np.int64))
        out = os.path.join(work, "out")
        run_tool("run", [os.path.join(bins, "remat-run"), mlir, "--inputs",
                         os.path.join(work, "inputs"), "--output-dir", out],
                 args.timeout)
        got = np.load(os.path.join(out, "output.npy")) != 0
        if isinstance(module, _Depth):  # rows kept with probability 1 - 0.4
            want = np.broadcast_to(bernoulli_ones(seed, (shape[0], 1, 1), 0.6),
                                   shape)
        else:
            want = dropout_keep(seed, shape, module.p)
        # And the eager patch draws the same mask.
        random = RematRandom([seed])
        with random.patched():
            eager = module(x).detach().numpy() != 0
        same = np.array_equal(got, want) and np.array_equal(eager, want)
        print(f"{label}: {'masks equal' if same else 'MASKS DIFFER'} "
              f"({int(want.sum())} of {want.size} ones)")
        ok = ok and same
    print("self-test passed" if ok else "self-test FAILED")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="",
                        help="comma-separated names (default: the 22 of the "
                        "docs; 'outside': outside_models.py's MODELS; "
                        "'timm-families': its TIMM_FAMILIES; 'video': "
                        "its VIDEO)")
    parser.add_argument("--all", action="store_true",
                        help="all of torchvision.models.list_models()")
    parser.add_argument("--skip", default="",
                        help="comma-separated names to leave out")
    parser.add_argument("--forms", default="traced,scripted,exported")
    parser.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"))
    parser.add_argument("--work-dir", default="")
    parser.add_argument("--keep", action="store_true",
                        help="keep each model's files in the work dir")
    parser.add_argument("--json", default="")
    parser.add_argument("--allow-failures", action="store_true")
    parser.add_argument("--timeout", type=int, default=3600,
                        help="seconds per tool run")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--autocast", choices=["bf16"], default=None,
                        help="export and train each model under "
                        "torch.autocast(dtype=bfloat16), against PyTorch's "
                        "autocast step within BF16_TOLERANCE")
    args = parser.parse_args()
    global AUTOCAST
    AUTOCAST = {"bf16": torch.bfloat16}.get(args.autocast)
    args.forms = [f for f in args.forms.split(",") if f]
    args.bin_dir = os.path.abspath(args.bin_dir)

    temporary = None
    if not args.work_dir:
        temporary = tempfile.mkdtemp(prefix="zoo-check-")
        args.work_dir = temporary
    try:
        if args.self_test:
            return self_test(args)
        if args.all:
            names = models.list_models(module=models)
        elif args.models:
            names = [n for n in args.models.split(",") if n]
            if "outside" in names:
                at = names.index("outside")
                names[at:at + 1] = list(MODELS)
            if "timm-families" in names:
                at = names.index("timm-families")
                names[at:at + 1] = list(TIMM_FAMILIES)
            if "video" in names:
                at = names.index("video")
                names[at:at + 1] = list(VIDEO)
        else:
            names = list(SPECS)
        skipped = set(args.skip.split(","))
        names = [n for n in names if n not in skipped]
        rows = []
        for name in names:
            model_rows = check_model(name, args)
            for row in model_rows:
                seconds = row.get("seconds")
                print(f"{row['model']} {row['form']}: {status_text(row)}"
                      + (f" ({seconds:.0f} s)" if seconds is not None else ""),
                      file=sys.stderr, flush=True)
            rows.extend(model_rows)
            if args.json:  # after each model: a long benchmark keeps its rows
                with open(args.json, "w") as f:
                    json.dump(rows, f, indent=1)
        print(table(rows))
        failed = [r for r in rows if r["status"] == "fail"]
        return 1 if failed and not args.allow_failures else 0
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
