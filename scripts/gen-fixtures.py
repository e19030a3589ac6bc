#!/usr/bin/env python3
"""gen-fixtures.py - writes the hand-derived training-step fixtures.

The fixtures in test/Fixtures are complete training steps (forward, loss,
backward, optimizer update) in the nn dialect, kept as references for the
passes and executors. Their backward parts are derived by hand here, op by
op, from ATen's derivative formulas; this script only keeps the SSA names,
shapes and remat.* attributes consistent. Run it to rewrite the fixtures, or
with --check DIR to verify that DIR holds exactly what it would write.

Plain Python 3, no dependencies.
"""

import argparse
import os
import sys


def tensor_type(shape, dtype="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i64": 8}


def type_bytes(ty):
    """Bytes of a textual tensor type such as tensor<4x3xf32>."""
    dims = ty[len("tensor<"):-1].split("x")
    count = 1
    for dim in dims[:-1]:
        count *= int(dim)
    return count * ELEMENT_BYTES[dims[-1]]


class Value:
    def __init__(self, ssa, shape, dtype="f32"):
        self.ssa = ssa
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)


class StepWriter:
    """Emits one func.func of the nn dialect, one op per call."""

    def __init__(self, name, summary):
        self.name = name
        self.summary = summary
        self.args = []
        self.lines = []
        self.results = []
        self.counter = 0
        self.kinds = []
        self.forward_bytes = 0

    # -- signature -----------------------------------------------------------
    def arg(self, name, role, shape, dtype="f32"):
        ssa = "%" + name.replace(".", "_")
        self.args.append((ssa, name, role, tensor_type(shape, dtype)))
        return Value(ssa, shape, dtype)

    def result(self, value, name, updates=None):
        """Returns `value` as result `name`; `updates`: the name of the
        argument whose new value it is (remat.updates)."""
        self.results.append((value, name, updates))

    # -- ops -----------------------------------------------------------------
    def _fresh(self, hint):
        self.counter += 1
        return f"%{hint.replace('.', '_').replace('#', '_')}_{self.counter}"

    def _record(self, kind, phase, results):
        self.kinds.append(kind)
        if phase == "forward":
            self.forward_bytes += sum(type_bytes(r.type) for r in results)

    def _attrs(self, name, phase, extra):
        parts = list(extra) + [f'remat.name = "{name}"', f'remat.phase = #remat.phase<{phase}>']
        return "{" + ", ".join(parts) + "}"

    def op(self, kind, operands, result_shapes, name, phase, attrs=(),
           fmt="functional", result_dtypes=None):
        """Emits `kind` and returns its results as Values.

        fmt selects the type signature of the custom assembly form:
        'functional' (operands) -> results, 'same' one type, 'arrow'
        input -> result(s), or a callable building the suffix itself.
        """
        result_dtypes = result_dtypes or ["f32"] * len(result_shapes)
        results = [Value(self._fresh(name), s, d)
                   for s, d in zip(result_shapes, result_dtypes)]
        lhs = ", ".join(r.ssa for r in results)
        ops = ", ".join(o.ssa for o in operands)
        attr_text = self._attrs(name, phase, attrs)
        if fmt == "functional":
            rtypes = ", ".join(r.type for r in results)
            if len(results) > 1:
                rtypes = f"({rtypes})"
            sig = f"({', '.join(o.type for o in operands)}) -> {rtypes}"
        elif fmt == "same":
            sig = results[0].type
        elif fmt == "arrow":
            sig = f"{operands[0].type} -> " + ", ".join(r.type for r in results)
        else:
            sig = fmt(operands, results)
        self.lines.append(f"  {lhs} = nn.{kind} {ops} {attr_text} : {sig}")
        self._record(kind, phase, results)
        return results if len(results) > 1 else results[0]

    def fill(self, value, shape, name, phase):
        result = Value(self._fresh(name), shape)
        attr_text = self._attrs(name, phase, ())
        self.lines.append(f"  {result.ssa} = nn.full {value} {attr_text} : {result.type}")
        self._record("full", phase, [result])
        return result

    def scalar_op(self, kind, operand, scalar, name, phase):
        result = Value(self._fresh(name), operand.shape, operand.dtype)
        attr_text = self._attrs(name, phase, ())
        self.lines.append(f"  {result.ssa} = nn.{kind} {operand.ssa}, {scalar} "
                          f"{attr_text} : {result.type}")
        self._record(kind, phase, [result])
        return result

    # -- output --------------------------------------------------------------
    def byte_summary(self):
        """Bytes of the arguments by role and of the forward activations."""
        by_role = {}
        for _, _, role, ty in self.args:
            by_role[role] = by_role.get(role, 0) + type_bytes(ty)
        roles = ", ".join(f"{role} {size}" for role, size in sorted(by_role.items()))
        return [f"Argument bytes by role: {roles}.",
                f"Bytes of the forward results: {self.forward_bytes}."]

    def render(self):
        out = [f"// {line}" if line else "//" for line in self.summary + self.byte_summary()]
        out.append("// Generated by scripts/gen-fixtures.py; edit that script, not this file.")
        out.append("//")
        out.append("// Round trip, custom and generic form, keeping every op in order:")
        out.append("// RUN: remat-opt %s | remat-opt | FileCheck %s")
        out.append("// RUN: remat-opt %s --mlir-print-op-generic | remat-opt | FileCheck %s")
        out.append(f"// CHECK-LABEL: func.func @{self.name}")
        out.extend(f"// CHECK: nn.{kind}" for kind in self.kinds)
        out.append("// CHECK: return")
        out.append("")
        args = ",\n    ".join(
            f'{ssa}: {ty} {{remat.name = "{name}", remat.role = #remat.role<{role}>}}'
            for ssa, name, role, ty in self.args)
        def result_attrs(name, updates):
            attrs = f'remat.name = "{name}"'
            if updates:
                attrs += f', remat.updates = "{updates}"'
            return "{" + attrs + "}"
        results = ",\n        ".join(f"{v.type} {result_attrs(n, u)}"
                                      for v, n, u in self.results)
        out.append(f"func.func @{self.name}(\n    {args})\n    -> ({results}) {{")
        out.extend(self.lines)
        ret_vals = ", ".join(v.ssa for v, _, _ in self.results)
        ret_types = ", ".join(v.type for v, _, _ in self.results)
        out.append(f"  return {ret_vals} : {ret_types}")
        out.append("}")
        return "\n".join(out) + "\n"


def conv_out(size, kernel, stride, padding):
    return (size + 2 * padding - kernel) // stride + 1


def pair(values):
    return "array<i64: " + ", ".join(str(v) for v in values) + ">"


def conv_attrs(stride, padding):
    attrs = []
    if stride != 1:
        attrs.append(f"stride = {pair([stride, stride])}")
    if padding != 0:
        attrs.append(f"padding = {pair([padding, padding])}")
    return attrs


# ---------------------------------------------------------------------------
# Small conv net (a blog post on checkpointing): conv -> conv -> flatten -> linear -> CE, SGD.
# ---------------------------------------------------------------------------
def small_convnet():
    batch, lr = 4, 0.001
    w = StepWriter("small_convnet_step", [
        "The small conv net of a blog post on checkpointing: conv(3->32, k3, p1) ->",
        "conv(32->64, k3, p1) -> flatten -> linear(1024 -> 10) -> cross entropy,",
        f"plain SGD (lr {lr}), batch {batch} of 3x4x4 inputs.",
    ])
    x = w.arg("input", "input", (batch, 3, 4, 4))
    labels = w.arg("labels", "label", (batch,), "i64")
    params = {
        "conv1.weight": w.arg("conv1.weight", "weight", (32, 3, 3, 3)),
        "conv1.bias": w.arg("conv1.bias", "weight", (32,)),
        "conv2.weight": w.arg("conv2.weight", "weight", (64, 32, 3, 3)),
        "conv2.bias": w.arg("conv2.bias", "weight", (64,)),
        "fc.weight": w.arg("fc.weight", "weight", (10, 1024)),
        "fc.bias": w.arg("fc.bias", "weight", (10,)),
    }
    p = params
    f = "forward"
    h1 = w.op("conv2d", [x, p["conv1.weight"], p["conv1.bias"]], [(batch, 32, 4, 4)],
              "conv1", f, conv_attrs(1, 1))
    h2 = w.op("conv2d", [h1, p["conv2.weight"], p["conv2.bias"]], [(batch, 64, 4, 4)],
              "conv2", f, conv_attrs(1, 1))
    flat = w.op("reshape", [h2], [(batch, 1024)], "view", f, fmt="arrow")
    logits = w.op("linear", [flat, p["fc.weight"], p["fc.bias"]], [(batch, 10)], "fc", f)
    loss = w.op("cross_entropy", [logits, labels], [()], "loss", f)

    b = "backward"
    one = w.fill("1.0", (), "loss.grad_seed", b)
    dlogits = w.op("cross_entropy_backward", [one, logits, labels], [(batch, 10)],
                   "loss.grad", b)
    grads = {}
    grads["fc.weight"] = w.op("linear_backward_weight", [dlogits, flat], [(10, 1024)],
                              "fc.grad_weight", b)
    grads["fc.bias"] = w.op("linear_backward_bias", [dlogits], [(10,)], "fc.grad_bias", b)
    dflat = w.op("linear_backward_input", [dlogits, p["fc.weight"]], [(batch, 1024)],
                 "fc.grad_input", b)
    dh2 = w.op("reshape", [dflat], [(batch, 64, 4, 4)], "view.grad", b, fmt="arrow")
    grads["conv2.weight"] = w.op("conv2d_backward_weight", [dh2, h1], [(64, 32, 3, 3)],
                                 "conv2.grad_weight", b, conv_attrs(1, 1))
    grads["conv2.bias"] = w.op("conv2d_backward_bias", [dh2], [(64,)], "conv2.grad_bias", b)
    dh1 = w.op("conv2d_backward_input", [dh2, p["conv2.weight"]], [(batch, 32, 4, 4)],
               "conv2.grad_input", b, conv_attrs(1, 1))
    grads["conv1.weight"] = w.op("conv2d_backward_weight", [dh1, x], [(32, 3, 3, 3)],
                                 "conv1.grad_weight", b, conv_attrs(1, 1))
    grads["conv1.bias"] = w.op("conv2d_backward_bias", [dh1], [(32,)], "conv1.grad_bias", b)

    w.result(loss, "loss")
    for name, param in params.items():
        new = w.op("sgd", [param, grads[name]], [param.shape], f"{name}.sgd", "update",
                   [f"lr = {lr} : f64"])
        w.result(new, f"{name}.new")
    return w


# ---------------------------------------------------------------------------
# Activation-dominated CNN for budget tests.
# ---------------------------------------------------------------------------
def activation_heavy_cnn():
    batch, classes = 16, 10
    lr, momentum, decay = 0.1, 0.9, 5e-4
    blocks = [(3, 16, 1), (16, 32, 2), (32, 32, 1), (32, 64, 2)]
    w = StepWriter("conv_bn_relu_step", [
        "An activation-dominated training step for budget tests: four",
        "conv3x3 -> batch norm -> ReLU blocks (16, 32, 32, 64 channels, strides",
        f"1, 2, 1, 2) on a batch of {batch} 3x32x32 images, adaptive average",
        f"pooling, linear to {classes} classes, cross entropy, SGD with momentum",
        f"{momentum} and weight decay {decay}. Its activations outweigh its",
        "weights many times over.",
    ])
    x = w.arg("input", "input", (batch, 3, 32, 32))
    labels = w.arg("labels", "label", (batch,), "i64")
    params, buffers = {}, {}
    for i, (cin, cout, _) in enumerate(blocks, 1):
        params[f"block{i}.conv.weight"] = w.arg(f"block{i}.conv.weight", "weight", (cout, cin, 3, 3))
        params[f"block{i}.bn.weight"] = w.arg(f"block{i}.bn.weight", "weight", (cout,))
        params[f"block{i}.bn.bias"] = w.arg(f"block{i}.bn.bias", "weight", (cout,))
        buffers[f"block{i}.bn.running_mean"] = w.arg(f"block{i}.bn.running_mean", "buffer", (cout,))
        buffers[f"block{i}.bn.running_var"] = w.arg(f"block{i}.bn.running_var", "buffer", (cout,))
    params["fc.weight"] = w.arg("fc.weight", "weight", (classes, 64))
    params["fc.bias"] = w.arg("fc.bias", "weight", (classes,))
    momenta = {name: w.arg(f"{name}.momentum_buffer", "opt_state", p.shape)
               for name, p in params.items()}

    f = "forward"
    saved = []
    h, size = x, 32
    new_stats = []
    for i, (cin, cout, stride) in enumerate(blocks, 1):
        size = conv_out(size, 3, stride, 1)
        shape = (batch, cout, size, size)
        conv = w.op("conv2d", [h, params[f"block{i}.conv.weight"]], [shape],
                    f"block{i}.conv", f, conv_attrs(stride, 1))
        y, mean, invstd = w.op(
            "batch_norm", [conv, params[f"block{i}.bn.weight"], params[f"block{i}.bn.bias"]],
            [shape, (cout,), (cout,)], f"block{i}.bn", f,
            fmt=lambda o, r: f"{o[0].type}, {o[1].type}")
        run_mean, run_var = w.op(
            "batch_norm_update_stats", [conv, buffers[f"block{i}.bn.running_mean"],
                                        buffers[f"block{i}.bn.running_var"]],
            [(cout,), (cout,)], f"block{i}.bn.update_stats", f,
            fmt=lambda o, r: f"{o[0].type}, {o[1].type}")
        new_stats += [(run_mean, f"block{i}.bn.running_mean.new", f"block{i}.bn.running_mean"),
                      (run_var, f"block{i}.bn.running_var.new", f"block{i}.bn.running_var")]
        relu = w.op("relu", [y], [shape], f"block{i}.relu", f, fmt="same")
        saved.append((h, conv, mean, invstd, relu, stride, shape))
        h = relu
    pooled = w.op("adaptive_avg_pool2d", [h], [(batch, 64, 1, 1)], "pool", f, fmt="arrow")
    flat = w.op("flatten", [pooled], [(batch, 64)], "flatten", f, fmt="arrow")
    logits = w.op("linear", [flat, params["fc.weight"], params["fc.bias"]], [(batch, classes)], "fc", f)
    loss = w.op("cross_entropy", [logits, labels], [()], "loss", f)

    b = "backward"
    grads = {}
    one = w.fill("1.0", (), "loss.grad_seed", b)
    dlogits = w.op("cross_entropy_backward", [one, logits, labels], [(batch, classes)], "loss.grad", b)
    grads["fc.weight"] = w.op("linear_backward_weight", [dlogits, flat], [(classes, 64)], "fc.grad_weight", b)
    grads["fc.bias"] = w.op("linear_backward_bias", [dlogits], [(classes,)], "fc.grad_bias", b)
    dflat = w.op("linear_backward_input", [dlogits, params["fc.weight"]], [(batch, 64)], "fc.grad_input", b)
    dpooled = w.op("reshape", [dflat], [(batch, 64, 1, 1)], "flatten.grad", b, fmt="arrow")
    dh = w.op("adaptive_avg_pool2d_backward", [dpooled], [h.shape], "pool.grad", b, fmt="arrow")
    for i in range(len(blocks), 0, -1):
        block_in, conv, mean, invstd, relu, stride, shape = saved[i - 1]
        cout = shape[1]
        dy = w.op("relu_backward", [dh, relu], [shape], f"block{i}.relu.grad", b, fmt="same")
        dconv, dgamma, dbeta = w.op(
            "batch_norm_backward", [dy, conv, params[f"block{i}.bn.weight"], mean, invstd],
            [shape, (cout,), (cout,)], f"block{i}.bn.grad", b,
            fmt=lambda o, r: f"{o[1].type}, {o[2].type}")
        grads[f"block{i}.bn.weight"], grads[f"block{i}.bn.bias"] = dgamma, dbeta
        grads[f"block{i}.conv.weight"] = w.op(
            "conv2d_backward_weight", [dconv, block_in], [params[f"block{i}.conv.weight"].shape],
            f"block{i}.conv.grad_weight", b, conv_attrs(stride, 1))
        if i > 1:
            dh = w.op("conv2d_backward_input", [dconv, params[f"block{i}.conv.weight"]],
                      [block_in.shape], f"block{i}.conv.grad_input", b, conv_attrs(stride, 1))

    w.result(loss, "loss")
    for value, name, updates in new_stats:
        w.result(value, name, updates)
    for name, param in params.items():
        new, buf = w.op("sgd", [param, grads[name], momenta[name]], [param.shape, param.shape],
                        f"{name}.sgd", "update",
                        [f"lr = {lr} : f64", f"momentum = {momentum} : f64",
                         f"weight_decay = {decay} : f64"])
        w.result(new, f"{name}.new")
        w.result(buf, f"{name}.momentum_buffer.new")
    return w


# ---------------------------------------------------------------------------
# Two-layer MLP with GELU and layer norm, Adam.
# ---------------------------------------------------------------------------
def mlp_adam():
    batch, features, hidden, classes = 32, 64, 128, 10
    w = StepWriter("mlp_adam_step", [
        f"A two-layer MLP: linear({features} -> {hidden}) -> GELU -> layer norm ->",
        f"linear({hidden} -> {classes}) -> cross entropy on a batch of {batch}, with",
        "one Adam step (PyTorch's defaults) whose step count is an argument.",
    ])
    x = w.arg("input", "input", (batch, features))
    labels = w.arg("labels", "label", (batch,), "i64")
    params = {
        "fc1.weight": w.arg("fc1.weight", "weight", (hidden, features)),
        "fc1.bias": w.arg("fc1.bias", "weight", (hidden,)),
        "norm.weight": w.arg("norm.weight", "weight", (hidden,)),
        "norm.bias": w.arg("norm.bias", "weight", (hidden,)),
        "fc2.weight": w.arg("fc2.weight", "weight", (classes, hidden)),
        "fc2.bias": w.arg("fc2.bias", "weight", (classes,)),
    }
    moments = {name: (w.arg(f"{name}.exp_avg", "opt_state", p.shape),
                      w.arg(f"{name}.exp_avg_sq", "opt_state", p.shape))
               for name, p in params.items()}
    step = w.arg("step", "step", ())
    p = params

    f = "forward"
    h = w.op("linear", [x, p["fc1.weight"], p["fc1.bias"]], [(batch, hidden)], "fc1", f)
    g = w.op("gelu", [h], [(batch, hidden)], "gelu", f, fmt="same")
    n, mean, rstd = w.op("layer_norm", [g, p["norm.weight"], p["norm.bias"]],
                         [(batch, hidden), (batch, 1), (batch, 1)], "norm", f,
                         fmt=lambda o, r: f"{o[0].type}, {o[1].type} -> {r[1].type}")
    logits = w.op("linear", [n, p["fc2.weight"], p["fc2.bias"]], [(batch, classes)], "fc2", f)
    loss = w.op("cross_entropy", [logits, labels], [()], "loss", f)

    b = "backward"
    grads = {}
    one = w.fill("1.0", (), "loss.grad_seed", b)
    dlogits = w.op("cross_entropy_backward", [one, logits, labels], [(batch, classes)], "loss.grad", b)
    grads["fc2.weight"] = w.op("linear_backward_weight", [dlogits, n], [(classes, hidden)], "fc2.grad_weight", b)
    grads["fc2.bias"] = w.op("linear_backward_bias", [dlogits], [(classes,)], "fc2.grad_bias", b)
    dn = w.op("linear_backward_input", [dlogits, p["fc2.weight"]], [(batch, hidden)], "fc2.grad_input", b)
    dg, grads["norm.weight"], grads["norm.bias"] = w.op(
        "layer_norm_backward", [dn, g, mean, rstd, p["norm.weight"]],
        [(batch, hidden), (hidden,), (hidden,)], "norm.grad", b,
        fmt=lambda o, r: f"{o[1].type}, {o[2].type}, {o[4].type}")
    dh = w.op("gelu_backward", [dg, h], [(batch, hidden)], "gelu.grad", b, fmt="same")
    grads["fc1.weight"] = w.op("linear_backward_weight", [dh, x], [(hidden, features)], "fc1.grad_weight", b)
    grads["fc1.bias"] = w.op("linear_backward_bias", [dh], [(hidden,)], "fc1.grad_bias", b)

    u = "update"
    new_step = w.scalar_op("add_scalar", step, "1.0", "step.increment", u)
    w.result(loss, "loss")
    for name, param in params.items():
        m, v = moments[name]
        new_p, new_m, new_v = w.op(
            "adam", [param, grads[name], m, v, new_step], [param.shape] * 3,
            f"{name}.adam", u, fmt=lambda o, r: f"{o[0].type}, {o[4].type}")
        w.result(new_p, f"{name}.new")
        w.result(new_m, f"{name}.exp_avg.new")
        w.result(new_v, f"{name}.exp_avg_sq.new")
    w.result(new_step, "step.new")
    return w


FIXTURES = {
    "small-convnet.mlir": small_convnet,
    "conv-bn-relu.mlir": activation_heavy_cnn,
    "mlp-adam.mlir": mlp_adam,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "test", "Fixtures"),
                        help="directory to write the fixtures to")
    parser.add_argument("--check", metavar="DIR",
                        help="compare DIR with what would be written; exit 1 on a difference")
    args = parser.parse_args()
    status = 0
    for file_name, build in FIXTURES.items():
        text = build().render()
        if args.check:
            path = os.path.join(args.check, file_name)
            with open(path) as handle:
                if handle.read() != text:
                    print(f"{path} differs from what scripts/gen-fixtures.py writes", file=sys.stderr)
                    status = 1
        else:
            with open(os.path.join(args.out, file_name), "w") as handle:
                handle.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
