//===- LinearOps.cpp - linear, matmul and embedding ops -------------------===//
//
// Verifiers and costs of the dense contractions and embedding lookups. A
// multiply-add counts as 2 FLOPs.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

/// Returns `shape` with its last dimension replaced by `size`.
static SmallVector<int64_t> withLastDim(ArrayRef<int64_t> shape,
                                        int64_t size) {
  SmallVector<int64_t> result(shape);
  result.back() = size;
  return result;
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

/// Checks a linear layer's weight against the sizes it connects.
static LogicalResult verifyLinearWeight(Operation *op, RankedTensorType weight,
                                        int64_t out, int64_t in) {
  return expectShape(op, "a weight", weight, {out, in});
}

LogicalResult LinearOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType weight = getWeight().getType();
  RankedTensorType result = getType();
  if (failed(expectMinRank(*this, "an input", input, 1)) ||
      failed(expectRank(*this, "a weight", weight, 2)) ||
      failed(expectSameElementType(*this, "input", input, "weight", weight)) ||
      failed(expectSameElementType(*this, "input", input, "result", result)))
    return failure();
  int64_t out = weight.getDimSize(0);
  if (failed(verifyLinearWeight(*this, weight, out, input.getShape().back())))
    return failure();
  if (getBias() &&
      (failed(expectShape(*this, "a bias", getBias().getType(), {out})) ||
       failed(expectSameElementType(*this, "input", input, "bias",
                                    getBias().getType()))))
    return failure();
  return expectShape(*this, "a result", result,
                     withLastDim(input.getShape(), out));
}

int64_t LinearOp::getFlopCount() {
  int64_t outputs = getNumElements(getType());
  int64_t in = getInput().getType().getShape().back();
  return 2 * outputs * in + (getBias() ? outputs : 0);
}

LogicalResult LinearBackwardInputOp::verify() {
  RankedTensorType grad = getGradOutput().getType();
  RankedTensorType weight = getWeight().getType();
  RankedTensorType result = getType();
  if (failed(expectMinRank(*this, "a grad_output", grad, 1)) ||
      failed(expectRank(*this, "a weight", weight, 2)) ||
      failed(expectSameElementType(*this, "grad_output", grad, "weight",
                                   weight)) ||
      failed(expectSameElementType(*this, "grad_output", grad, "result",
                                   result)) ||
      failed(verifyLinearWeight(*this, weight, grad.getShape().back(),
                                weight.getDimSize(1))))
    return failure();
  return expectShape(*this, "a result", result,
                     withLastDim(grad.getShape(), weight.getDimSize(1)));
}

int64_t LinearBackwardInputOp::getFlopCount() {
  return 2 * getNumElements(getGradOutput().getType()) *
         getWeight().getType().getDimSize(1);
}

LogicalResult LinearBackwardWeightOp::verify() {
  RankedTensorType grad = getGradOutput().getType();
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getType();
  if (failed(expectMinRank(*this, "a grad_output", grad, 1)) ||
      failed(expectSameElementType(*this, "grad_output", grad, "input",
                                   input)) ||
      failed(expectSameElementType(*this, "grad_output", grad, "result",
                                   result)) ||
      failed(expectShape(*this, "an input", input,
                         withLastDim(grad.getShape(),
                                     input.getShape().empty()
                                         ? 0
                                         : input.getShape().back()))))
    return failure();
  return verifyLinearWeight(*this, result, grad.getShape().back(),
                            input.getShape().back());
}

int64_t LinearBackwardWeightOp::getFlopCount() {
  return 2 * getNumElements(getGradOutput().getType()) *
         getInput().getType().getShape().back();
}

LogicalResult LinearBackwardBiasOp::verify() {
  RankedTensorType grad = getGradOutput().getType();
  if (failed(expectMinRank(*this, "a grad_output", grad, 1)) ||
      failed(expectSameElementType(*this, "grad_output", grad, "result",
                                   getType())))
    return failure();
  return expectShape(*this, "a result", getType(), {grad.getShape().back()});
}

int64_t LinearBackwardBiasOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// Returns the shape [B..., rows, cols] with the batch dims of `batchOf`.
static SmallVector<int64_t> matrixShape(RankedTensorType batchOf, int64_t rows,
                                        int64_t cols) {
  SmallVector<int64_t> shape(batchOf.getShape().drop_back(2));
  shape.push_back(rows);
  shape.push_back(cols);
  return shape;
}

/// Checks that both operands are batched matrices (rank 2 or more).
static LogicalResult verifyMatrixRanks(Operation *op, StringRef aName,
                                       RankedTensorType a, StringRef bName,
                                       RankedTensorType b) {
  if (failed(expectMinRank(op, ("a " + aName).str(), a, 2)) ||
      failed(expectMinRank(op, ("a " + bName).str(), b, 2)))
    return failure();
  return success();
}

/// Checks that the three types are batched matrices of one element type and
/// that `c` is [B..., m, n] with the batch dimensions `a` and `b` share.
static LogicalResult verifyMatrices(Operation *op, StringRef aName,
                                    RankedTensorType a, StringRef bName,
                                    RankedTensorType b, RankedTensorType c,
                                    int64_t m, int64_t n) {
  if (failed(expectSameElementType(op, aName, a, bName, b)) ||
      failed(expectSameElementType(op, aName, a, "result", c)))
    return failure();
  if (b.getRank() != a.getRank() ||
      b.getShape().drop_back(2) != a.getShape().drop_back(2))
    return op->emitOpError() << "expects " << aName << " and " << bName
                             << " to have the same batch dimensions, got "
                             << a << " and " << b;
  return expectShape(op, "a result", c, matrixShape(a, m, n));
}

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  if (failed(verifyMatrixRanks(*this, "lhs", lhs, "rhs", rhs)) ||
      failed(verifyMatrices(*this, "lhs", lhs, "rhs", rhs, getType(),
                            lhs.getShape().end()[-2], rhs.getShape().back())))
    return failure();
  if (lhs.getShape().back() != rhs.getShape().end()[-2])
    return emitOpError() << "expects the contracted dimensions to match, got "
                         << lhs << " and " << rhs;
  return success();
}

int64_t MatmulOp::getFlopCount() {
  return 2 * getNumElements(getType()) * getLhs().getType().getShape().back();
}

LogicalResult MatmulBackwardLhsOp::verify() {
  // grad [B..., M, N] x rhs^T [B..., N, K] -> [B..., M, K].
  RankedTensorType grad = getGradOutput().getType(), rhs = getRhs().getType();
  if (failed(verifyMatrixRanks(*this, "grad_output", grad, "rhs", rhs)) ||
      failed(verifyMatrices(*this, "grad_output", grad, "rhs", rhs, getType(),
                            grad.getShape().end()[-2],
                            rhs.getShape().end()[-2])))
    return failure();
  if (grad.getShape().back() != rhs.getShape().back())
    return emitOpError() << "expects grad_output and rhs to have the same "
                            "last dimension, got "
                         << grad << " and " << rhs;
  return success();
}

int64_t MatmulBackwardLhsOp::getFlopCount() {
  return 2 * getNumElements(getType()) *
         getGradOutput().getType().getShape().back();
}

LogicalResult MatmulBackwardRhsOp::verify() {
  // lhs^T [B..., K, M] x grad [B..., M, N] -> [B..., K, N].
  RankedTensorType grad = getGradOutput().getType(), lhs = getLhs().getType();
  if (failed(verifyMatrixRanks(*this, "grad_output", grad, "lhs", lhs)) ||
      failed(verifyMatrices(*this, "grad_output", grad, "lhs", lhs, getType(),
                            lhs.getShape().back(), grad.getShape().back())))
    return failure();
  if (grad.getShape().end()[-2] != lhs.getShape().end()[-2])
    return emitOpError() << "expects grad_output and lhs to have the same "
                            "row count, got "
                         << grad << " and " << lhs;
  return success();
}

int64_t MatmulBackwardRhsOp::getFlopCount() {
  return 2 * getNumElements(getType()) *
         getGradOutput().getType().getShape().end()[-2];
}

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

/// Checks the table, the padding index and the looked-up rows' shape.
static LogicalResult verifyEmbedding(Operation *op, RankedTensorType table,
                                     RankedTensorType indices,
                                     RankedTensorType rows,
                                     int64_t paddingIdx) {
  if (failed(expectRank(op, "a weight", table, 2)) ||
      failed(expectSameElementType(op, "weight", table, "rows", rows)))
    return failure();
  if (paddingIdx < -1 || paddingIdx >= table.getDimSize(0))
    return op->emitOpError() << "expects 'padding_idx' to be -1 or in [0, "
                             << table.getDimSize(0) << "), got " << paddingIdx;
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(table.getDimSize(1));
  return expectShape(op, "rows", rows, shape);
}

LogicalResult EmbeddingOp::verify() {
  return verifyEmbedding(*this, getWeight().getType(), getIndices().getType(),
                         getType(), getPaddingIdx());
}

int64_t EmbeddingOp::getFlopCount() { return 0; }

int64_t EmbeddingOp::getBytesMoved() {
  // Reads the indices and the selected rows only, writes the result.
  int64_t resultBytes = remat::getTypeBytes(getType()).value_or(0);
  return remat::getTypeBytes(getIndices().getType()).value_or(0) +
         2 * resultBytes;
}

LogicalResult EmbeddingBackwardOp::verify() {
  return verifyEmbedding(*this, getType(), getIndices().getType(),
                         getGradOutput().getType(), getPaddingIdx());
}

int64_t EmbeddingBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}

int64_t mlir::nn::getIndexBound(Value indices) {
  for (Operation *user : indices.getUsers()) {
    if (auto loss = dyn_cast<CrossEntropyOp>(user))
      return loss.getLogits().getType().getDimSize(1);
    if (auto embedding = dyn_cast<EmbeddingOp>(user))
      return embedding.getWeight().getType().getDimSize(0);
  }
  return 2;
}
