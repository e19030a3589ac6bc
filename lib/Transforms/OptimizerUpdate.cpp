//===- OptimizerUpdate.cpp - SGD and Adam updates of a training step ------===//

#include "OptimizerUpdate.h"

#include "remat/Analysis/PeakMemory.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::remat;

void StepResults::replaceReturn(func::FuncOp function, func::ReturnOp ret) {
  OpBuilder builder(ret);
  func::ReturnOp::create(builder, ret.getLoc(), values);
  ret.erase();
  function.setType(builder.getFunctionType(
      function.getArgumentTypes(), ValueRange(values).getTypes()));
  SmallVector<DictionaryAttr> attrs;
  for (auto [name, argument] : llvm::zip_equal(names, updated)) {
    NamedAttrList list;
    list.append(attr::kName, builder.getStringAttr(name));
    if (!argument.empty())
      list.append(attr::kUpdates, builder.getStringAttr(argument));
    attrs.push_back(list.getDictionary(builder.getContext()));
  }
  function.setAllResultAttrs(attrs);
}

/// Appends an argument named `name` with `role`.
static Value addArgument(func::FuncOp function, Type type,
                         const std::string &name, ArgumentRole role) {
  unsigned index = function.getNumArguments();
  (void)function.insertArgument(
      index, type, getArgumentAttributes(function.getContext(), name, role),
      function.getLoc());
  return function.getArgument(index);
}

static void tagUpdate(Operation *op, const std::string &name) {
  Builder b(op->getContext());
  op->setAttr(attr::kName, b.getStringAttr(name));
  setPhase(op, Phase::Update);
}

static void appendSgd(func::FuncOp function, OpBuilder &b,
                      ArrayRef<BlockArgument> weights,
                      ArrayRef<Value> gradients, const AutodiffOptions &options,
                      StepResults &results,
                      SmallVectorImpl<Operation *> &updateOps) {
  double lr = options.lr != 0.0 ? options.lr : 0.01;
  bool withMomentum = options.momentum != 0.0;
  for (auto [weight, gradient] : llvm::zip(weights, gradients)) {
    std::string name = getValueName(weight);
    Value buffer;
    SmallVector<Type> types{weight.getType()};
    if (withMomentum) {
      buffer = addArgument(function, weight.getType(),
                           name + ".momentum_buffer", ArgumentRole::OptState);
      types.push_back(weight.getType());
    }
    auto sgd = nn::SgdOp::create(
        b, weight.getLoc(), types, weight, gradient, buffer,
        b.getF64FloatAttr(lr), b.getF64FloatAttr(options.momentum),
        b.getF64FloatAttr(0.0), b.getF64FloatAttr(options.weightDecay),
        b.getBoolAttr(false));
    tagUpdate(sgd, name + ".sgd");
    updateOps.push_back(sgd);
    results.add(sgd.getNewParam(), name + ".new", name);
    if (withMomentum)
      results.add(sgd.getNewMomentumBuffer(), name + ".momentum_buffer.new",
                  getValueName(buffer));
  }
}

static void appendAdam(func::FuncOp function, OpBuilder &b,
                       ArrayRef<BlockArgument> weights,
                       ArrayRef<Value> gradients,
                       const AutodiffOptions &options, StepResults &results,
                       SmallVectorImpl<Operation *> &updateOps,
                       Operation *&stepIncrement) {
  double lr = options.lr != 0.0 ? options.lr : 1e-3;
  Value step = addArgument(function, RankedTensorType::get({}, b.getF32Type()),
                           "step", ArgumentRole::Step);
  // The step argument counts the steps taken; this one is step + 1.
  auto increment = nn::AddScalarOp::create(b, function.getLoc(), step,
                                           b.getF64FloatAttr(1.0));
  tagUpdate(increment, "step.increment");
  stepIncrement = increment;
  for (auto [weight, gradient] : llvm::zip(weights, gradients)) {
    std::string name = getValueName(weight);
    Value expAvg =
        addArgument(function, weight.getType(), name + ".exp_avg",
                    ArgumentRole::OptState);
    Value expAvgSq = addArgument(function, weight.getType(),
                                 name + ".exp_avg_sq", ArgumentRole::OptState);
    auto adam = nn::AdamOp::create(
        b, weight.getLoc(), weight, gradient, expAvg, expAvgSq, increment,
        b.getF64FloatAttr(lr), b.getF64FloatAttr(options.beta1),
        b.getF64FloatAttr(options.beta2), b.getF64FloatAttr(options.eps),
        b.getF64FloatAttr(options.weightDecay),
        b.getBoolAttr(options.optimizer == "adamw"));
    tagUpdate(adam, name + "." + options.optimizer);
    updateOps.push_back(adam);
    results.add(adam.getNewParam(), name + ".new", name);
    results.add(adam.getNewExpAvg(), name + ".exp_avg.new",
                getValueName(expAvg));
    results.add(adam.getNewExpAvgSq(), name + ".exp_avg_sq.new",
                getValueName(expAvgSq));
  }
  results.add(increment, "step.new", getValueName(step));
}

/// Checks that every hyperparameter the optimizer applies is finite and fits
/// the element type of every weight it updates (lr=1e300 overflows f32).
static LogicalResult checkHyperparameters(func::FuncOp function,
                                          ArrayRef<BlockArgument> weights,
                                          const AutodiffOptions &options) {
  SmallVector<std::pair<StringRef, double>> values;
  if (options.optimizer == "sgd")
    values = {{"lr", options.lr},
              {"momentum", options.momentum},
              {"weight-decay", options.weightDecay}};
  else if (options.optimizer == "adam" || options.optimizer == "adamw")
    values = {{"lr", options.lr},       {"beta1", options.beta1},
              {"beta2", options.beta2}, {"eps", options.eps},
              {"weight-decay", options.weightDecay}};
  for (auto [name, value] : values) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%g", value);
    if (!std::isfinite(value))
      return emitFunctionError(function)
             << "optimizer option " << name << "=" << text
             << " is not a finite number";
    for (BlockArgument weight : weights) {
      Type elementType = getElementTypeOrSelf(weight.getType());
      if (!nn::fitsElementType(value, elementType))
        return emitFunctionError(function)
               << "optimizer option " << name << "=" << text
               << " overflows the element type " << elementType
               << " of weight '" << getValueName(weight) << "'";
    }
  }
  return success();
}

LogicalResult mlir::remat::appendOptimizerUpdate(
    func::FuncOp function, OpBuilder &builder, ArrayRef<BlockArgument> weights,
    ArrayRef<Value> gradients, const AutodiffOptions &options,
    StepResults &results, SmallVectorImpl<Operation *> &updateOps,
    Operation *&stepIncrement) {
  stepIncrement = nullptr;
  if (failed(checkHyperparameters(function, weights, options)))
    return failure();
  if (options.optimizer == "sgd") {
    appendSgd(function, builder, weights, gradients, options, results,
              updateOps);
  } else if (options.optimizer == "adam" || options.optimizer == "adamw") {
    appendAdam(function, builder, weights, gradients, options, results,
               updateOps, stepIncrement);
  } else {
    for (auto [weight, gradient] : llvm::zip(weights, gradients))
      results.add(gradient, getValueName(weight) + ".grad");
  }
  return success();
}
