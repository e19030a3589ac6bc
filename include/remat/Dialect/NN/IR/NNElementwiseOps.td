//===- NNElementwiseOps.td - element-wise nn ops -------------*- tablegen -*-===//
//
// Activations and their backward ops, arithmetic with broadcasting and with
// scalars, dropout and Bernoulli samples with an explicit seed, constant
// fills and broadcasts. FLOP counts per element follow the usual counting
// of transcendental functions as a handful of operations; they only need to
// be consistent, since the cost model turns them into time with the bytes
// moved, which dominate for these ops.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNELEMENTWISEOPS
#define REMAT_DIALECT_NN_IR_NNELEMENTWISEOPS

include "remat/Dialect/NN/IR/NNBase.td"

//===----------------------------------------------------------------------===//
// Activations
//
// The CUDA expressions follow ATen's CPU kernels, their vectorized forms
// where the scalar form treats NaN differently: hardswish is x * c / 6 and
// hardsigmoid c / 6 with c = clamp(x + 3, 0, 6) (ATen's clamp: NaN stays
// NaN); silu is x / (1 + exp(-x)).
//===----------------------------------------------------------------------===//

def NN_ReluOp : NN_UnaryOp<"relu"> {
  let summary = "max(x, 0), element-wise (aten::relu)";
  let flopsPerElement = 1;
  let atenName = "relu";
  let atenImport = 1;
  let cudaExpression = "({0} > 0.0f || {0} != {0} ? {0} : 0.0f)";
}

def NN_ReluBackwardOp : NN_UnaryBackwardOp<"relu_backward", "result"> {
  let summary = "grad_output where the relu's result is positive, else 0";
  let flopsPerElement = 1;
  let cudaExpression = "({1} > 0.0f ? {0} : 0.0f)";
}

def NN_GeluOp : NN_Op<"gelu", [SameOperandsAndResultType]> {
  let summary = "x * Phi(x), exact or tanh-approximated (aten::gelu)";
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let flopsPerElement = 12;
}

def NN_GeluBackwardOp : NN_Op<"gelu_backward", [SameOperandsAndResultType]> {
  let summary = "gradient of gelu from its input (aten::gelu_backward)";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` type($grad_input)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 16;
}

def NN_SigmoidOp : NN_UnaryOp<"sigmoid"> {
  let summary = "1 / (1 + exp(-x)), element-wise (aten::sigmoid)";
  let flopsPerElement = 4;
  let atenName = "sigmoid";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "(1.0f / (1.0f + expf(-{0})))";
}

def NN_SigmoidBackwardOp : NN_UnaryBackwardOp<"sigmoid_backward", "result"> {
  let summary = "grad_output * y * (1 - y) from the sigmoid's result y";
  let flopsPerElement = 3;
  let atenName = "sigmoid_backward";
  let atenOutKernel = 1;
  let cudaExpression = "({0} * (1.0f - {1}) * {1})";
}

def NN_TanhOp : NN_UnaryOp<"tanh"> {
  let summary = "hyperbolic tangent, element-wise (aten::tanh)";
  let flopsPerElement = 6;
  let atenName = "tanh";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "tanhf({0})";
}

def NN_TanhBackwardOp : NN_UnaryBackwardOp<"tanh_backward", "result"> {
  let summary = "grad_output * (1 - y^2) from the tanh's result y";
  let flopsPerElement = 3;
  let atenName = "tanh_backward";
  let atenOutKernel = 1;
  let cudaExpression = "({0} * (1.0f - {1} * {1}))";
}

def NN_HardtanhOp : NN_Op<"hardtanh", [SameOperandsAndResultType]> {
  let summary = "clamps x to [min_val, max_val] (aten::hardtanh, relu6)";
  let description = [{
    ATen's clamp: NaN stays NaN. The bounds are converted to the element
    type as ATen converts its scalars; `min_val` may not exceed `max_val`.
  }];
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "-1.0">:$min_val,
                       DefaultValuedAttr<F64Attr, "1.0">:$max_val);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let flopsPerElement = 2;
}

def NN_HardtanhBackwardOp : NN_Op<"hardtanh_backward",
                                  [SameOperandsAndResultType]> {
  let summary = "gradient of hardtanh from its result "
                # "(aten::hardtanh_backward)";
  let description = [{
    `saved` is the hardtanh's result (inside the bounds exactly where its
    input is), as ATen's derivative of the in-place hardtanh_ reads it.
  }];
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$saved,
                       DefaultValuedAttr<F64Attr, "-1.0">:$min_val,
                       DefaultValuedAttr<F64Attr, "1.0">:$max_val);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $saved attr-dict `:` type($grad_input)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 2;
}

def NN_HardswishOp : NN_UnaryOp<"hardswish"> {
  let summary = "x * min(max(x + 3, 0), 6) / 6, element-wise (aten::hardswish)";
  let flopsPerElement = 5;
  let atenName = "hardswish";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression =
      "({0} * (({0} + 3.0f) < 0.0f ? 0.0f : (({0} + 3.0f) > 6.0f ? "
      # "6.0f : ({0} + 3.0f))) / 6.0f)";
}

def NN_HardswishBackwardOp : NN_UnaryBackwardOp<"hardswish_backward", "input"> {
  let summary = "gradient of hardswish from its input "
                # "(aten::hardswish_backward)";
  let description = [{
    `saved` is the hardswish's input x: 0 where x < -3,
    grad_output * (x / 3 + 0.5) where x <= 3, grad_output above.
  }];
  let flopsPerElement = 4;
  let atenName = "hardswish_backward";
  let atenOutKernel = 1;
  let cudaExpression =
      "({1} < -3.0f ? 0.0f : ({1} >= 3.0f ? {0} : {0} * ({1} / 3.0f + 0.5f)))";
}

def NN_HardsigmoidOp : NN_UnaryOp<"hardsigmoid"> {
  let summary = "min(max(x + 3, 0), 6) / 6, element-wise (aten::hardsigmoid)";
  let flopsPerElement = 4;
  let atenName = "hardsigmoid";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression =
      "((({0} + 3.0f) < 0.0f ? 0.0f : (({0} + 3.0f) > 6.0f ? 6.0f : "
      # "({0} + 3.0f))) / 6.0f)";
}

def NN_HardsigmoidBackwardOp
    : NN_UnaryBackwardOp<"hardsigmoid_backward", "input"> {
  let summary = "gradient of hardsigmoid from its input "
                # "(aten::hardsigmoid_backward)";
  let description = [{
    `saved` is the hardsigmoid's input x: grad_output * (1 / 6) where
    -3 < x < 3, else 0.
  }];
  let flopsPerElement = 3;
  let atenName = "hardsigmoid_backward";
  let atenOutKernel = 1;
  let cudaExpression =
      "(({1} > -3.0f && {1} < 3.0f) ? {0} * (1.0f / 6.0f) : 0.0f)";
}

def NN_SiluOp : NN_UnaryOp<"silu"> {
  let summary = "x * sigmoid(x), element-wise (aten::silu)";
  let flopsPerElement = 5;
  let atenName = "silu";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "({0} / (1.0f + expf(-{0})))";
}

def NN_SiluBackwardOp : NN_UnaryBackwardOp<"silu_backward", "input"> {
  let summary = "gradient of silu from its input (aten::silu_backward)";
  let description = [{
    `saved` is the silu's input x: grad_output * s * (1 + x * (1 - s)) with
    s = 1 / (1 + exp(-x)).
  }];
  let flopsPerElement = 9;
  let atenName = "silu_backward";
  let atenOutKernel = 1;
  let cudaExpression =
      "([&] {{ float s_ = 1.0f / (1.0f + expf(-{1})); return {0} * "
      # "s_ * (1.0f + {1} * (1.0f - s_)); }())";
}

def NN_ExpOp : NN_UnaryOp<"exp"> {
  let summary = "exponential e^x, element-wise (aten::exp)";
  let description = [{
    Its gradient is grad_output * e^x from its result (nn.mul): no backward
    op of its own.
  }];
  let flopsPerElement = 4;
  let atenName = "exp";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "expf({0})";
}

def NN_SinOp : NN_UnaryOp<"sin"> {
  let summary = "sine, element-wise (aten::sin)";
  let description = [{
    Rotary embeddings' tables. Its gradient is grad_output * cos(x)
    (nn.cos and nn.mul): no backward op of its own.
  }];
  let flopsPerElement = 4;
  let atenName = "sin";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "sinf({0})";
}

def NN_CosOp : NN_UnaryOp<"cos"> {
  let summary = "cosine, element-wise (aten::cos)";
  let description = [{
    Rotary embeddings' tables. Its gradient is grad_output * -sin(x)
    (nn.sin, nn.mul_scalar and nn.mul): no backward op of its own.
  }];
  let flopsPerElement = 4;
  let atenName = "cos";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "cosf({0})";
}

def NN_RsqrtOp : NN_UnaryOp<"rsqrt"> {
  let summary = "reciprocal square root 1 / sqrt(x), element-wise (aten::rsqrt)";
  let description = [{
    Its gradient is grad_output * -0.5 * y^3 from its result y (nn.pow_scalar,
    nn.mul_scalar and nn.mul), as ATen's: no backward op of its own.
  }];
  let flopsPerElement = 2;
  let atenName = "rsqrt";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "(1.0f / sqrtf({0}))";
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

def NN_AddOp : NN_BroadcastBinaryOp<"add"> {
  let summary = "lhs + rhs with NumPy broadcasting (aten::add)";
  let flopsPerElement = 1;
  let atenName = "add";
  let atenOutKernel = 1;
  let cudaExpression = "({0} + {1})";
}
def NN_SubOp : NN_BroadcastBinaryOp<"sub"> {
  let summary = "lhs - rhs with NumPy broadcasting (aten::sub)";
  let flopsPerElement = 1;
  let atenName = "sub";
  let atenOutKernel = 1;
  let cudaExpression = "({0} - {1})";
}
def NN_MulOp : NN_BroadcastBinaryOp<"mul"> {
  let summary = "lhs * rhs with NumPy broadcasting (aten::mul)";
  let flopsPerElement = 1;
  let atenName = "mul";
  let atenOutKernel = 1;
  let cudaExpression = "({0} * {1})";
}
def NN_DivOp : NN_BroadcastBinaryOp<"div"> {
  let summary = "lhs / rhs with NumPy broadcasting (aten::div)";
  let flopsPerElement = 1;
  let atenName = "div";
  let atenOutKernel = 1;
  let cudaExpression = "({0} / {1})";
}

def NN_AddScalarOp : NN_ScalarOp<"add_scalar"> {
  let summary = "input + scalar, element-wise (aten::add.Scalar)";
  let flopsPerElement = 1;
}
def NN_SubScalarOp : NN_ScalarOp<"sub_scalar"> {
  let summary = "input - scalar, element-wise (aten::sub.Scalar)";
  let flopsPerElement = 1;
}
def NN_MulScalarOp : NN_ScalarOp<"mul_scalar"> {
  let summary = "input * scalar, element-wise (aten::mul.Scalar)";
  let flopsPerElement = 1;
}
def NN_PowScalarOp : NN_ScalarOp<"pow_scalar"> {
  let summary = "input ^ scalar, element-wise (aten::pow.Tensor_Scalar)";
  let description = [{
    Its gradient is grad_output * scalar * input^(scalar - 1), as ATen's
    (zero for the exponent 0): built from nn.pow_scalar, nn.mul_scalar and
    nn.mul.
  }];
  let flopsPerElement = 4;
}
def NN_DivScalarOp : NN_ScalarOp<"div_scalar"> {
  let summary = "input / scalar, element-wise (aten::div.Scalar)";
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def NN_DropoutOp : NN_Op<"dropout"> {
  let summary = "zeroes elements with probability p, scales the rest by 1/(1-p)";
  let description = [{
    The mask is a pure function of the `seed` operand and the element index
    (the project's counter-based generator), so recomputing the op, or its
    backward, reproduces the same mask without storing it.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_Seed:$seed, F64Attr:$p);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $seed `,` $p attr-dict `:` type($input) `,` type($seed) `->` type($result)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 2;
}

def NN_DropoutBackwardOp : NN_Op<"dropout_backward"> {
  let summary = "grad_output through the mask dropout drew from the same seed";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_Seed:$seed, F64Attr:$p);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $seed `,` $p attr-dict `:` type($grad_output) `,` type($seed) `->` type($grad_input)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 2;
}

def NN_BernoulliOp : NN_Op<"bernoulli"> {
  let summary = "1 with probability p, else 0, per element, drawn from a seed";
  let description = [{
    Element i (in row-major order) is 1 when `uniform(mix(seed), i) < p`
    and 0 otherwise: the same counter-based generator as dropout, so
    recomputing the op reproduces its result. Stochastic depth's noise
    (`torch.empty(shape).bernoulli_(p)`, aten::bernoulli with a
    probability). It has no tensor operand: no gradient flows through it.
  }];
  let arguments = (ins NN_Seed:$seed, F64Attr:$p);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $seed `,` $p attr-dict `:` type($seed) `->` type($result)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

//===----------------------------------------------------------------------===//
// Fills and broadcasts
//===----------------------------------------------------------------------===//

def NN_FullOp : NN_Op<"full"> {
  let summary = "a tensor filled with one value (aten::full)";
  let arguments = (ins F64Attr:$value);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let flopsPerElement = 0;
}

def NN_ConvertOp : NN_Op<"convert", [SameOperandsAndResultShape]> {
  let summary = "the input in the result's float type (aten::_to_copy, dtype)";
  let description = [{
    Rounds to the nearest value of the result's element type, ties to even,
    as ATen's conversions do (f32 to bf16 keeps 8 bits of mantissa). The
    importer makes one for every `x.to(dtype)` and wherever a program's
    types say that an op computes in another float type than its operand
    (the casts of a `torch.autocast` region, type promotion). Its gradient
    is the result's gradient converted back.
  }];
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let flopsPerElement = 1;
}

def NN_BroadcastToOp : NN_Op<"broadcast_to"> {
  let summary = "repeats the input along broadcast dimensions (aten::expand)";
  let description = [{
    The input's shape must broadcast to the result's shape by the NumPy rules
    of the dialect; the result is a new tensor (no aliasing).
  }];
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let flopsPerElement = 0;
  let cudaExpression = "{0}";
}

#endif // REMAT_DIALECT_NN_IR_NNELEMENTWISEOPS
