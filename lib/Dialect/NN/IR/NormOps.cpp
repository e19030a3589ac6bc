//===- NormOps.cpp - batch and layer normalization ------------------------===//
//
// Verifiers and costs of the normalization ops. Types that must be equal are
// enforced by the ops' AllTypesMatch traits; these verifiers check how the
// parameter shapes relate to the input's.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

/// FLOPs per input element: batch norm forward computes the mean, the
/// variance, then normalizes, scales and shifts; the backward reduces two
/// sums and combines them.
constexpr int64_t kNormFlopsPerElement = 8;
constexpr int64_t kNormBackwardFlopsPerElement = 12;
constexpr int64_t kUpdateStatsFlopsPerElement = 3;
constexpr int64_t kUpdateStatsFlopsPerChannel = 6;

/// Checks per-channel parameters [C] against an input [N, C, ...].
static LogicalResult verifyChannelParams(Operation *op, RankedTensorType input,
                                         RankedTensorType params,
                                         StringRef paramsName = "weight") {
  if (failed(expectMinRank(op, "an input", input, 2)) ||
      failed(expectSameElementType(op, "input", input, paramsName, params)))
    return failure();
  return expectShape(op, "per-channel parameters", params,
                     {input.getDimSize(1)});
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyChannelParams(*this, getInput().getType(),
                                 getWeight().getType())))
    return failure();
  if (getEps().convertToDouble() <= 0.0)
    return emitOpError("expects a positive 'eps'");
  // PyTorch refuses to train on one value per channel: its variance is 0
  // and the unbiased one, which updates the running statistics, is 0/0.
  auto type = cast<RankedTensorType>(getInput().getType());
  if (type.hasStaticShape() &&
      type.getNumElements() == type.getDimSize(1) && type.getDimSize(1) > 0)
    return emitOpError("expects more than 1 value per channel to normalize "
                       "in training, got input ")
           << type << " (PyTorch: \"Expected more than 1 value per channel "
                      "when training\")";
  return success();
}

int64_t BatchNormOp::getFlopCount() {
  return kNormFlopsPerElement * getNumElements(getInput().getType());
}

LogicalResult BatchNormUpdateStatsOp::verify() {
  if (failed(verifyChannelParams(*this, getInput().getType(),
                                 getRunningMean().getType(), "running_mean")))
    return failure();
  double momentum = getMomentum().convertToDouble();
  if (momentum < 0.0 || momentum > 1.0)
    return emitOpError() << "expects 'momentum' in [0, 1], got " << momentum;
  return success();
}

/// The batch mean and variance (3 per input element), then the two blends
/// (3 per channel each).
int64_t BatchNormUpdateStatsOp::getFlopCount() {
  return kUpdateStatsFlopsPerElement * getNumElements(getInput().getType()) +
         kUpdateStatsFlopsPerChannel * getNumElements(getRunningMean().getType());
}

/// Its results are the new running statistics, state: a second run would
/// update them twice.
bool BatchNormUpdateStatsOp::isRecomputable() { return false; }

LogicalResult BatchNormBackwardOp::verify() {
  return verifyChannelParams(*this, getInput().getType(),
                             getWeight().getType());
}

int64_t BatchNormBackwardOp::getFlopCount() {
  return kNormBackwardFlopsPerElement * getNumElements(getInput().getType());
}

/// Checks layer norm's weight (the normalized shape: the input's trailing
/// dims) and its saved statistics (leading dims, then a 1 per normalized
/// dim).
static LogicalResult verifyLayerNormShapes(Operation *op,
                                           RankedTensorType input,
                                           RankedTensorType weight,
                                           RankedTensorType stats) {
  if (failed(expectSameElementType(op, "input", input, "weight", weight)) ||
      failed(expectSameElementType(op, "input", input, "mean", stats)) ||
      failed(expectMinRank(op, "a weight", weight, 1)))
    return failure();
  int64_t normalizedRank = weight.getRank();
  if (input.getRank() < normalizedRank ||
      input.getShape().take_back(normalizedRank) != weight.getShape())
    return op->emitOpError() << "expects the weight's shape to equal the "
                                "input's trailing dimensions, got "
                             << weight << " for " << input;
  SmallVector<int64_t> statsShape(
      input.getShape().drop_back(normalizedRank));
  statsShape.append(normalizedRank, 1);
  return expectShape(op, "mean and rstd", stats, statsShape);
}

LogicalResult LayerNormOp::verify() {
  if (getEps().convertToDouble() <= 0.0)
    return emitOpError("expects a positive 'eps'");
  return verifyLayerNormShapes(*this, getInput().getType(),
                               getWeight().getType(), getMean().getType());
}

int64_t LayerNormOp::getFlopCount() {
  return kNormFlopsPerElement * getNumElements(getInput().getType());
}

LogicalResult LayerNormBackwardOp::verify() {
  return verifyLayerNormShapes(*this, getInput().getType(),
                               getWeight().getType(), getMean().getType());
}

int64_t LayerNormBackwardOp::getFlopCount() {
  return kNormBackwardFlopsPerElement * getNumElements(getInput().getType());
}
