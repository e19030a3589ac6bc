#!/usr/bin/env python3
"""check-ops.py - every nn op run by remat-run against ATen called directly.

For each op: a one-op function, inputs drawn with torch and written as .npy,
`remat-run --inputs --output-dir` on it as written (fresh tensors) and after
remat-plan-memory (results written into the arena, through ATen's `_out`
kernels where they exist), and the results compared with the same
ATen function called from PyTorch: bit for bit where remat-run calls that
function, and within 1e-6 (relative and absolute) where it composes the op
differently: the input gradient of a convolution as a transposed
convolution, cross entropy's backward and the optimizers against autograd
and torch.optim.

Usage: check-ops.py REMAT_RUN WORK_DIR   (needs the project environment's torch)
"""

import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(0)
A = torch.ops.aten


def t(*shape):
    return torch.randn(*shape, dtype=torch.float32)


def tensor_type(x):
    dtype = {torch.float32: "f32", torch.int64: "i64", torch.float16: "f16",
             torch.float64: "f64"}[x.dtype]
    return "tensor<" + "".join(f"{d}x" for d in x.shape) + dtype + ">"


CASES = []


def case(name, op, inputs, expected, results=None, exact=True):
    """op: MLIR text using %a0, %a1, ... and RESULT types via {r0}...; the
    function returns every result named r0, r1, ..."""
    CASES.append((name, op, inputs, expected, exact))


x4 = t(2, 3, 5, 5)
g4 = t(2, 3, 5, 5)
x2 = t(4, 6)
g2 = t(4, 6)
pos = torch.rand(4, 6) + 0.5
seed = torch.tensor(1234, dtype=torch.int64)

# Element-wise.
case("relu", "nn.relu %a0 : {t0}", [x2], lambda a: [A.relu(a)])
y = A.relu(x2)
case("relu_backward", "nn.relu_backward %a0, %a1 : {t0}", [g2, y], lambda g, y: [A.threshold_backward(g, y, 0)])
case("gelu", "nn.gelu %a0 : {t0}", [x2], lambda a: [A.gelu(a)])
case("gelu_tanh", "nn.gelu %a0 {{approximate = \"tanh\"}} : {t0}", [x2], lambda a: [A.gelu(a, approximate="tanh")])
case("gelu_backward", "nn.gelu_backward %a0, %a1 : {t0}", [g2, x2], lambda g, a: [A.gelu_backward(g, a)])
case("sigmoid", "nn.sigmoid %a0 : {t0}", [x2], lambda a: [A.sigmoid(a)])
case("sigmoid_backward", "nn.sigmoid_backward %a0, %a1 : {t0}", [g2, torch.sigmoid(x2)], lambda g, y: [A.sigmoid_backward(g, y)])
case("tanh", "nn.tanh %a0 : {t0}", [x2], lambda a: [A.tanh(a)])
case("tanh_backward", "nn.tanh_backward %a0, %a1 : {t0}", [g2, torch.tanh(x2)], lambda g, y: [A.tanh_backward(g, y)])
# The piecewise activations on inputs that reach every piece (|x| > 3 too),
# hardtanh's backward on relu6's result (exact 0s and 6s included).
xw = 4 * t(4, 6)
case("hardtanh", "nn.hardtanh %a0 : {t0}", [xw], lambda a: [A.hardtanh(a)])
case("hardtanh_relu6", "nn.hardtanh %a0 {{min_val = 0.0 : f64, max_val = 6.0 : f64}} : {t0}", [xw], lambda a: [A.hardtanh(a, 0.0, 6.0)])
case("hardtanh_backward", "nn.hardtanh_backward %a0, %a1 {{min_val = 0.0 : f64, max_val = 6.0 : f64}} : {t0}", [g2, A.hardtanh(xw, 0.0, 6.0)], lambda g, y: [A.hardtanh_backward(g, y, 0.0, 6.0)])
case("hardswish", "nn.hardswish %a0 : {t0}", [xw], lambda a: [A.hardswish(a)])
case("hardswish_backward", "nn.hardswish_backward %a0, %a1 : {t0}", [g2, xw], lambda g, a: [A.hardswish_backward(g, a)])
case("hardsigmoid", "nn.hardsigmoid %a0 : {t0}", [xw], lambda a: [A.hardsigmoid(a)])
case("hardsigmoid_backward", "nn.hardsigmoid_backward %a0, %a1 : {t0}", [g2, xw], lambda g, a: [A.hardsigmoid_backward(g, a)])
case("silu", "nn.silu %a0 : {t0}", [xw], lambda a: [A.silu(a)])
case("silu_backward", "nn.silu_backward %a0, %a1 : {t0}", [g2, xw], lambda g, a: [A.silu_backward(g, a)])
case("exp", "nn.exp %a0 : {t0}", [x2], lambda a: [A.exp(a)])
b1 = t(1, 6)
case("add", "nn.add %a0, %a1 : {t0}, {t1} -> {t0}", [x2, b1], lambda a, b: [A.add(a, b)])
case("sub", "nn.sub %a0, %a1 : {t0}, {t1} -> {t0}", [x2, b1], lambda a, b: [A.sub(a, b)])
case("mul", "nn.mul %a0, %a1 : {t0}, {t1} -> {t0}", [x2, b1], lambda a, b: [A.mul(a, b)])
case("div", "nn.div %a0, %a1 : {t0}, {t1} -> {t0}", [x2, pos], lambda a, b: [A.div(a, b)])
case("add_scalar", "nn.add_scalar %a0, 1.5 : {t0}", [x2], lambda a: [A.add(a, 1.5)])
case("sub_scalar", "nn.sub_scalar %a0, 1.5 : {t0}", [x2], lambda a: [A.sub(a, 1.5)])
case("mul_scalar", "nn.mul_scalar %a0, 1.5 : {t0}", [x2], lambda a: [A.mul(a, 1.5)])
case("div_scalar", "nn.div_scalar %a0, 1.5 : {t0}", [x2], lambda a: [A.div(a, 1.5)])
case("full", "nn.full 2.5 : tensor<3x2xf32>", [], lambda: [torch.full((3, 2), 2.5)])
case("broadcast_to", "nn.broadcast_to %a0 : {t0} -> tensor<4x6xf32>", [b1], lambda a: [a.expand(4, 6)])
case("convert", "nn.convert %a0 : {t0} -> tensor<4x6xf16>", [x2], lambda a: [a.to(torch.float16)])
case("convert_f64", "nn.convert %a0 : {t0} -> tensor<4x6xf64>", [x2], lambda a: [a.to(torch.float64)])


def dropout_mask(seed_value, p, shape):
    """The documented generator, in Python (docs/execution.md)."""
    mask64 = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & mask64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & mask64
        return z ^ (z >> 31)

    key = mix(seed_value & mask64)
    count = int(np.prod(shape))
    keep = [(mix((key + (i + 1) * 0x9e3779b97f4a7c15) & mask64) >> 11) * 2.0 ** -53 >= p
            for i in range(count)]
    return torch.tensor(keep, dtype=torch.float32).reshape(shape)


mask = dropout_mask(1234, 0.25, (4, 6))
case("dropout", "nn.dropout %a0, %a1, 0.25 : {t0}, {t1} -> {t0}", [x2, seed],
     lambda a, s: [a * mask * (1.0 / 0.75)])
case("dropout_backward", "nn.dropout_backward %a0, %a1, 0.25 : {t0}, {t1} -> {t0}", [g2, seed],
     lambda g, s: [g * mask * (1.0 / 0.75)])



def bernoulli_sample(seed_value, p, shape):
    """nn.bernoulli's sample: 1 where the dropout generator's uniform < p."""
    return 1.0 - dropout_mask(seed_value, p, shape)


case("bernoulli", "nn.bernoulli %a0, 0.7 : {t0} -> tensor<3x1x4xf32>", [seed],
     lambda s: [bernoulli_sample(1234, 0.7, (3, 1, 4))])

# Linear, matmul, embedding.
x3 = t(2, 3, 8)
w = t(5, 8)
bias = t(5)
g3 = t(2, 3, 5)
case("linear", "nn.linear %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> tensor<2x3x5xf32>", [x3, w, bias],
     lambda a, w, b: [A.linear(a, w, b)])
case("linear_backward_input", "nn.linear_backward_input %a0, %a1 : ({t0}, {t1}) -> tensor<2x3x8xf32>", [g3, w],
     lambda g, w: [A.matmul(g, w)])
case("linear_backward_weight", "nn.linear_backward_weight %a0, %a1 : ({t0}, {t1}) -> tensor<5x8xf32>", [g3, x3],
     lambda g, a: [A.mm(g.reshape(-1, 5).t(), a.reshape(-1, 8))])
case("linear_backward_bias", "nn.linear_backward_bias %a0 : ({t0}) -> tensor<5xf32>", [g3],
     lambda g: [g.reshape(-1, 5).sum(0)])
ma, mb, mg = t(2, 3, 4), t(2, 4, 5), t(2, 3, 5)
case("matmul", "nn.matmul %a0, %a1 : ({t0}, {t1}) -> tensor<2x3x5xf32>", [ma, mb], lambda a, b: [A.matmul(a, b)])
case("matmul_backward_lhs", "nn.matmul_backward_lhs %a0, %a1 : ({t0}, {t1}) -> tensor<2x3x4xf32>", [mg, mb],
     lambda g, b: [A.matmul(g, b.transpose(-1, -2))])
case("matmul_backward_rhs", "nn.matmul_backward_rhs %a0, %a1 : ({t0}, {t1}) -> tensor<2x4x5xf32>", [mg, ma],
     lambda g, a: [A.matmul(a.transpose(-1, -2), g)])
table = t(10, 4)
idx = torch.tensor([[1, 0, 3], [9, 3, 2]], dtype=torch.int64)
case("embedding", "nn.embedding %a0, %a1 {{padding_idx = 0}} : ({t0}, {t1}) -> tensor<2x3x4xf32>", [table, idx],
     lambda w, i: [A.embedding(w, i, 0)])
case("embedding_backward", "nn.embedding_backward %a0, %a1 {{padding_idx = 0}} : ({t0}, {t1}) -> tensor<10x4xf32>",
     [t(2, 3, 4), idx], lambda g, i: [A.embedding_dense_backward(g, i, 10, 0, False)])

# Convolution and pooling.
cx = t(2, 4, 9, 9)
cw = t(6, 2, 3, 3)
cb = t(6)
cg = t(2, 6, 5, 5)
conv = dict(stride=[2, 2], padding=[1, 1], dilation=[1, 1], groups=2)
attrs = "{{stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2}}"
case("conv2d", f"nn.conv2d %a0, %a1, %a2 {attrs} : ({{t0}}, {{t1}}, {{t2}}) -> tensor<2x6x5x5xf32>", [cx, cw, cb],
     lambda a, w, b: [A.convolution(a, w, b, [2, 2], [1, 1], [1, 1], False, [0, 0], 2)])


def conv_grads(g, a, w):
    return A.convolution_backward(g, a, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])


case("conv2d_backward_input", f"nn.conv2d_backward_input %a0, %a1 {attrs} : ({{t0}}, {{t1}}) -> tensor<2x4x9x9xf32>",
     [cg, cw], lambda g, w: [conv_grads(g, cx, w)[0]], exact=False)
case("conv2d_backward_weight", f"nn.conv2d_backward_weight %a0, %a1 {attrs} : ({{t0}}, {{t1}}) -> tensor<6x2x3x3xf32>",
     [cg, cx], lambda g, a: [conv_grads(g, a, cw)[1]])
case("conv2d_backward_bias", "nn.conv2d_backward_bias %a0 : ({t0}) -> tensor<6xf32>", [cg],
     lambda g: [g.sum([0, 2, 3])])
# 3-D: strided, padded, dilated and grouped over [N, C, D, H, W].
vx = t(2, 4, 5, 6, 7)
vw = t(6, 2, 3, 2, 3)
vb = t(6)
vgeometry = ([2, 1, 1], [1, 0, 2], [1, 2, 1])
vg = t(2, 6, 3, 4, 9)
vattrs = ("{{stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 0, 2>, "
          "dilation = array<i64: 1, 2, 1>, groups = 2}}")
case("conv3d", f"nn.conv3d %a0, %a1, %a2 {vattrs} : ({{t0}}, {{t1}}, {{t2}}) -> tensor<2x6x3x4x9xf32>",
     [vx, vw, vb], lambda a, w, b: [A.convolution(a, w, b, *vgeometry, False, [0, 0, 0], 2)])


def conv3d_grads(g, a, w):
    return A.convolution_backward(g, a, w, None, *vgeometry, False, [0, 0, 0], 2, [True, True, True])


case("conv3d_backward_input", f"nn.conv3d_backward_input %a0, %a1 {vattrs} : ({{t0}}, {{t1}}) -> tensor<2x4x5x6x7xf32>",
     [vg, vw], lambda g, w: [conv3d_grads(g, vx, w)[0]], exact=False)
case("conv3d_backward_weight", f"nn.conv3d_backward_weight %a0, %a1 {vattrs} : ({{t0}}, {{t1}}) -> tensor<6x2x3x2x3xf32>",
     [vg, vx], lambda g, a: [conv3d_grads(g, a, vw)[1]])
case("conv3d_backward_bias", "nn.conv3d_backward_bias %a0 : ({t0}) -> tensor<6xf32>", [vg],
     lambda g: [g.sum([0, 2, 3, 4])])
# 3-D pooling: ceil mode, padding, dilation; averages without the padding.
qx = t(2, 3, 5, 7, 6)
qargs = ([2, 3, 2], [2, 2, 1], [1, 1, 0], [1, 1, 2], True)
qout, qind = A.max_pool3d_with_indices(qx, *qargs)
qpool = ("{{kernel_size = array<i64: 2, 3, 2>, stride = array<i64: 2, 2, 1>, padding = array<i64: 1, 1, 0>, "
         "dilation = array<i64: 1, 1, 2>, ceil_mode = true}}")
case("max_pool3d", f"nn.max_pool3d %a0 {qpool} : {{t0}} -> tensor<2x3x3x4x4xf32>, tensor<2x3x3x4x4xi64>", [qx],
     lambda a: list(A.max_pool3d_with_indices(a, *qargs)))
qg = t(2, 3, 3, 4, 4)
case("max_pool3d_backward", f"nn.max_pool3d_backward %a0, %a1 {qpool} : ({{t0}}, {{t1}}) -> tensor<2x3x5x7x6xf32>",
     [qg, qind], lambda g, i: [A.max_pool3d_with_indices_backward(g, qx, *qargs, i)])
qavg = ("{{kernel_size = array<i64: 3, 2, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, "
        "ceil_mode = true, count_include_pad = false}}")
qavg_args = ([3, 2, 3], [2, 2, 2], [1, 1, 1], True, False)
case("avg_pool3d", f"nn.avg_pool3d %a0 {qavg} : {{t0}} -> tensor<2x3x3x4x4xf32>", [qx],
     lambda a: [A.avg_pool3d(a, *qavg_args)])
qag = t(2, 3, 3, 4, 4)
case("avg_pool3d_backward", f"nn.avg_pool3d_backward %a0 {qavg} : {{t0}} -> tensor<2x3x5x7x6xf32>", [qag],
     lambda g: [A.avg_pool3d_backward(g, qx, *qavg_args, None)])
# Nearest neighbours: a doubled size and ratios that are not whole.
ux = t(2, 3, 4, 5)
case("upsample_nearest2d", "nn.upsample_nearest2d %a0 : {t0} -> tensor<2x3x8x7xf32>", [ux],
     lambda a: [A.upsample_nearest2d(a, [8, 7])])
ug = t(2, 3, 8, 7)
case("upsample_nearest2d_backward", "nn.upsample_nearest2d_backward %a0 : {t0} -> tensor<2x3x4x5xf32>", [ug],
     lambda g: [A.upsample_nearest2d_backward(g, [8, 7], [2, 3, 4, 5])])
px = t(2, 3, 9, 9)
out, ind = A.max_pool2d_with_indices(px, [3, 3], [2, 2], [1, 1], [1, 1], True)
pool = "{{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}}"
case("max_pool2d", f"nn.max_pool2d %a0 {pool} : {{t0}} -> tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>", [px],
     lambda a: list(A.max_pool2d_with_indices(a, [3, 3], [2, 2], [1, 1], [1, 1], True)))
pg = t(2, 3, 5, 5)
case("max_pool2d_backward", f"nn.max_pool2d_backward %a0, %a1 {pool} : ({{t0}}, {{t1}}) -> tensor<2x3x9x9xf32>", [pg, ind],
     lambda g, i: [A.max_pool2d_with_indices_backward(g, px, [3, 3], [2, 2], [1, 1], [1, 1], True, i)])
case("avg_pool2d", f"nn.avg_pool2d %a0 {pool} : {{t0}} -> tensor<2x3x5x5xf32>", [px],
     lambda a: [A.avg_pool2d(a, [3, 3], [2, 2], [1, 1], True, True)])
case("avg_pool2d_backward", f"nn.avg_pool2d_backward %a0 {pool} : {{t0}} -> tensor<2x3x9x9xf32>", [pg],
     lambda g: [A.avg_pool2d_backward(g, px, [3, 3], [2, 2], [1, 1], True, True, None)])
case("adaptive_avg_pool2d", "nn.adaptive_avg_pool2d %a0 : {t0} -> tensor<2x3x4x4xf32>", [px],
     lambda a: [A.adaptive_avg_pool2d(a, [4, 4])])
case("adaptive_avg_pool2d_backward", "nn.adaptive_avg_pool2d_backward %a0 : {t0} -> tensor<2x3x9x9xf32>", [t(2, 3, 4, 4)],
     lambda g: [A._adaptive_avg_pool2d_backward(g, px)])
ux = t(1, 3, 4, 4)
case("upsample_bilinear2d", "nn.upsample_bilinear2d %a0 : {t0} -> tensor<1x3x7x9xf32>", [ux],
     lambda a: [A.upsample_bilinear2d(a, [7, 9], False)])
case("upsample_bilinear2d_backward", "nn.upsample_bilinear2d_backward %a0 {{align_corners = true}} : {t0} -> tensor<1x3x4x4xf32>",
     [t(1, 3, 7, 9)], lambda g: [A.upsample_bilinear2d_backward(g, [7, 9], [1, 3, 4, 4], True)])

# Normalization.
bx, bw, bb = t(4, 3, 5, 5), t(3), t(3)
rm, rv = t(3), torch.rand(3) + 0.5
case("batch_norm", "nn.batch_norm %a0, %a1, %a2 {{eps = 1.0e-3 : f64}} : {t0}, {t1}",
     [bx, bw, bb],
     lambda a, w, b: list(A.native_batch_norm(a, w, b, None, None, True, 0.1, 1e-3)))
case("batch_norm_update_stats", "nn.batch_norm_update_stats %a0, %a1, %a2 {{momentum = 0.2 : f64}} : {t0}, {t1}",
     [bx, rm, rv],
     lambda a, m, v: (lambda m2, v2: (A.batch_norm_update_stats(a, m2, v2, 0.2), [m2, v2])[1])(m.clone(), v.clone()))
# The running statistics of the update equal those of ATen's fused
# training-mode batch norm (what PyTorch's nn.BatchNorm2d runs).
case("batch_norm_update_stats_fused", "nn.batch_norm_update_stats %a0, %a1, %a2 {{momentum = 0.2 : f64}} : {t0}, {t1}",
     [bx, rm, rv],
     lambda a, m, v: (lambda m2, v2: (A.native_batch_norm(a, None, None, m2, v2, True, 0.2, 1e-5), [m2, v2])[1])(m.clone(), v.clone()))
_, sm, si = A.native_batch_norm(bx, bw, bb, rm.clone(), rv.clone(), True, 0.1, 1e-5)
case("batch_norm_backward", "nn.batch_norm_backward %a0, %a1, %a2, %a3, %a4 : {t1}, {t2}",
     [t(4, 3, 5, 5), bx, bw, sm, si],
     lambda g, a, w, m, s: list(A.native_batch_norm_backward(g, a, w, None, None, m, s, True, 1e-5, [True, True, True])))
lx, lw, lb = t(2, 5, 8), t(8), t(8)
case("layer_norm", "nn.layer_norm %a0, %a1, %a2 : {t0}, {t1} -> tensor<2x5x1xf32>", [lx, lw, lb],
     lambda a, w, b: list(A.native_layer_norm(a, [8], w, b, 1e-5)))
_, lm, lr = A.native_layer_norm(lx, [8], lw, lb, 1e-5)
case("layer_norm_backward", "nn.layer_norm_backward %a0, %a1, %a2, %a3, %a4 : {t1}, {t2}, {t4}",
     [t(2, 5, 8), lx, lm, lr, lw],
     lambda g, a, m, r, w: list(A.native_layer_norm_backward(g, a, [8], m, r, w, w, [True, True, True])))

# Shapes and reductions.
sx = t(2, 3, 4, 5)
case("reshape", "nn.reshape %a0 : {t0} -> tensor<6x20xf32>", [sx], lambda a: [a.reshape(6, 20)])
case("flatten", "nn.flatten %a0 : {t0} -> tensor<2x60xf32>", [sx], lambda a: [a.flatten(1)])
case("transpose", "nn.transpose %a0 {{dim0 = 1, dim1 = -1}} : {t0} -> tensor<2x5x4x3xf32>", [sx], lambda a: [a.transpose(1, -1)])
case("permute", "nn.permute %a0 {{dims = array<i64: 3, 0, 1, 2>}} : {t0} -> tensor<5x2x3x4xf32>", [sx], lambda a: [a.permute(3, 0, 1, 2)])
case("concat", "nn.concat %a0, %a1 {{dim = 2}} : ({t0}, {t1}) -> tensor<2x3x5x5xf32>", [sx, t(2, 3, 1, 5)],
     lambda a, b: [A.cat([a, b], 2)])
case("slice", "nn.slice %a0 {{dim = 1, start = 1, end = 9, step = 3}} : {t0} -> tensor<2x3x4xf32>", [t(2, 10, 4)],
     lambda a: [a[:, 1:9:3]])
case("slice_backward", "nn.slice_backward %a0 {{dim = 1, start = 1, end = 9, step = 3}} : {t0} -> tensor<2x10x4xf32>",
     [t(2, 3, 4)], lambda g: [A.slice_backward(g, [2, 10, 4], 1, 1, 9, 3)])
case("sum", "nn.sum %a0 {{dims = array<i64: 1, 3>}} : {t0} -> tensor<2x4xf32>", [sx], lambda a: [A.sum(a, [1, 3])])
case("mean", "nn.mean %a0 {{dims = array<i64: 0, -1>, keepdim = true}} : {t0} -> tensor<1x3x4x1xf32>", [sx],
     lambda a: [A.mean(a, [0, -1], True)])

# Softmax and losses.
logits = t(8, 10)
labels = torch.randint(0, 10, (8,))
labels[3] = -100
sy = A._softmax(logits, 1, False)
ly = A._log_softmax(logits, 1, False)
case("softmax", "nn.softmax %a0 {{dim = 1}} : {t0}", [logits], lambda a: [A._softmax(a, 1, False)])
case("softmax_backward", "nn.softmax_backward %a0, %a1 {{dim = 1}} : {t0}", [t(8, 10), sy],
     lambda g, y: [A._softmax_backward_data(g, y, 1, torch.float32)])
case("log_softmax", "nn.log_softmax %a0 {{dim = -1}} : {t0}", [logits], lambda a: [A._log_softmax(a, -1, False)])
case("log_softmax_backward", "nn.log_softmax_backward %a0, %a1 {{dim = -1}} : {t0}", [t(8, 10), ly],
     lambda g, y: [A._log_softmax_backward_data(g, y, -1, torch.float32)])
case("cross_entropy", "nn.cross_entropy %a0, %a1 : ({t0}, {t1}) -> tensor<f32>", [logits, labels],
     lambda a, l: [F.cross_entropy(a, l)])


def ce_grad(g, a, l):
    a = a.clone().requires_grad_()
    (F.cross_entropy(a, l) * g).backward()
    return [a.grad]


case("cross_entropy_backward", "nn.cross_entropy_backward %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> tensor<8x10xf32>",
     [torch.tensor(1.5), logits, labels], ce_grad, exact=False)

# Optimizer updates, against torch.optim.
p, gp, buf = t(4, 6), t(4, 6), t(4, 6)


def sgd_step(p, g, buf, **kw):
    param = torch.nn.Parameter(p.clone())
    opt = torch.optim.SGD([param], **kw)
    opt.state[param]["momentum_buffer"] = buf.clone()
    param.grad = g.clone()
    opt.step()
    return [param.detach(), opt.state[param]["momentum_buffer"]]


case("sgd", "nn.sgd %a0, %a1 {{lr = 0.1 : f64}} : ({t0}, {t1}) -> {t0}", [p, gp],
     lambda p, g: [A.add(p, g, alpha=-0.1)])
case("sgd_momentum", "nn.sgd %a0, %a1, %a2 {{lr = 0.1 : f64, momentum = 0.9 : f64, weight_decay = 0.01 : f64, nesterov = true}} : ({t0}, {t1}, {t2}) -> ({t0}, {t0})",
     [p, gp, buf], lambda p, g, b: sgd_step(p, g, b, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True), exact=False)
m0, v0 = t(4, 6), torch.rand(4, 6)


def adam_step(p, g, m, v, step):
    param = torch.nn.Parameter(p.clone())
    opt = torch.optim.Adam([param], lr=0.01, weight_decay=0.1)
    opt.state[param] = {"step": torch.tensor(float(step) - 1), "exp_avg": m.clone(), "exp_avg_sq": v.clone()}
    param.grad = g.clone()
    opt.step()
    state = opt.state[param]
    return [param.detach(), state["exp_avg"], state["exp_avg_sq"]]


case("adam", "nn.adam %a0, %a1, %a2, %a3, %a4 {{lr = 0.01 : f64, weight_decay = 0.1 : f64}} : {t0}, {t4}",
     [p, gp, m0, v0, torch.tensor(3.0)], adam_step, exact=False)


def run_case(remat_run, work, name, op, inputs, expected, exact):
    case_dir = os.path.join(work, name)
    os.makedirs(os.path.join(case_dir, "inputs"), exist_ok=True)
    types = {f"t{i}": tensor_type(x) for i, x in enumerate(inputs)}
    op_text = op.format(**types)
    refs = [r.detach() for r in expected(*[x.clone() for x in inputs])]
    args = ", ".join(f'%a{i}: {tensor_type(x)} {{remat.name = "a{i}", remat.role = #remat.role<input>}}'
                     for i, x in enumerate(inputs))
    results = ", ".join(f"%r#{i}" if len(refs) > 1 else "%r" for i in range(len(refs)))
    result_types = ", ".join(f'{tensor_type(r)} {{remat.name = "r{i}"}}' for i, r in enumerate(refs))
    lhs = f"%r:{len(refs)}" if len(refs) > 1 else "%r"
    plain_types = ", ".join(tensor_type(r) for r in refs)
    module = (f"func.func @{name}({args}) -> ({result_types}) {{\n"
              f"  {lhs} = {op_text}\n  return {results} : {plain_types}\n}}\n")
    path = os.path.join(case_dir, "op.mlir")
    with open(path, "w") as handle:
        handle.write(module)
    for i, x in enumerate(inputs):
        np.save(os.path.join(case_dir, "inputs", f"a{i}.npy"), x.numpy())
    # Unplanned (fresh tensors), then planned: results written into the arena.
    planned = os.path.join(case_dir, "planned.mlir")
    remat_opt = os.path.join(os.path.dirname(remat_run), "remat-opt")
    subprocess.run([remat_opt, path, "--remat-plan-memory", "-o", planned], check=True)
    for variant, source in (("unplanned", path), ("planned", planned)):
        out_dir = os.path.join(case_dir, variant)
        run = subprocess.run([remat_run, source, "--inputs", os.path.join(case_dir, "inputs"),
                              "--output-dir", out_dir], capture_output=True, text=True)
        if run.returncode != 0:
            return f"{name} ({variant}): remat-run failed:\n{run.stderr}\n{module}"
        for i, ref in enumerate(refs):
            got = torch.from_numpy(np.load(os.path.join(out_dir, f"r{i}.npy")))
            if got.shape != ref.shape or got.dtype != ref.dtype:
                return (f"{name} ({variant}): result {i} is {got.dtype}{list(got.shape)}, "
                        f"ATen gives {ref.dtype}{list(ref.shape)}")
            same = torch.equal(got, ref) if exact else torch.allclose(got, ref, rtol=1e-6, atol=1e-6)
            if not same:
                diff = (got.double() - ref.double()).abs().max().item()
                return f"{name} ({variant}): result {i} differs from ATen by up to {diff}"
    return None


def main():
    remat_run, work = sys.argv[1], sys.argv[2]
    failures = [f for f in (run_case(remat_run, work, *c) for c in CASES) if f]
    for failure in failures:
        print("FAIL " + failure)
    ops = {c[1].split()[0] for c in CASES}
    print(f"{len(CASES) - len(failures)} of {len(CASES)} cases match ATen ({len(ops)} nn ops)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
