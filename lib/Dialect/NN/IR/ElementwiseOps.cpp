//===- ElementwiseOps.cpp - element-wise nn ops ---------------------------===//
//
// Verifiers and costs of activations, arithmetic, dropout, Bernoulli
// samples, fills and broadcasts. FLOP counts per element follow the usual
// counting of transcendental functions as a handful of operations; they only
// need to be consistent, since the cost model turns them into time with the
// bytes moved, which dominate for these ops.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

/// FLOPs per element of the element-wise ops.
namespace flops_per_element {
constexpr int64_t kRelu = 1;
constexpr int64_t kReluBackward = 1;
constexpr int64_t kGelu = 12;
constexpr int64_t kGeluBackward = 16;
constexpr int64_t kSigmoid = 4;
constexpr int64_t kSigmoidBackward = 3;
constexpr int64_t kTanh = 6;
constexpr int64_t kTanhBackward = 3;
constexpr int64_t kHardtanh = 2;
constexpr int64_t kHardtanhBackward = 2;
constexpr int64_t kHardswish = 5;
constexpr int64_t kHardswishBackward = 4;
constexpr int64_t kHardsigmoid = 4;
constexpr int64_t kHardsigmoidBackward = 3;
constexpr int64_t kSilu = 5;
constexpr int64_t kSiluBackward = 9;
constexpr int64_t kArithmetic = 1;
constexpr int64_t kDropout = 2;
constexpr int64_t kBernoulli = 1;
} // namespace flops_per_element

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

int64_t ReluOp::getFlopCount() {
  return flops_per_element::kRelu * getNumElements(getType());
}
int64_t ReluBackwardOp::getFlopCount() {
  return flops_per_element::kReluBackward * getNumElements(getType());
}

LogicalResult GeluOp::verify() {
  return verifyApproximate(*this, getApproximate());
}
int64_t GeluOp::getFlopCount() {
  return flops_per_element::kGelu * getNumElements(getType());
}

LogicalResult GeluBackwardOp::verify() {
  return verifyApproximate(*this, getApproximate());
}
int64_t GeluBackwardOp::getFlopCount() {
  return flops_per_element::kGeluBackward * getNumElements(getType());
}

int64_t SigmoidOp::getFlopCount() {
  return flops_per_element::kSigmoid * getNumElements(getType());
}
int64_t SigmoidBackwardOp::getFlopCount() {
  return flops_per_element::kSigmoidBackward * getNumElements(getType());
}
int64_t TanhOp::getFlopCount() {
  return flops_per_element::kTanh * getNumElements(getType());
}
int64_t TanhBackwardOp::getFlopCount() {
  return flops_per_element::kTanhBackward * getNumElements(getType());
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
int64_t HardtanhOp::getFlopCount() {
  return flops_per_element::kHardtanh * getNumElements(getType());
}

LogicalResult HardtanhBackwardOp::verify() {
  return verifyHardtanhBounds(*this, getMinVal().convertToDouble(),
                              getMaxVal().convertToDouble());
}
int64_t HardtanhBackwardOp::getFlopCount() {
  return flops_per_element::kHardtanhBackward * getNumElements(getType());
}

int64_t HardswishOp::getFlopCount() {
  return flops_per_element::kHardswish * getNumElements(getType());
}
int64_t HardswishBackwardOp::getFlopCount() {
  return flops_per_element::kHardswishBackward * getNumElements(getType());
}
int64_t HardsigmoidOp::getFlopCount() {
  return flops_per_element::kHardsigmoid * getNumElements(getType());
}
int64_t HardsigmoidBackwardOp::getFlopCount() {
  return flops_per_element::kHardsigmoidBackward * getNumElements(getType());
}
int64_t SiluOp::getFlopCount() {
  return flops_per_element::kSilu * getNumElements(getType());
}
int64_t SiluBackwardOp::getFlopCount() {
  return flops_per_element::kSiluBackward * getNumElements(getType());
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

int64_t AddOp::getFlopCount() { return getNumElements(getType()); }
int64_t SubOp::getFlopCount() { return getNumElements(getType()); }
int64_t MulOp::getFlopCount() { return getNumElements(getType()); }
int64_t DivOp::getFlopCount() { return getNumElements(getType()); }

int64_t AddScalarOp::getFlopCount() { return getNumElements(getType()); }
int64_t SubScalarOp::getFlopCount() { return getNumElements(getType()); }
int64_t MulScalarOp::getFlopCount() { return getNumElements(getType()); }
int64_t DivScalarOp::getFlopCount() { return getNumElements(getType()); }

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
int64_t DropoutOp::getFlopCount() {
  return flops_per_element::kDropout * getNumElements(getType());
}

LogicalResult DropoutBackwardOp::verify() {
  return verifyDropout(*this, getP().convertToDouble());
}
int64_t DropoutBackwardOp::getFlopCount() {
  return flops_per_element::kDropout * getNumElements(getType());
}

LogicalResult BernoulliOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p <= 1.0))
    return emitOpError() << "expects 'p' in [0, 1], got " << p;
  return success();
}
int64_t BernoulliOp::getFlopCount() {
  return flops_per_element::kBernoulli * getNumElements(getType());
}

//===----------------------------------------------------------------------===//
// Fills and broadcasts
//===----------------------------------------------------------------------===//

int64_t FullOp::getFlopCount() { return 0; }

LogicalResult BroadcastToOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getType();
  if (failed(expectSameElementType(*this, "input", input, "result", result)))
    return failure();
  if (!isBroadcastableTo(input.getShape(), result.getShape()))
    return emitOpError() << "cannot broadcast " << input << " to " << result;
  return success();
}
int64_t BroadcastToOp::getFlopCount() { return 0; }
