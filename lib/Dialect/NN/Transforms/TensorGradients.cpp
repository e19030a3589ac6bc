//===- TensorGradients.cpp - gradients of element-wise and shape ops ------===//
//
// Activations, arithmetic (broadcast operands get their gradient summed back
// to their shape), scalar arithmetic, broadcasts, reshapes, transposes,
// permutations, concatenation, slicing and reductions.
//
//===----------------------------------------------------------------------===//

#include "GradientRuleUtils.h"

using namespace mlir;
using namespace mlir::nn;
using remat::GradientBuilder;

using Gradients = MutableArrayRef<Value>;

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

static LogicalResult reluGradient(ReluOp op, GradientBuilder &b,
                                  ArrayRef<Value> gy, ArrayRef<bool> needed,
                                  Gradients grads) {
  grads[0] = b.create<ReluBackwardOp>("grad", op.getType(), gy[0],
                                      op.getResult());
  return success();
}

static LogicalResult geluGradient(GeluOp op, GradientBuilder &b,
                                  ArrayRef<Value> gy, ArrayRef<bool> needed,
                                  Gradients grads) {
  grads[0] = b.create<GeluBackwardOp>("grad", op.getType(), gy[0],
                                      op.getInput(), op.getApproximateAttr());
  return success();
}

static LogicalResult sigmoidGradient(SigmoidOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  grads[0] = b.create<SigmoidBackwardOp>("grad", op.getType(), gy[0],
                                         op.getResult());
  return success();
}

static LogicalResult tanhGradient(TanhOp op, GradientBuilder &b,
                                  ArrayRef<Value> gy, ArrayRef<bool> needed,
                                  Gradients grads) {
  grads[0] = b.create<TanhBackwardOp>("grad", op.getType(), gy[0],
                                      op.getResult());
  return success();
}

/// grad_output * e^x, from the result.
static LogicalResult expGradient(ExpOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  grads[0] = b.create<MulOp>("grad", op.getType(), gy[0], op.getResult());
  return success();
}

/// From the result, as ATen's derivative of hardtanh_ (the result is inside
/// the bounds exactly where the input is).
static LogicalResult hardtanhGradient(HardtanhOp op, GradientBuilder &b,
                                      ArrayRef<Value> gy, ArrayRef<bool> needed,
                                      Gradients grads) {
  grads[0] = b.create<HardtanhBackwardOp>(
      "grad", op.getType(), gy[0], op.getResult(), op.getMinValAttr(),
      op.getMaxValAttr());
  return success();
}

/// hardswish, hardsigmoid and silu: their backward ops from the input, as
/// ATen's derivatives.
template <typename BackwardOpT, typename OpT>
static LogicalResult fromInputGradient(OpT op, GradientBuilder &b,
                                       ArrayRef<Value> gy, ArrayRef<bool> needed,
                                       Gradients grads) {
  grads[0] = b.create<BackwardOpT>("grad", op.getType(), gy[0], op.getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

static Value scale(GradientBuilder &b, llvm::StringRef suffix, Value value,
                   double factor) {
  return b.create<MulScalarOp>(suffix, value.getType(), value,
                               b.getBuilder().getF64FloatAttr(factor));
}

static LogicalResult addGradient(AddOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  if (needed[0])
    grads[0] = reduceToType(b, gy[0], op.getLhs().getType());
  if (needed[1])
    grads[1] = reduceToType(b, gy[0], op.getRhs().getType());
  return success();
}

static LogicalResult subGradient(SubOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  if (needed[0])
    grads[0] = reduceToType(b, gy[0], op.getLhs().getType());
  if (needed[1])
    grads[1] = reduceToType(b, scale(b, "grad_rhs", gy[0], -1.0),
                            op.getRhs().getType());
  return success();
}

static LogicalResult mulGradient(MulOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  Type type = op.getType();
  if (needed[0])
    grads[0] = reduceToType(
        b, b.create<MulOp>("grad_lhs", type, gy[0], op.getRhs()),
        op.getLhs().getType());
  if (needed[1])
    grads[1] = reduceToType(
        b, b.create<MulOp>("grad_rhs", type, gy[0], op.getLhs()),
        op.getRhs().getType());
  return success();
}

/// d(l / r) = dy / r for l, -dy * (l / r) / r for r.
static LogicalResult divGradient(DivOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  Type type = op.getType();
  if (needed[0])
    grads[0] = reduceToType(
        b, b.create<DivOp>("grad_lhs", type, gy[0], op.getRhs()),
        op.getLhs().getType());
  if (needed[1]) {
    Value scaled = b.create<MulOp>("grad_rhs.product", type, gy[0],
                                   op.getResult());
    Value divided = b.create<DivOp>("grad_rhs.quotient", type, scaled,
                                    op.getRhs());
    grads[1] = reduceToType(b, scale(b, "grad_rhs", divided, -1.0),
                            op.getRhs().getType());
  }
  return success();
}

template <typename OpT>
static LogicalResult shiftGradient(OpT op, GradientBuilder &b,
                                   ArrayRef<Value> gy, ArrayRef<bool> needed,
                                   Gradients grads) {
  grads[0] = gy[0];
  return success();
}

static LogicalResult mulScalarGradient(MulScalarOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  grads[0] = scale(b, "grad", gy[0], op.getScalar().convertToDouble());
  return success();
}

static LogicalResult divScalarGradient(DivScalarOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  grads[0] = b.create<DivScalarOp>("grad", op.getType(), gy[0],
                                   op.getScalarAttr());
  return success();
}

/// grad_output * c * x^(c - 1), as ATen's (zeros for c = 0).
static LogicalResult powScalarGradient(PowScalarOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  double exponent = op.getScalar().convertToDouble();
  if (exponent == 0.0) {
    grads[0] = scale(b, "grad", gy[0], 0.0);
    return success();
  }
  Value power = op.getInput();
  if (exponent != 2.0)
    power = b.create<PowScalarOp>("grad.power", op.getType(), op.getInput(),
                                  b.getBuilder().getF64FloatAttr(exponent - 1.0));
  Value derivative = scale(b, "grad.derivative", power, exponent);
  grads[0] = b.create<MulOp>("grad", op.getType(), gy[0], derivative);
  return success();
}

/// grad_output * cos(x).
static LogicalResult sinGradient(SinOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  Value derivative =
      b.create<CosOp>("grad.derivative", op.getType(), op.getInput());
  grads[0] = b.create<MulOp>("grad", op.getType(), gy[0], derivative);
  return success();
}

/// grad_output * -sin(x).
static LogicalResult cosGradient(CosOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  Value sine = b.create<SinOp>("grad.sin", op.getType(), op.getInput());
  Value derivative = scale(b, "grad.derivative", sine, -1.0);
  grads[0] = b.create<MulOp>("grad", op.getType(), gy[0], derivative);
  return success();
}

/// grad_output * -0.5 * y^3 from the result y, as ATen's.
static LogicalResult rsqrtGradient(RsqrtOp op, GradientBuilder &b,
                                   ArrayRef<Value> gy, ArrayRef<bool> needed,
                                   Gradients grads) {
  Value cube = b.create<PowScalarOp>("grad.power", op.getType(),
                                     op.getResult(), b.getBuilder().getF64FloatAttr(3.0));
  Value derivative = scale(b, "grad.derivative", cube, -0.5);
  grads[0] = b.create<MulOp>("grad", op.getType(), gy[0], derivative);
  return success();
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

static LogicalResult convertGradient(ConvertOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  grads[0] = b.create<ConvertOp>("grad", op.getInput().getType(), gy[0]);
  return success();
}

static LogicalResult broadcastGradient(BroadcastToOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  grads[0] = reduceToType(b, gy[0], op.getInput().getType());
  return success();
}

template <typename OpT>
static LogicalResult reshapeGradient(OpT op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  grads[0] =
      b.template create<ReshapeOp>("grad", op.getInput().getType(), gy[0]);
  return success();
}

static LogicalResult transposeGradient(TransposeOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  grads[0] = b.create<TransposeOp>("grad", op.getInput().getType(), gy[0],
                                   op.getDim0Attr(), op.getDim1Attr());
  return success();
}

static LogicalResult permuteGradient(PermuteOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  ArrayRef<int64_t> dims = op.getDims();
  SmallVector<int64_t> inverse(dims.size());
  for (auto [i, dim] : llvm::enumerate(dims))
    inverse[dim] = static_cast<int64_t>(i);
  grads[0] = b.create<PermuteOp>("grad", op.getInput().getType(), gy[0],
                                 inverse);
  return success();
}

static LogicalResult concatGradient(ConcatOp op, GradientBuilder &b,
                                    ArrayRef<Value> gy, ArrayRef<bool> needed,
                                    Gradients grads) {
  int64_t dim = static_cast<int64_t>(op.getDim());
  if (dim < 0)
    dim += cast<RankedTensorType>(op.getType()).getRank();
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t size = type.getDimSize(dim);
    if (needed[i])
      grads[i] = b.create<SliceOp>("grad", type, gy[0], dim, offset,
                                   offset + size, int64_t(1));
    offset += size;
  }
  return success();
}

static LogicalResult sliceGradient(SliceOp op, GradientBuilder &b,
                                   ArrayRef<Value> gy, ArrayRef<bool> needed,
                                   Gradients grads) {
  grads[0] = b.create<SliceBackwardOp>(
      "grad", op.getInput().getType(), gy[0], op.getDimAttr(),
      op.getStartAttr(), op.getEndAttr(), op.getStepAttr());
  return success();
}

/// The gradient of a sum: the result's gradient repeated over the reduced
/// dimensions (reshaped to keep them first when the sum dropped them).
template <typename OpT>
static Value spreadOverReduced(OpT op, GradientBuilder &b, Value gradient) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  SmallVector<int64_t> keptShape(inputType.getShape());
  for (int64_t dim : op.getDims())
    keptShape[dim] = 1;
  auto keptType = RankedTensorType::get(keptShape, inputType.getElementType());
  if (gradient.getType() != keptType)
    gradient = b.template create<ReshapeOp>("grad.keepdim", keptType, gradient);
  return b.template create<BroadcastToOp>("grad", inputType, gradient);
}

static LogicalResult sumGradient(SumOp op, GradientBuilder &b,
                                 ArrayRef<Value> gy, ArrayRef<bool> needed,
                                 Gradients grads) {
  grads[0] = spreadOverReduced(op, b, gy[0]);
  return success();
}

static LogicalResult meanGradient(MeanOp op, GradientBuilder &b,
                                  ArrayRef<Value> gy, ArrayRef<bool> needed,
                                  Gradients grads) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  int64_t count = 1;
  for (int64_t dim : op.getDims())
    count *= inputType.getDimSize(dim);
  Value spread = spreadOverReduced(op, b, gy[0]);
  grads[0] = b.create<DivScalarOp>(
      "grad.mean", inputType, spread,
      b.getBuilder().getF64FloatAttr(static_cast<double>(count)));
  return success();
}

void mlir::nn::registerTensorGradientRules(MLIRContext *context) {
  ReluOp::attachInterface<GradientModel<ReluOp, reluGradient>>(*context);
  GeluOp::attachInterface<GradientModel<GeluOp, geluGradient>>(*context);
  SigmoidOp::attachInterface<GradientModel<SigmoidOp, sigmoidGradient>>(
      *context);
  TanhOp::attachInterface<GradientModel<TanhOp, tanhGradient>>(*context);
  ExpOp::attachInterface<GradientModel<ExpOp, expGradient>>(*context);
  RsqrtOp::attachInterface<GradientModel<RsqrtOp, rsqrtGradient>>(*context);
  SinOp::attachInterface<GradientModel<SinOp, sinGradient>>(*context);
  CosOp::attachInterface<GradientModel<CosOp, cosGradient>>(*context);
  PowScalarOp::attachInterface<GradientModel<PowScalarOp, powScalarGradient>>(
      *context);
  HardtanhOp::attachInterface<GradientModel<HardtanhOp, hardtanhGradient>>(
      *context);
  HardswishOp::attachInterface<GradientModel<
      HardswishOp, fromInputGradient<HardswishBackwardOp, HardswishOp>>>(
      *context);
  HardsigmoidOp::attachInterface<GradientModel<
      HardsigmoidOp, fromInputGradient<HardsigmoidBackwardOp, HardsigmoidOp>>>(
      *context);
  SiluOp::attachInterface<
      GradientModel<SiluOp, fromInputGradient<SiluBackwardOp, SiluOp>>>(
      *context);
  AddOp::attachInterface<GradientModel<AddOp, addGradient>>(*context);
  SubOp::attachInterface<GradientModel<SubOp, subGradient>>(*context);
  MulOp::attachInterface<GradientModel<MulOp, mulGradient>>(*context);
  DivOp::attachInterface<GradientModel<DivOp, divGradient>>(*context);
  AddScalarOp::attachInterface<
      GradientModel<AddScalarOp, shiftGradient<AddScalarOp>>>(*context);
  SubScalarOp::attachInterface<
      GradientModel<SubScalarOp, shiftGradient<SubScalarOp>>>(*context);
  MulScalarOp::attachInterface<GradientModel<MulScalarOp, mulScalarGradient>>(
      *context);
  DivScalarOp::attachInterface<GradientModel<DivScalarOp, divScalarGradient>>(
      *context);
  ConvertOp::attachInterface<GradientModel<ConvertOp, convertGradient>>(
      *context);
  BroadcastToOp::attachInterface<
      GradientModel<BroadcastToOp, broadcastGradient>>(*context);
  ReshapeOp::attachInterface<
      GradientModel<ReshapeOp, reshapeGradient<ReshapeOp>>>(*context);
  FlattenOp::attachInterface<
      GradientModel<FlattenOp, reshapeGradient<FlattenOp>>>(*context);
  TransposeOp::attachInterface<GradientModel<TransposeOp, transposeGradient>>(
      *context);
  PermuteOp::attachInterface<GradientModel<PermuteOp, permuteGradient>>(
      *context);
  ConcatOp::attachInterface<GradientModel<ConcatOp, concatGradient>>(*context);
  SliceOp::attachInterface<GradientModel<SliceOp, sliceGradient>>(*context);
  SumOp::attachInterface<GradientModel<SumOp, sumGradient>>(*context);
  MeanOp::attachInterface<GradientModel<MeanOp, meanGradient>>(*context);
}
