//===- Accumulate.cpp - gradient accumulation over micro-batches ----------===//
//
// remat-autodiff with accumulation-steps=K > 1: PyTorch's accumulation loop
// as one function. A clone of the forward (at the micro-batch) is
// differentiated with loss / K and no optimizer; the step then runs K copies
// of that micro-step, each on its slice of the inputs and labels, passes the
// running statistics from one to the next, sums the gradients in micro-step
// order and applies the optimizer once to the sums.
//
//===----------------------------------------------------------------------===//

#include "Accumulate.h"

#include "remat/Analysis/PeakMemory.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::remat;

static bool isSliced(func::FuncOp function, unsigned index) {
  std::optional<ArgumentRole> role = getArgumentRole(function, index);
  return role == ArgumentRole::Input || role == ArgumentRole::Label;
}

static void setName(Operation *op, const std::string &name, Phase phase) {
  op->setAttr(attr::kName, StringAttr::get(op->getContext(), name));
  setPhase(op, phase);
}

/// The prefix of micro-step `index`'s op and argument names: none for the
/// first, `micro<i>.` after.
static std::string getPrefix(int64_t index) {
  return index == 0 ? "" : "micro" + std::to_string(index) + ".";
}

/// Checks that the micro-step (already differentiated, so that a labels
/// argument the loss added is there) has something to slice: every `input`
/// and `label` argument a static tensor of rank >= 1, the inputs with the
/// same number of rows (the micro-batch).
static LogicalResult checkSlicedArguments(func::FuncOp micro, int64_t steps) {
  bool any = false;
  BlockArgument firstInput;
  for (BlockArgument argument : micro.getArguments()) {
    // Without a role, whether an argument holds the micro-batch's rows
    // (sliced) or is the same for every micro-step (kept whole) is unknown.
    std::optional<ArgumentRole> role =
        getArgumentRole(micro, argument.getArgNumber());
    if (!role)
      return emitFunctionError(micro)
             << "accumulation-steps=" << steps << ": argument '"
             << getValueName(argument)
             << "' has no remat.role, so whether to slice it into "
                "micro-batches ('input', 'label') or keep it whole ('weight', "
                "'buffer', ...) is unknown; give it a role";
    if (!isSliced(micro, argument.getArgNumber()))
      continue;
    any = true;
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    if (!type || type.getRank() == 0 || !type.hasStaticShape())
      return emitFunctionError(micro)
             << "accumulation-steps=" << steps << ": argument '"
             << getValueName(argument) << "' of role '"
             << stringifyArgumentRole(*role) << "' has type "
             << argument.getType()
             << "; slicing it into micro-batches needs a static tensor with "
                "a batch dimension";
    int64_t stepRows = 0;
    if (llvm::MulOverflow(type.getDimSize(0), steps, stepRows))
      return emitFunctionError(micro)
             << "accumulation-steps=" << steps << ": argument '"
             << getValueName(argument) << "' would have " << steps << " x "
             << type.getDimSize(0) << " rows, more than an int64_t holds";
    if (*role != ArgumentRole::Input)
      continue;
    if (!firstInput) {
      firstInput = argument;
      continue;
    }
    int64_t rows = cast<RankedTensorType>(firstInput.getType()).getDimSize(0);
    if (type.getDimSize(0) != rows)
      return emitFunctionError(micro)
             << "accumulation-steps=" << steps << ": inputs '"
             << getValueName(firstInput) << "' and '" << getValueName(argument)
             << "' have " << rows << " and " << type.getDimSize(0)
             << " rows; every input needs the micro-batch as its first "
                "dimension";
  }
  if (!any)
    return emitFunctionError(micro)
           << "accumulation-steps=" << steps
           << " needs an argument with role 'input' or 'label' to slice into "
              "micro-batches";
  return success();
}

namespace {
/// Builds the accumulated step into a function whose body was emptied,
/// micro-step by micro-step.
class AccumulatedStepBuilder {
public:
  AccumulatedStepBuilder(func::FuncOp function, func::FuncOp micro,
                         const GradientStep &microStep, int64_t steps)
      : function(function), micro(micro), microStep(microStep), steps(steps),
        builder(function.getContext()) {}

  /// Gives the function the micro-step's arguments, inputs and labels
  /// `steps` times as long, and builds the micro-steps; returns the step's
  /// gradients and results, before the optimizer.
  GradientStep build();

private:
  void setUpArguments();
  IRMapping mapArguments(int64_t index, ArrayRef<Value> previousResults);
  SmallVector<Value> cloneMicroStep(int64_t index, IRMapping &mapping);
  void accumulate(int64_t index, ArrayRef<Value> results);
  Value addAfter(Value sum, Value next, const std::string &name,
                 Phase phase);

  func::FuncOp function, micro;
  const GradientStep &microStep;
  int64_t steps;
  OpBuilder builder;
  /// Per (micro-step i > 0, seed argument of the micro-step by index), the
  /// step's argument for it: only as many entries as there are seeds.
  llvm::DenseMap<std::pair<int64_t, unsigned>, Value> seeds;
  /// The running sums: the loss, then each weight's gradient.
  SmallVector<Value> sums;
};
} // namespace

void AccumulatedStepBuilder::setUpArguments() {
  // The micro-step may have gained a labels argument (loss=cross-entropy).
  for (unsigned i = function.getNumArguments(); i < micro.getNumArguments();
       ++i)
    (void)function.insertArgument(i, micro.getArgument(i).getType(),
                                  micro.getArgAttrDict(i),
                                  micro.getArgument(i).getLoc());
  for (BlockArgument argument : function.getArguments()) {
    if (!isSliced(function, argument.getArgNumber()))
      continue;
    auto type = cast<RankedTensorType>(argument.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= steps;
    argument.setType(type.clone(shape));
  }
  // A seed per random op and micro-step: micro-step i > 0 draws from
  // `micro<i>.<seed>`, after the forward's own seeds.
  Builder b(function.getContext());
  for (int64_t index = 1; index < steps; ++index)
    for (unsigned arg = 0; arg < micro.getNumArguments(); ++arg) {
      if (getArgumentRole(micro, arg) != ArgumentRole::Seed)
        continue;
      NamedAttrList attrs(micro.getArgAttrDict(arg));
      attrs.set(attr::kName,
                b.getStringAttr(getPrefix(index) +
                                getValueName(micro.getArgument(arg))));
      unsigned position = function.getNumArguments();
      (void)function.insertArgument(position, micro.getArgument(arg).getType(),
                                    attrs.getDictionary(b.getContext()),
                                    micro.getArgument(arg).getLoc());
      seeds[{index, arg}] = function.getArgument(position);
    }
  function.setType(builder.getFunctionType(
      function.getBody().front().getArgumentTypes(), {}));
}

/// The values micro-step `index` reads for the micro-step's arguments: its
/// slice of each input and label (that the micro-step reads), its seeds,
/// the running statistics the previous micro-step wrote, and the step's
/// arguments for the rest.
IRMapping AccumulatedStepBuilder::mapArguments(int64_t index,
                                               ArrayRef<Value> previousResults) {
  llvm::StringMap<Value> updated;
  if (index > 0)
    for (unsigned i = 1; i < micro.getNumResults(); ++i)
      if (auto name = micro.getResultAttrOfType<StringAttr>(i, attr::kUpdates))
        updated[name.getValue()] = previousResults[i];
  IRMapping mapping;
  for (BlockArgument argument : micro.getArguments()) {
    unsigned arg = argument.getArgNumber();
    Value value = function.getArgument(arg);
    if (isSliced(micro, arg) && !argument.use_empty()) {
      auto type = cast<RankedTensorType>(argument.getType());
      int64_t rows = type.getDimSize(0);
      auto slice = nn::SliceOp::create(builder, argument.getLoc(), type, value,
                                       0, index * rows, (index + 1) * rows, 1);
      setName(slice, getPrefix(index) + getValueName(argument) + ".slice",
              Phase::Forward);
      value = slice;
    } else if (Value seed = seeds.lookup({index, arg})) {
      value = seed;
    } else if (Value state = updated.lookup(getValueName(argument))) {
      value = state;
    }
    mapping.map(argument, value);
  }
  return mapping;
}

/// Clones the micro-step's body (its ops named with the micro-step's
/// prefix) and returns the values of its results.
SmallVector<Value> AccumulatedStepBuilder::cloneMicroStep(int64_t index,
                                                          IRMapping &mapping) {
  Block &body = micro.getBody().front();
  std::string prefix = getPrefix(index);
  for (Operation &op : body.without_terminator()) {
    Operation *clone = builder.clone(op, mapping);
    if (prefix.empty())
      continue;
    clone->setAttr(attr::kMicroStep, builder.getI64IntegerAttr(index));
    if (auto name = clone->getAttrOfType<StringAttr>(attr::kName)) {
      clone->setAttr(attr::kMicroOrigin, name);
      clone->setAttr(attr::kName,
                     builder.getStringAttr(prefix + name.getValue().str()));
    }
  }
  SmallVector<Value> results;
  for (Value result : body.getTerminator()->getOperands())
    results.push_back(mapping.lookup(result));
  return results;
}

/// `sum + next`, named `name`, right after the op that defines `next`, so
/// that the micro-step's gradient is freed as soon as it is complete.
Value AccumulatedStepBuilder::addAfter(Value sum, Value next,
                                       const std::string &name,
                                       Phase phase) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(next);
  auto add = nn::AddOp::create(builder, next.getLoc(), next.getType(), sum,
                               next);
  setName(add, name, phase);
  return add;
}

/// Adds micro-step `index`'s loss and gradients to the running sums (the
/// first micro-step starts them), as `.grad` accumulates in PyTorch:
/// g0 + g1, then + g2, ... A weight no gradient reaches keeps the first
/// micro-step's zeros; the later micro-steps' zeros are erased.
void AccumulatedStepBuilder::accumulate(int64_t index,
                                        ArrayRef<Value> results) {
  size_t weights = microStep.weights.size();
  ArrayRef<Value> gradients = results.take_back(weights);
  if (index == 0) {
    sums.push_back(results.front());
    sums.append(gradients.begin(), gradients.end());
    return;
  }
  std::string prefix = getPrefix(index);
  sums[0] = addAfter(sums[0], results.front(), prefix + "loss.sum",
                     Phase::Forward);
  for (size_t w = 0; w < weights; ++w) {
    if (!microStep.hasGradient[w]) {
      gradients[w].getDefiningOp()->erase();
      continue;
    }
    std::string name = getValueName(microStep.weights[w]);
    sums[w + 1] = addAfter(sums[w + 1], gradients[w],
                           prefix + name + ".grad_accumulate", Phase::Backward);
  }
}

GradientStep AccumulatedStepBuilder::build() {
  setUpArguments();
  Block &block = function.getBody().front();
  builder.setInsertionPointToEnd(&block);
  SmallVector<Value> results;
  for (int64_t index = 0; index < steps; ++index) {
    IRMapping mapping = mapArguments(index, results);
    results = cloneMicroStep(index, mapping);
    accumulate(index, results);
  }

  GradientStep step;
  step.ret = func::ReturnOp::create(builder, function.getLoc(), ValueRange{});
  step.results.add(sums[0], "loss");
  // The forward's other results (running statistics): the last micro-step's.
  size_t weights = microStep.weights.size();
  for (unsigned i = 1; i + weights < micro.getNumResults(); ++i) {
    auto name = micro.getResultAttrOfType<StringAttr>(i, attr::kName);
    auto updates = micro.getResultAttrOfType<StringAttr>(i, attr::kUpdates);
    step.results.add(results[i], name.str(), updates ? updates.str() : "");
  }
  for (BlockArgument weight : microStep.weights)
    step.weights.push_back(function.getArgument(weight.getArgNumber()));
  step.gradients.assign(sums.begin() + 1, sums.end());
  step.hasGradient = microStep.hasGradient;
  return step;
}

/// Removes every op of the function's body.
static void clearBody(func::FuncOp function) {
  Block &block = function.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    op.erase();
}

LogicalResult mlir::remat::buildAccumulatedStep(func::FuncOp function,
                                                const AutodiffOptions &options) {
  int64_t steps = options.accumulationSteps;
  // The micro-step: the forward with loss / K and its gradients as results.
  OwningOpRef<func::FuncOp> micro = function.clone();
  AutodiffOptions microOptions = options;
  microOptions.optimizer = "none";
  microOptions.accumulationSteps = 1;
  // A mean loss is scaled by 1/K so that the K micro-steps' gradients add
  // up to the whole batch's; K partial sums already do.
  int64_t lossDivisor = options.lossReduction == "sum" ? 1 : steps;
  FailureOr<GradientStep> microStep =
      buildGradients(*micro, microOptions, lossDivisor);
  if (failed(microStep) || failed(checkSlicedArguments(*micro, steps)))
    return failure();
  if (failed(finishStep(*micro, *microStep, microOptions)))
    return failure();

  clearBody(function);
  AccumulatedStepBuilder stepBuilder(function, *micro, *microStep, steps);
  GradientStep step = stepBuilder.build();
  return finishStep(function, step, options);
}
