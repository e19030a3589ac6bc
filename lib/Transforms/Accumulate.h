//===- Accumulate.h - gradient accumulation in remat-autodiff ---*- C++ -*-===//
//
// Internal to remat-autodiff: the pieces of differentiateFunction that the
// accumulated step (Accumulate.cpp) shares with the plain one
// (Autodiff.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TRANSFORMS_ACCUMULATE_H
#define REMAT_LIB_TRANSFORMS_ACCUMULATE_H

#include "OptimizerUpdate.h"

namespace mlir::remat {

/// A function's gradients before the optimizer: its weight arguments, the
/// gradient of each (`hasGradient` false where no gradient reaches the weight
/// and the gradient is a `<weight>.grad_zero`), the results so far (loss
/// and the forward's other results) and the return they replace.
struct GradientStep {
  SmallVector<BlockArgument> weights;
  SmallVector<Value> gradients;
  SmallVector<bool> hasGradient;
  StepResults results;
  func::ReturnOp ret;
};

/// Builds the loss (divided by `lossDivisor` with `nn.div_scalar`, named
/// `loss.scaled`, when it is not 1) and the backward pass of `function`
/// before its return.
FailureOr<GradientStep> buildGradients(func::FuncOp function,
                                       const AutodiffOptions &options,
                                       int64_t lossDivisor);

/// Appends the optimizer update of `step.gradients`, makes the results the
/// function's, names every op uniquely and places the updates as
/// `options.updatePlacement` says.
LogicalResult finishStep(func::FuncOp function, GradientStep &step,
                         const AutodiffOptions &options);

/// differentiateFunction with options.accumulationSteps > 1 (Accumulate.cpp).
LogicalResult buildAccumulatedStep(func::FuncOp function,
                                   const AutodiffOptions &options);

} // namespace mlir::remat

#endif // REMAT_LIB_TRANSFORMS_ACCUMULATE_H
