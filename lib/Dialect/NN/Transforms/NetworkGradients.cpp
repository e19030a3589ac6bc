//===- NetworkGradients.cpp - gradients of layers, norms and losses -------===//
//
// Convolution (and transposed convolution), normalization, pooling,
// upsampling, linear, matmul, embedding, softmax, attention, cross entropy
// and dropout: each forward op's gradient is the nn backward op that ATen's
// autograd runs for it, built only for the operands that need one.
//
//===----------------------------------------------------------------------===//

#include "GradientRuleUtils.h"

using namespace mlir;
using namespace mlir::nn;
using remat::GradientBuilder;

using Gradients = MutableArrayRef<Value>;

/// The ops of one convolution family (2-D or 3-D).
template <typename Conv, typename BackwardInput, typename BackwardWeight,
          typename BackwardBias>
struct ConvFamily {
  static LogicalResult convGradient(Conv op, GradientBuilder &b,
                                    ArrayRef<Value> gy, ArrayRef<bool> needed,
                                    Gradients grads) {
    if (needed[0])
      grads[0] = b.create<BackwardInput>(
          "grad_input", op.getInput().getType(), gy[0], op.getWeight(),
          op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(),
          op.getGroupsAttr());
    if (needed[1])
      grads[1] = b.create<BackwardWeight>(
          "grad_weight", op.getWeight().getType(), gy[0], op.getInput(),
          op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(),
          op.getGroupsAttr());
    if (op.getBias() && needed[2])
      grads[2] =
          b.create<BackwardBias>("grad_bias", op.getBias().getType(), gy[0]);
    return success();
  }

  /// The backward-input op is also the transposed convolution: linear in
  /// each operand, its gradients are the convolution of the result's
  /// gradient with the weight, and the weight gradient with the roles of
  /// input and output gradient exchanged.
  static LogicalResult transposeGradient(BackwardInput op, GradientBuilder &b,
                                         ArrayRef<Value> gy,
                                         ArrayRef<bool> needed,
                                         Gradients grads) {
    if (needed[0])
      grads[0] = b.create<Conv>("grad_input", op.getGradOutput().getType(),
                                gy[0], op.getWeight(), Value(),
                                op.getStrideAttr(), op.getPaddingAttr(),
                                op.getDilationAttr(), op.getGroupsAttr());
    if (needed[1])
      grads[1] = b.create<BackwardWeight>(
          "grad_weight", op.getWeight().getType(), op.getGradOutput(), gy[0],
          op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(),
          op.getGroupsAttr());
    return success();
  }

  static void attach(MLIRContext *context) {
    Conv::template attachInterface<GradientModel<Conv, convGradient>>(*context);
    BackwardInput::template attachInterface<
        GradientModel<BackwardInput, transposeGradient>>(*context);
  }
};

using Conv2dFamily = ConvFamily<Conv2dOp, Conv2dBackwardInputOp,
                                Conv2dBackwardWeightOp, Conv2dBackwardBiasOp>;
using Conv3dFamily = ConvFamily<Conv3dOp, Conv3dBackwardInputOp,
                                Conv3dBackwardWeightOp, Conv3dBackwardBiasOp>;

static LogicalResult batchNormGradient(BatchNormOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  if (failed(checkOnlyFirstResult(op, gy)))
    return failure();
  Type affine = op.getWeight().getType();
  auto backward = b.create<BatchNormBackwardOp>(
      "grad", TypeRange{op.getInput().getType(), affine, affine}, gy[0],
      op.getInput(), op.getWeight(), op.getSaveMean(), op.getSaveInvstd());
  for (unsigned i = 0; i < 3; ++i)
    if (needed[i])
      grads[i] = backward->getResult(i);
  return success();
}

/// The running statistics are state, not a function the loss depends on:
/// no operand of the update receives a gradient, so autodiff never asks
/// for one (an op whose needed operands are none is skipped).
static bool notDifferentiable(Operation *, unsigned) { return false; }

static LogicalResult noGradient(BatchNormUpdateStatsOp op, GradientBuilder &,
                                ArrayRef<Value>, ArrayRef<bool>, Gradients) {
  return op.emitOpError("is not differentiable: the running statistics do "
                        "not feed the loss");
}

static LogicalResult layerNormGradient(LayerNormOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  if (failed(checkOnlyFirstResult(op, gy)))
    return failure();
  Type affine = op.getWeight().getType();
  auto backward = b.create<LayerNormBackwardOp>(
      "grad", TypeRange{op.getInput().getType(), affine, affine}, gy[0],
      op.getInput(), op.getMean(), op.getRstd(), op.getWeight());
  for (unsigned i = 0; i < 3; ++i)
    if (needed[i])
      grads[i] = backward->getResult(i);
  return success();
}

template <typename MaxPoolOp, typename BackwardOp>
static LogicalResult maxPoolGradient(MaxPoolOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  if (failed(checkOnlyFirstResult(op, gy)))
    return failure();
  grads[0] = b.create<BackwardOp>("grad", op.getInput().getType(), gy[0],
                                  op.getIndices(), op.getKernelSizeAttr(),
                                  op.getStrideAttr(), op.getPaddingAttr(),
                                  op.getDilationAttr(), op.getCeilModeAttr());
  return success();
}

template <typename AvgPoolOp, typename BackwardOp>
static LogicalResult avgPoolGradient(AvgPoolOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  grads[0] = b.create<BackwardOp>("grad", op.getInput().getType(), gy[0],
                                  op.getKernelSizeAttr(), op.getStrideAttr(),
                                  op.getPaddingAttr(), op.getCeilModeAttr(),
                                  op.getCountIncludePadAttr());
  return success();
}

static LogicalResult adaptiveAvgPoolGradient(AdaptiveAvgPool2dOp op,
                                             GradientBuilder &b,
                                             ArrayRef<Value> gy,
                                             ArrayRef<bool> needed,
                                             Gradients grads) {
  grads[0] = b.create<AdaptiveAvgPool2dBackwardOp>(
      "grad", op.getInput().getType(), gy[0]);
  return success();
}

static LogicalResult upsampleGradient(UpsampleBilinear2dOp op,
                                      GradientBuilder &b, ArrayRef<Value> gy,
                                      ArrayRef<bool> needed, Gradients grads) {
  grads[0] = b.create<UpsampleBilinear2dBackwardOp>(
      "grad", op.getInput().getType(), gy[0], op.getAlignCornersAttr());
  return success();
}

static LogicalResult upsampleNearestGradient(UpsampleNearest2dOp op,
                                             GradientBuilder &b,
                                             ArrayRef<Value> gy,
                                             ArrayRef<bool> needed,
                                             Gradients grads) {
  grads[0] = b.create<UpsampleNearest2dBackwardOp>(
      "grad", op.getInput().getType(), gy[0]);
  return success();
}

static LogicalResult linearGradient(LinearOp op, GradientBuilder &b,
                                    ArrayRef<Value> gy, ArrayRef<bool> needed,
                                    Gradients grads) {
  if (needed[0])
    grads[0] = b.create<LinearBackwardInputOp>(
        "grad_input", op.getInput().getType(), gy[0], op.getWeight());
  if (needed[1])
    grads[1] = b.create<LinearBackwardWeightOp>(
        "grad_weight", op.getWeight().getType(), gy[0], op.getInput());
  if (op.getBias() && needed[2])
    grads[2] = b.create<LinearBackwardBiasOp>("grad_bias",
                                              op.getBias().getType(), gy[0]);
  return success();
}

static LogicalResult matmulGradient(MatmulOp op, GradientBuilder &b,
                                    ArrayRef<Value> gy, ArrayRef<bool> needed,
                                    Gradients grads) {
  if (needed[0])
    grads[0] = b.create<MatmulBackwardLhsOp>("grad_lhs", op.getLhs().getType(),
                                             gy[0], op.getRhs());
  if (needed[1])
    grads[1] = b.create<MatmulBackwardRhsOp>("grad_rhs", op.getRhs().getType(),
                                             gy[0], op.getLhs());
  return success();
}

static LogicalResult embeddingGradient(EmbeddingOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed, Gradients grads) {
  grads[0] = b.create<EmbeddingBackwardOp>(
      "grad", op.getWeight().getType(), gy[0], op.getIndices(),
      op.getPaddingIdxAttr());
  return success();
}

static LogicalResult softmaxGradient(SoftmaxOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  grads[0] = b.create<SoftmaxBackwardOp>("grad", op.getType(), gy[0],
                                         op.getResult(), op.getDimAttr());
  return success();
}

static LogicalResult logSoftmaxGradient(LogSoftmaxOp op, GradientBuilder &b,
                                        ArrayRef<Value> gy,
                                        ArrayRef<bool> needed,
                                        Gradients grads) {
  grads[0] = b.create<LogSoftmaxBackwardOp>("grad", op.getType(), gy[0],
                                            op.getResult(), op.getDimAttr());
  return success();
}

static LogicalResult crossEntropyGradient(CrossEntropyOp op,
                                          GradientBuilder &b,
                                          ArrayRef<Value> gy,
                                          ArrayRef<bool> needed,
                                          Gradients grads) {
  grads[0] = b.create<CrossEntropyBackwardOp>(
      "grad", op.getLogits().getType(), gy[0], op.getLogits(), op.getLabels(),
      op.getIgnoreIndexAttr());
  return success();
}

/// Flash attention's backward: one op for q, k and v, from the saved output
/// and log-sum-exp. A mask that depends on what is trained (a learned
/// position bias) would need the scores' gradient, which the flash kernels
/// never form.
static LogicalResult attentionGradient(AttentionOp op, GradientBuilder &b,
                                       ArrayRef<Value> gy,
                                       ArrayRef<bool> needed,
                                       Gradients grads) {
  if (failed(checkOnlyFirstResult(op, gy)))
    return failure();
  if (op.getMask() && needed[3])
    return op.emitOpError("cannot differentiate its mask: the mask depends "
                          "on trained values (a learned bias); add the bias "
                          "to the scores outside the attention instead");
  Type q = op.getQuery().getType(), kv = op.getKey().getType();
  auto backward = b.create<AttentionBackwardOp>(
      "grad", TypeRange{q, kv, kv}, gy[0], op.getQuery(), op.getKey(),
      op.getValue(), op.getOutput(), op.getLogsumexp(), op.getMask(),
      op.getSeed(), op.getIsCausalAttr(), op.getScaleAttr(),
      op.getDropoutPAttr());
  for (unsigned i = 0; i < 3; ++i)
    if (needed[i])
      grads[i] = backward->getResult(i);
  return success();
}

static LogicalResult dropoutGradient(DropoutOp op, GradientBuilder &b,
                                     ArrayRef<Value> gy, ArrayRef<bool> needed,
                                     Gradients grads) {
  grads[0] = b.create<DropoutBackwardOp>("grad", op.getInput().getType(),
                                         gy[0], op.getSeed(), op.getPAttr());
  return success();
}

void mlir::nn::registerNetworkGradientRules(MLIRContext *context) {
  Conv2dFamily::attach(context);
  Conv3dFamily::attach(context);
  BatchNormOp::attachInterface<GradientModel<BatchNormOp, batchNormGradient>>(
      *context);
  BatchNormUpdateStatsOp::attachInterface<GradientModel<
      BatchNormUpdateStatsOp, noGradient, notDifferentiable>>(*context);
  LayerNormOp::attachInterface<GradientModel<LayerNormOp, layerNormGradient>>(
      *context);
  MaxPool2dOp::attachInterface<GradientModel<
      MaxPool2dOp, maxPoolGradient<MaxPool2dOp, MaxPool2dBackwardOp>>>(
      *context);
  MaxPool3dOp::attachInterface<GradientModel<
      MaxPool3dOp, maxPoolGradient<MaxPool3dOp, MaxPool3dBackwardOp>>>(
      *context);
  AvgPool2dOp::attachInterface<GradientModel<
      AvgPool2dOp, avgPoolGradient<AvgPool2dOp, AvgPool2dBackwardOp>>>(
      *context);
  AvgPool3dOp::attachInterface<GradientModel<
      AvgPool3dOp, avgPoolGradient<AvgPool3dOp, AvgPool3dBackwardOp>>>(
      *context);
  AdaptiveAvgPool2dOp::attachInterface<
      GradientModel<AdaptiveAvgPool2dOp, adaptiveAvgPoolGradient>>(*context);
  UpsampleBilinear2dOp::attachInterface<
      GradientModel<UpsampleBilinear2dOp, upsampleGradient>>(*context);
  UpsampleNearest2dOp::attachInterface<
      GradientModel<UpsampleNearest2dOp, upsampleNearestGradient>>(*context);
  LinearOp::attachInterface<GradientModel<LinearOp, linearGradient>>(*context);
  MatmulOp::attachInterface<GradientModel<MatmulOp, matmulGradient>>(*context);
  EmbeddingOp::attachInterface<GradientModel<EmbeddingOp, embeddingGradient>>(
      *context);
  SoftmaxOp::attachInterface<GradientModel<SoftmaxOp, softmaxGradient>>(
      *context);
  LogSoftmaxOp::attachInterface<
      GradientModel<LogSoftmaxOp, logSoftmaxGradient>>(*context);
  CrossEntropyOp::attachInterface<
      GradientModel<CrossEntropyOp, crossEntropyGradient>>(*context);
  DropoutOp::attachInterface<GradientModel<DropoutOp, dropoutGradient>>(
      *context);
  AttentionOp::attachInterface<GradientModel<AttentionOp, attentionGradient>>(
      *context);
}
