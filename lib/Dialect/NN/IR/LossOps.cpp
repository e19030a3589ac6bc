//===- LossOps.cpp - softmax and losses -----------------------------------===//
//
// Verifiers of softmax and log-softmax (their FLOP counts come from the op
// table), verifier and costs of cross entropy.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

/// FLOPs per element of the cross entropy's softmax (as NN_SoftmaxLikeOp).
constexpr int64_t kSoftmaxFlopsPerElement = 5;

static LogicalResult verifySoftmaxDim(Operation *op, int64_t dim) {
  RankedTensorType type = getTensorType(op->getOperand(0));
  return verifyDimAttr(op, "dim", dim, type.getRank());
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxDim(*this, getDim()); }

LogicalResult SoftmaxBackwardOp::verify() {
  return verifySoftmaxDim(*this, getDim());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxDim(*this, getDim());
}

LogicalResult LogSoftmaxBackwardOp::verify() {
  return verifySoftmaxDim(*this, getDim());
}

/// Checks logits [N, C, d1, ...], labels [N, d1, ...] and a 0-d loss (or
/// loss gradient) of the logits' element type.
static LogicalResult verifyCrossEntropy(Operation *op, RankedTensorType logits,
                                        RankedTensorType labels,
                                        RankedTensorType loss,
                                        StringRef lossName) {
  if (logits.getRank() < 2)
    return op->emitOpError()
           << "expects logits of rank 2 or more ([N, C, d1, ...]), got "
           << logits;
  SmallVector<int64_t> labelShape(logits.getShape());
  labelShape.erase(labelShape.begin() + 1);
  if (failed(expectShape(op, "labels", labels, labelShape)) ||
      failed(expectRank(op, ("a " + lossName).str(), loss, 0)))
    return failure();
  return expectSameElementType(op, "logits", logits, lossName, loss);
}

LogicalResult CrossEntropyOp::verify() {
  return verifyCrossEntropy(*this, getLogits().getType(),
                            getLabels().getType(), getType(), "loss");
}

int64_t CrossEntropyOp::getFlopCount() {
  return kSoftmaxFlopsPerElement * getNumElements(getLogits().getType());
}

LogicalResult CrossEntropyBackwardOp::verify() {
  if (failed(verifyCrossEntropy(*this, getLogits().getType(),
                                getLabels().getType(),
                                getGradLoss().getType(), "grad_loss")))
    return failure();
  if (getType() != getLogits().getType())
    return emitOpError() << "expects the result type to equal the logits "
                            "type, got "
                         << getType() << " and " << getLogits().getType();
  return success();
}

int64_t CrossEntropyBackwardOp::getFlopCount() {
  return kSoftmaxFlopsPerElement * getNumElements(getType());
}
