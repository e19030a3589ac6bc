//===- AttentionOps.cpp - scaled dot-product attention --------------------===//
//
// Verifiers and costs of nn.attention and its backward. The FLOP counts are
// those of the pairs (query, key) the causal flag keeps: the flash kernels
// skip the blocks above the diagonal.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/NN/IR/NNShapes.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

/// FLOPs per (query, key) pair beyond the products with the head dimension:
/// the scale, the mask, the exponential and the sums of the softmax.
constexpr int64_t kSoftmaxFlopsPerPair = 5;
/// Drawing the dropout mask and scaling by it.
constexpr int64_t kDropoutFlopsPerPair = 2;
/// The backward recomputes the probabilities and forms their gradient.
constexpr int64_t kSoftmaxBackwardFlopsPerPair = 8;

namespace {
/// The sizes of an attention: query [B, Hq, Lq, E], key and value
/// [B, Hkv, Lk, E].
struct AttentionShape {
  int64_t batch, queryHeads, keyHeads, queryLength, keyLength, headDim;
};
} // namespace

/// The sizes of query [B, Hq, Lq, E] and key [B, Hkv, Lk, E] (of rank 4).
static AttentionShape getAttentionShape(Value query, Value key) {
  RankedTensorType q = getTensorType(query), k = getTensorType(key);
  return {q.getDimSize(0), q.getDimSize(1), k.getDimSize(1),
          q.getDimSize(2), k.getDimSize(2), q.getDimSize(3)};
}

/// Checks q, k, v, the optional mask and the scale; returns the sizes.
static FailureOr<AttentionShape> verifyAttentionOperands(Operation *op,
                                                         Value query, Value key,
                                                         Value mask,
                                                         double scale) {
  RankedTensorType q = getTensorType(query), k = getTensorType(key);
  if (failed(expectRank(op, "a query", q, 4)) ||
      failed(expectRank(op, "a key and value", k, 4)) ||
      failed(expectSameElementType(op, "query", q, "key", k)))
    return failure();
  AttentionShape shape = getAttentionShape(query, key);
  if (k.getDimSize(0) != shape.batch)
    return op->emitOpError() << "expects the query and the key to have the "
                                "same batch size, got "
                             << q << " and " << k;
  if (k.getDimSize(3) != shape.headDim)
    return op->emitOpError() << "expects the query and the key to have the "
                                "same head dimension, got "
                             << q << " and " << k;
  if (shape.keyHeads == 0 || shape.queryHeads % shape.keyHeads != 0)
    return op->emitOpError() << "expects the query's heads to be a multiple "
                                "of the key's (grouped-query attention), got "
                             << shape.queryHeads << " and " << shape.keyHeads;
  if (!(scale > 0.0) || !std::isfinite(scale))
    return op->emitOpError()
           << "expects a positive, finite 'scale', got " << scale;
  if (mask) {
    RankedTensorType m = getTensorType(mask);
    SmallVector<int64_t> scores = {shape.batch, shape.queryHeads,
                                   shape.queryLength, shape.keyLength};
    if (failed(expectSameElementType(op, "query", q, "mask", m)))
      return failure();
    if (m.getRank() > 4 || !isBroadcastableTo(m.getShape(), scores))
      return op->emitOpError()
             << "expects a mask that broadcasts to the scores' shape "
             << formatShape(scores) << ", got " << m;
  }
  return shape;
}

/// Checks a [B, Hq, Lq] f32 log-sum-exp.
static LogicalResult verifyLogSumExp(Operation *op, Value logsumexp,
                                     const AttentionShape &shape) {
  RankedTensorType type = getTensorType(logsumexp);
  if (!type.getElementType().isF32())
    return op->emitOpError() << "expects an f32 log-sum-exp, got " << type;
  return expectShape(op, "a log-sum-exp", type,
                     {shape.batch, shape.queryHeads, shape.queryLength});
}

/// The (query, key) pairs the causal flag keeps, summed over batch and
/// heads: query i sees keys 0..i.
static int64_t getScoredPairs(const AttentionShape &shape, bool causal) {
  int64_t perHead = shape.queryLength * shape.keyLength;
  if (causal) {
    // Rows 0..r-1 see i + 1 keys (r = min(Lq, Lk - 1)); the rest see all.
    int64_t r =
        std::max<int64_t>(0, std::min(shape.queryLength, shape.keyLength - 1));
    perHead = r * (r + 1) / 2 + (shape.queryLength - r) * shape.keyLength;
  }
  return shape.batch * shape.queryHeads * perHead;
}

/// What nn.attention and its backward share: q, k, v, the mask, the scale
/// and the log-sum-exp.
template <typename AttentionOpT>
static LogicalResult verifyAttention(AttentionOpT op) {
  FailureOr<AttentionShape> shape =
      verifyAttentionOperands(op, op.getQuery(), op.getKey(), op.getMask(),
                              op.getScale().convertToDouble());
  if (failed(shape))
    return failure();
  double dropout = op.getDropoutP().convertToDouble();
  std::string dropoutText =
      llvm::formatv("{0}", llvm::format("%g", dropout)).str();
  if (!(dropout >= 0.0 && dropout < 1.0))
    return op.emitOpError()
           << "expects 'dropout_p' in [0, 1), got " << dropoutText;
  if ((dropout > 0.0) != bool(op.getSeed()))
    return op.emitOpError()
           << "expects a seed exactly when 'dropout_p' is "
              "above 0, got dropout_p = "
           << dropoutText << " and " << (op.getSeed() ? "a seed" : "no seed");
  return verifyLogSumExp(op, op.getLogsumexp(), *shape);
}

LogicalResult AttentionOp::verify() { return verifyAttention(*this); }

/// Two products with the head dimension per pair (q k^T, then p v) and the
/// softmax.
int64_t AttentionOp::getFlopCount() {
  AttentionShape shape = getAttentionShape(getQuery(), getKey());
  int64_t dropout = getSeed() ? kDropoutFlopsPerPair : 0;
  return getScoredPairs(shape, getIsCausal()) *
         (4 * shape.headDim + kSoftmaxFlopsPerPair + dropout);
}

LogicalResult AttentionBackwardOp::verify() { return verifyAttention(*this); }

/// Five products per pair (the scores again, dO v^T, dS k, dS^T q, P^T dO)
/// and the softmax's gradient.
int64_t AttentionBackwardOp::getFlopCount() {
  AttentionShape shape = getAttentionShape(getQuery(), getKey());
  int64_t dropout = getSeed() ? 2 * kDropoutFlopsPerPair : 0;
  return getScoredPairs(shape, getIsCausal()) *
         (10 * shape.headDim + kSoftmaxBackwardFlopsPerPair + dropout);
}
