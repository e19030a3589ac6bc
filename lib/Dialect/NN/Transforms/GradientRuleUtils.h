//===- GradientRuleUtils.h - shared pieces of the nn gradient rules -*- C++ -*-===//

#ifndef REMAT_LIB_DIALECT_NN_TRANSFORMS_GRADIENTRULEUTILS_H
#define REMAT_LIB_DIALECT_NN_TRANSFORMS_GRADIENTRULEUTILS_H

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Interfaces/GradientOpInterface.h"

namespace mlir::nn {

/// The signature of one op's rule: the gradients of the needed operands
/// from the gradients of the results (null where none arrives).
template <typename OpT>
using GradientRule = LogicalResult (*)(OpT op, remat::GradientBuilder &builder,
                                       ArrayRef<Value> resultGradients,
                                       ArrayRef<bool> needed,
                                       MutableArrayRef<Value> operandGradients);

/// The default: floating-point operands are differentiable.
inline bool floatOperandsDifferentiable(Operation *op, unsigned index) {
  return isa<FloatType>(getElementTypeOrSelf(op->getOperand(index).getType()));
}

/// The external model that binds an op to its rule.
template <typename OpT, GradientRule<OpT> Rule,
          bool (*Differentiable)(Operation *, unsigned) =
              floatOperandsDifferentiable>
struct GradientModel
    : public remat::GradientOpInterface::ExternalModel<
          GradientModel<OpT, Rule, Differentiable>, OpT> {
  bool isDifferentiableOperand(Operation *op, unsigned index) const {
    return Differentiable(op, index);
  }
  LogicalResult buildGradients(Operation *op, remat::GradientBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               ArrayRef<bool> needed,
                               MutableArrayRef<Value> operandGradients) const {
    return Rule(cast<OpT>(op), builder, resultGradients, needed,
                operandGradients);
  }
};

/// Sums `gradient` over the dimensions that NumPy broadcasting added or
/// stretched, so that it has `type`: the gradient of a broadcast operand.
Value reduceToType(remat::GradientBuilder &builder, Value gradient,
                   Type type);

/// Fails unless only result 0 of `op` receives a gradient (the other
/// results of batch norm, layer norm and max pooling are statistics or
/// indices that the rules do not differentiate).
LogicalResult checkOnlyFirstResult(Operation *op,
                                   ArrayRef<Value> resultGradients);

void registerNetworkGradientRules(MLIRContext *context);
void registerTensorGradientRules(MLIRContext *context);

} // namespace mlir::nn

#endif // REMAT_LIB_DIALECT_NN_TRANSFORMS_GRADIENTRULEUTILS_H
