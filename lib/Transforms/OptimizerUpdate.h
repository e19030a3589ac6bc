//===- OptimizerUpdate.h - the update ops of a training step ----*- C++ -*-===//
//
// Internal to remat-autodiff: collects the step's results and appends the
// optimizer update (none, SGD or Adam) for the weights' gradients.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TRANSFORMS_OPTIMIZERUPDATE_H
#define REMAT_LIB_TRANSFORMS_OPTIMIZERUPDATE_H

#include "remat/Transforms/Autodiff.h"

#include "mlir/IR/Builders.h"

#include <string>
#include <vector>

namespace mlir::remat {

/// The training step's results with their names, in order, and for each
/// result that is the new value of an argument (an updated weight, optimizer
/// state, step or running statistic) that argument's name.
class StepResults {
public:
  void add(Value value, std::string name, std::string updates = {}) {
    values.push_back(value);
    names.push_back(std::move(name));
    updated.push_back(std::move(updates));
  }
  /// Makes them the function's results: a new return, type, names and
  /// `remat.updates`.
  void replaceReturn(func::FuncOp function, func::ReturnOp ret);

private:
  SmallVector<Value> values;
  std::vector<std::string> names;
  std::vector<std::string> updated;
};

/// Appends, before the insertion point of `builder`, the update of each
/// weight from its gradient as `options.optimizer` says, adding optimizer
/// state arguments, and adds the results. `updateOps` receives, per weight
/// in order, the op that updates it (none without an optimizer);
/// `stepIncrement` the op that increments Adam's step (else null).
LogicalResult appendOptimizerUpdate(func::FuncOp function, OpBuilder &builder,
                                    ArrayRef<BlockArgument> weights,
                                    ArrayRef<Value> gradients,
                                    const AutodiffOptions &options,
                                    StepResults &results,
                                    SmallVectorImpl<Operation *> &updateOps,
                                    Operation *&stepIncrement);

} // namespace mlir::remat

#endif // REMAT_LIB_TRANSFORMS_OPTIMIZERUPDATE_H
