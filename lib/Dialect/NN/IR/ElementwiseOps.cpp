//===- ElementwiseOps.cpp - element-wise nn ops ---------------------------===//
//
// Verifiers of activations, arithmetic, dropout, Bernoulli samples, fills
// and broadcasts. Their FLOP counts come from the op table
// (flopsPerElement in NNElementwiseOps.td, generated into NNDialect.cpp).
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

static LogicalResult verifyApproximate(Operation *op, StringRef approximate) {
  if (approximate == "none" || approximate == "tanh")
    return success();
  return op->emitOpError() << "expects 'approximate' to be \"none\" or "
                              "\"tanh\", got \""
                           << approximate << "\"";
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  return verifyApproximate(*this, getApproximate());
}

LogicalResult GeluBackwardOp::verify() {
  return verifyApproximate(*this, getApproximate());
}

/// Shared verifier of hardtanh and its backward: ordered bounds.
static LogicalResult verifyHardtanhBounds(Operation *op, double minVal,
                                          double maxVal) {
  if (std::isnan(minVal) || std::isnan(maxVal) || minVal > maxVal)
    return op->emitOpError()
           << "expects 'min_val' <= 'max_val', got "
           << llvm::formatv("{0} and {1}", llvm::format("%g", minVal),
                            llvm::format("%g", maxVal))
                  .str();
  return success();
}

LogicalResult HardtanhOp::verify() {
  return verifyHardtanhBounds(*this, getMinVal().convertToDouble(),
                              getMaxVal().convertToDouble());
}

LogicalResult HardtanhBackwardOp::verify() {
  return verifyHardtanhBounds(*this, getMinVal().convertToDouble(),
                              getMaxVal().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// Shared verifier of add, sub, mul and div.
static LogicalResult verifyBroadcastBinary(Operation *op) {
  RankedTensorType lhs = getTensorType(op->getOperand(0));
  RankedTensorType rhs = getTensorType(op->getOperand(1));
  RankedTensorType result = getTensorType(op->getResult(0));
  if (failed(expectSameElementType(op, "lhs", lhs, "rhs", rhs)) ||
      failed(expectSameElementType(op, "lhs", lhs, "result", result)))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return op->emitOpError() << "cannot broadcast " << lhs << " with " << rhs;
  return expectShape(op, "a result", result, *shape);
}

LogicalResult AddOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult SubOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MulOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult DivOp::verify() { return verifyBroadcastBinary(*this); }

LogicalResult DivScalarOp::verify() {
  if (getScalar().convertToDouble() == 0.0)
    return emitOpError("expects a non-zero divisor");
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

static LogicalResult verifyDropout(Operation *op, double p) {
  RankedTensorType input = getTensorType(op->getOperand(0));
  RankedTensorType result = getTensorType(op->getResult(0));
  if (failed(expectProbability(op, "p", p)))
    return failure();
  if (input != result)
    return op->emitOpError() << "expects the result type to equal the input "
                                "type, got "
                             << result << " and " << input;
  return success();
}

LogicalResult DropoutOp::verify() {
  return verifyDropout(*this, getP().convertToDouble());
}

LogicalResult DropoutBackwardOp::verify() {
  return verifyDropout(*this, getP().convertToDouble());
}

LogicalResult BernoulliOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p <= 1.0))
    return emitOpError() << "expects 'p' in [0, 1], got " << p;
  return success();
}

//===----------------------------------------------------------------------===//
// Fills and broadcasts
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getType();
  if (failed(expectSameElementType(*this, "input", input, "result", result)))
    return failure();
  if (!isBroadcastableTo(input.getShape(), result.getShape()))
    return emitOpError() << "cannot broadcast " << input << " to " << result;
  return success();
}
