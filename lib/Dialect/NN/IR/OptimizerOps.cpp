//===- OptimizerOps.cpp - optimizer updates -------------------------------===//
//
// Verifiers and costs of the optimizer steps. Their results are the updated
// weights and state, results of the training step, so they are never
// recomputed.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

/// FLOPs per weight element: the update itself, weight decay, momentum, and
/// for Adam both moments, the bias corrections and the square root.
constexpr int64_t kSgdFlopsPerElement = 2;
constexpr int64_t kWeightDecayFlopsPerElement = 2;
constexpr int64_t kMomentumFlopsPerElement = 3;
constexpr int64_t kAdamFlopsPerElement = 12;

/// "expects a non-negative '<name>'" when `value` is negative.
static LogicalResult expectNonNegativeValue(Operation *op, StringRef name,
                                            double value) {
  if (value >= 0.0)
    return success();
  return op->emitOpError() << "expects a non-negative '" << name << "', got "
                           << value;
}

static bool hasType(Value value, Type type) {
  return value && value.getType() == type;
}

LogicalResult SgdOp::verify() {
  Type paramType = getParam().getType();
  if (!hasType(getGrad(), paramType) || !hasType(getNewParam(), paramType))
    return emitOpError("expects param, grad and new_param of one type");
  double momentum = getMomentum().convertToDouble();
  double dampening = getDampening().convertToDouble();
  if (failed(expectNonNegativeValue(*this, "lr", getLr().convertToDouble())) ||
      failed(expectNonNegativeValue(*this, "momentum", momentum)) ||
      failed(expectNonNegativeValue(*this, "weight_decay",
                                    getWeightDecay().convertToDouble())))
    return failure();
  bool hasBuffer = static_cast<bool>(getMomentumBuffer());
  if (hasBuffer != (momentum != 0.0))
    return emitOpError("expects a momentum_buffer operand exactly when "
                       "'momentum' is not 0");
  if (hasBuffer && (!hasType(getMomentumBuffer(), paramType) ||
                    !hasType(getNewMomentumBuffer(), paramType)))
    return emitOpError("expects a momentum_buffer operand and a "
                       "new_momentum_buffer result of the param's type");
  if (!hasBuffer && getNewMomentumBuffer())
    return emitOpError("expects no new_momentum_buffer result without "
                       "momentum");
  if (getNesterov() && dampening != 0.0)
    return emitOpError("expects no 'dampening' with 'nesterov'");
  return success();
}

int64_t SgdOp::getFlopCount() {
  int64_t perElement = kSgdFlopsPerElement;
  if (getWeightDecay().convertToDouble() != 0.0)
    perElement += kWeightDecayFlopsPerElement;
  if (getMomentumBuffer())
    perElement += kMomentumFlopsPerElement;
  return perElement * getNumElements(getParam().getType());
}

bool SgdOp::isRecomputable() { return false; }

LogicalResult AdamOp::verify() {
  double beta1 = getBeta1().convertToDouble();
  double beta2 = getBeta2().convertToDouble();
  if (failed(expectNonNegativeValue(*this, "lr", getLr().convertToDouble())) ||
      failed(expectNonNegativeValue(*this, "eps", getEps().convertToDouble())) ||
      failed(expectNonNegativeValue(*this, "weight_decay",
                                    getWeightDecay().convertToDouble())) ||
      failed(expectProbability(*this, "beta1", beta1)) ||
      failed(expectProbability(*this, "beta2", beta2)))
    return failure();
  return success();
}

int64_t AdamOp::getFlopCount() {
  int64_t perElement = kAdamFlopsPerElement;
  if (getWeightDecay().convertToDouble() != 0.0)
    perElement += kWeightDecayFlopsPerElement;
  return perElement * getNumElements(getParam().getType());
}

bool AdamOp::isRecomputable() { return false; }
