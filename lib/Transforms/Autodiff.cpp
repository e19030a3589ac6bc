//===- Autodiff.cpp - the training step from a forward function -----------===//
//
// The remat-autodiff pass: adds the loss, finds the ops between the weights
// and the loss, builds their gradients in reverse order from each op's rule,
// and hands the weights' gradients to the optimizer update
// (OptimizerUpdate.cpp).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Autodiff.h"

#include "Accumulate.h"

#include "remat/Analysis/PeakMemory.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/GradientOpInterface.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::remat;

namespace mlir::remat {
#define GEN_PASS_DEF_REMATAUTODIFFPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace mlir::remat

static void setName(Operation *op, llvm::StringRef name, Phase phase) {
  op->setAttr(attr::kName, StringAttr::get(op->getContext(), name));
  setPhase(op, phase);
}

static bool isFloatTensor(Type type, int64_t rank) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == rank &&
         isa<FloatType>(tensor.getElementType());
}

//===----------------------------------------------------------------------===//
// The loss
//===----------------------------------------------------------------------===//

/// The labels argument for a cross entropy over `logits`: the one argument
/// with role `label`, or a new one.
static FailureOr<Value> getLabels(func::FuncOp function, Value logits) {
  Value labels;
  for (BlockArgument argument : function.getArguments()) {
    if (getArgumentRole(function, argument.getArgNumber()) !=
        ArgumentRole::Label)
      continue;
    if (labels)
      return emitFunctionError(function)
             << "has several arguments with role 'label'; loss=cross-entropy "
                "needs one";
    labels = argument;
  }
  if (labels)
    return labels;
  Builder b(function.getContext());
  // One label per sample, or per position of [N, C, d1, ...] logits.
  SmallVector<int64_t> shape(
      cast<RankedTensorType>(logits.getType()).getShape());
  shape.erase(shape.begin() + 1);
  auto type = RankedTensorType::get(shape, b.getI64Type());
  unsigned index = function.getNumArguments();
  if (failed(function.insertArgument(index, type,
                                     getArgumentAttributes(b.getContext(),
                                                           "labels",
                                                           ArgumentRole::Label),
                                     function.getLoc())))
    return failure();
  return Value(function.getArgument(index));
}

/// The scalar loss the backward pass starts from.
static FailureOr<Value> buildLoss(func::FuncOp function, func::ReturnOp ret,
                                  llvm::StringRef loss) {
  if (ret.getNumOperands() == 0)
    return emitFunctionError(function)
           << "returns nothing; remat-autodiff needs the loss (or, with "
              "loss=cross-entropy, the logits) as the first result";
  Value first = ret.getOperand(0);
  if (loss == "none") {
    if (!isFloatTensor(first.getType(), 0))
      return emitFunctionError(function)
             << "returns no scalar loss: its first result is " << first.getType()
             << "; return a 0-d float tensor, or pass loss=cross-entropy for "
                "logits";
    return first;
  }
  auto logits = dyn_cast<RankedTensorType>(first.getType());
  if (!logits || logits.getRank() < 2 ||
      !isa<FloatType>(logits.getElementType()))
    return emitFunctionError(function)
           << "loss=cross-entropy needs float logits [N, C] (or [N, C, d1, "
              "...], as F.cross_entropy) as the first result, not "
           << first.getType();
  FailureOr<Value> labels = getLabels(function, first);
  if (failed(labels))
    return failure();
  OpBuilder b(ret);
  // bf16 or f16 logits (a model under torch.autocast): the loss computes in
  // f32, as autocast runs cross entropy.
  if (logits.getElementType().getIntOrFloatBitWidth() < 32) {
    auto convert = nn::ConvertOp::create(b, ret.getLoc(),
                                         logits.clone(b.getF32Type()), first);
    setName(convert, "loss.logits", Phase::Forward);
    first = convert.getResult();
  }
  auto elementType = cast<RankedTensorType>(first.getType()).getElementType();
  auto crossEntropy = nn::CrossEntropyOp::create(
      b, ret.getLoc(), RankedTensorType::get({}, elementType), first, *labels);
  setName(crossEntropy, "loss", Phase::Forward);
  return crossEntropy.getResult();
}

//===----------------------------------------------------------------------===//
// The backward pass
//===----------------------------------------------------------------------===//

namespace {
/// Builds the backward pass of one function before its return.
class BackwardBuilder {
public:
  BackwardBuilder(func::FuncOp function, func::ReturnOp ret)
      : function(function), builder(ret) {}

  LogicalResult run(Value loss, ArrayRef<BlockArgument> weights);
  Value getGradient(Value value) const { return gradients.lookup(value); }

private:
  void findActive(Value loss, ArrayRef<BlockArgument> weights,
                  ArrayRef<Operation *> ops);
  LogicalResult differentiate(Operation *op);
  void accumulate(Value value, Value gradient);

  func::FuncOp function;
  OpBuilder builder;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> gradients;
};
} // namespace

static bool isDifferentiableOperand(Operation *op, unsigned index) {
  if (auto rule = dyn_cast<GradientOpInterface>(op))
    return rule.isDifferentiableOperand(index);
  return isa<FloatType>(getElementTypeOrSelf(op->getOperand(index).getType()));
}

/// Active values lie between a weight and the loss: they depend on a weight
/// through differentiable operands, and the loss depends on them.
void BackwardBuilder::findActive(Value loss, ArrayRef<BlockArgument> weights,
                                 ArrayRef<Operation *> ops) {
  llvm::DenseSet<Value> varied(weights.begin(), weights.end());
  for (Operation *op : ops) {
    bool fromWeight = false;
    for (auto [index, operand] : llvm::enumerate(op->getOperands()))
      fromWeight |= varied.contains(operand) &&
                    isDifferentiableOperand(op, index);
    if (fromWeight)
      varied.insert(op->result_begin(), op->result_end());
  }
  llvm::DenseSet<Value> useful{loss};
  for (Operation *op : llvm::reverse(ops))
    if (llvm::any_of(op->getResults(),
                     [&](Value result) { return useful.contains(result); }))
      useful.insert(op->operand_begin(), op->operand_end());
  for (Value value : varied)
    if (useful.contains(value))
      active.insert(value);
}

void BackwardBuilder::accumulate(Value value, Value gradient) {
  Value &slot = gradients[value];
  if (!slot) {
    slot = gradient;
    return;
  }
  auto sum = nn::AddOp::create(builder, gradient.getLoc(), gradient.getType(),
                               slot, gradient);
  setName(sum, getValueName(value) + ".grad_sum", Phase::Backward);
  slot = sum;
}

LogicalResult BackwardBuilder::differentiate(Operation *op) {
  SmallVector<Value> resultGradients;
  for (Value result : op->getResults())
    resultGradients.push_back(gradients.lookup(result));
  if (llvm::all_of(resultGradients, [](Value g) { return !g; }))
    return success();
  SmallVector<bool> needed;
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    needed.push_back(active.contains(operand) &&
                     isDifferentiableOperand(op, index));
  if (llvm::none_of(needed, [](bool n) { return n; }))
    return success();
  auto rule = dyn_cast<GradientOpInterface>(op);
  if (!rule)
    return emitOpError(op) << "has no gradient rule, and it lies between "
                              "the weights and the loss";
  auto tag = [op](Operation *backward, StringRef suffix) {
    tagBackwardOp(backward, op, suffix);
  };
  GradientBuilder gradientBuilder(builder, op, tag);
  SmallVector<Value> operandGradients(op->getNumOperands());
  if (failed(rule.buildGradients(gradientBuilder, resultGradients, needed,
                                 operandGradients)))
    return failure();
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (needed[index] && operandGradients[index])
      accumulate(operand, operandGradients[index]);
  return success();
}

LogicalResult BackwardBuilder::run(Value loss, ArrayRef<BlockArgument> weights) {
  SmallVector<Operation *> ops;
  for (Operation &op : function.getBody().front().without_terminator())
    ops.push_back(&op);
  findActive(loss, weights, ops);

  auto seed = nn::FullOp::create(builder, loss.getLoc(), loss.getType(),
                                 builder.getF64FloatAttr(1.0));
  setName(seed, getValueName(loss) + ".grad_seed", Phase::Backward);
  gradients[loss] = seed;
  for (Operation *op : llvm::reverse(ops))
    if (failed(differentiate(op)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// The whole rewrite
//===----------------------------------------------------------------------===//

static LogicalResult checkForward(func::FuncOp function) {
  for (Operation &op : function.getBody().front()) {
    std::optional<Phase> phase = getPhase(&op);
    if (phase && *phase != Phase::Forward)
      return emitOpError(&op) << "is already in the '" << stringifyPhase(*phase)
                            << "' phase; remat-autodiff takes a forward "
                               "function";
  }
  return success();
}

static FailureOr<SmallVector<BlockArgument>> getWeights(func::FuncOp function) {
  SmallVector<BlockArgument> weights;
  for (BlockArgument argument : function.getArguments()) {
    if (getArgumentRole(function, argument.getArgNumber()) !=
        ArgumentRole::Weight)
      continue;
    if (!isa<FloatType>(getElementTypeOrSelf(argument.getType())))
      return emitFunctionError(function)
             << "argument '" << getValueName(argument)
             << "' has role 'weight' but type " << argument.getType()
             << ", which cannot be differentiated";
    weights.push_back(argument);
  }
  if (weights.empty())
    return emitFunctionError(function)
           << "has no argument with role 'weight' to differentiate";
  return weights;
}

/// Gives every backward and update op a name no other op has.
static void uniquifyNames(func::FuncOp function) {
  llvm::StringSet<> used;
  for (BlockArgument argument : function.getArguments())
    used.insert(getValueName(argument));
  for (Operation &op : function.getBody().front()) {
    auto name = op.getAttrOfType<StringAttr>(attr::kName);
    if (!name)
      continue;
    std::string unique = name.str();
    for (int k = 2; used.contains(unique); ++k)
      unique = name.str() + "." + std::to_string(k);
    used.insert(unique);
    if (unique != name.getValue())
      op.setAttr(attr::kName, StringAttr::get(op.getContext(), unique));
  }
}

//===----------------------------------------------------------------------===//
// Update placement
//===----------------------------------------------------------------------===//

/// The last op of `block`, other than `update` and the terminator, that
/// reads the old value of `weight`: the argument itself or a view of it,
/// transitively. Null when there is none.
static Operation *findLastRead(Block &block, BlockArgument weight,
                               Operation *update) {
  SmallVector<Value> values{weight};
  Operation *last = nullptr;
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *reader = block.findAncestorOpInBlock(*use.getOwner());
      if (!reader || reader == update ||
          reader->hasTrait<OpTrait::IsTerminator>())
        continue;
      if (isa<ViewLikeOpInterface>(reader))
        values.append(reader->result_begin(), reader->result_end());
      if (!last || last->isBeforeInBlock(reader))
        last = reader;
    }
  }
  return last;
}

/// Moves each weight's update op (built after the whole backward) to right
/// after the later of its gradient's defining op (the gradient's last
/// contribution) and the last read of the weight's old value; updates with
/// the same anchor keep the weights' order. Adam's step increment goes
/// right before the first update. Only the order changes: the same ops
/// compute the same values.
static void interleaveUpdates(Block &block, ArrayRef<BlockArgument> weights,
                              ArrayRef<Value> gradients,
                              ArrayRef<Operation *> updateOps,
                              Operation *stepIncrement) {
  SmallVector<Operation *> anchors;
  for (auto [weight, gradient, update] :
       llvm::zip_equal(weights, gradients, updateOps)) {
    Operation *anchor = block.findAncestorOpInBlock(*gradient.getDefiningOp());
    if (Operation *read = findLastRead(block, weight, update))
      if (!anchor || anchor->isBeforeInBlock(read))
        anchor = read;
    anchors.push_back(anchor);
  }
  llvm::DenseMap<Operation *, Operation *> lastPlaced;
  for (auto [anchor, update] : llvm::zip_equal(anchors, updateOps)) {
    if (!anchor)
      continue; // stays after the backward
    Operation *&after = lastPlaced[anchor];
    update->moveAfter(after ? after : anchor);
    after = update;
  }
  if (!stepIncrement)
    return;
  Operation *first = nullptr;
  for (Operation *update : updateOps)
    if (!first || update->isBeforeInBlock(first))
      first = update;
  stepIncrement->moveBefore(first);
}

/// The weights' gradients, a zero tensor (`<weight>.grad_zero`) for a weight
/// no gradient reaches.
static void collectWeightGradients(const BackwardBuilder &backward,
                                   OpBuilder &builder, GradientStep &step) {
  for (BlockArgument weight : step.weights) {
    Value gradient = backward.getGradient(weight);
    step.hasGradient.push_back(bool(gradient));
    if (!gradient) {
      auto zero = nn::FullOp::create(builder, weight.getLoc(), weight.getType(),
                                     builder.getF64FloatAttr(0.0));
      setName(zero, getValueName(weight) + ".grad_zero", Phase::Backward);
      gradient = zero;
    }
    step.gradients.push_back(gradient);
  }
}

FailureOr<GradientStep>
mlir::remat::buildGradients(func::FuncOp function,
                            const AutodiffOptions &options,
                            int64_t lossDivisor) {
  GradientStep step;
  step.ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
  FailureOr<SmallVector<BlockArgument>> weights = getWeights(function);
  if (failed(weights))
    return failure();
  step.weights = std::move(*weights);
  FailureOr<Value> loss = buildLoss(function, step.ret, options.loss);
  if (failed(loss))
    return failure();
  Value scaled = *loss;
  if (lossDivisor != 1) {
    // PyTorch's accumulation loop: loss = criterion(...) / k.
    OpBuilder b(step.ret);
    auto divide = nn::DivScalarOp::create(
        b, step.ret.getLoc(), loss->getType(), *loss,
        b.getF64FloatAttr(double(lossDivisor)));
    setName(divide, "loss.scaled", Phase::Forward);
    scaled = divide;
  }

  BackwardBuilder backward(function, step.ret);
  if (failed(backward.run(scaled, step.weights)))
    return failure();

  step.results.add(scaled, "loss");
  for (unsigned i = 1; i < step.ret.getNumOperands(); ++i) {
    auto name = function.getResultAttrOfType<StringAttr>(i, attr::kName);
    auto updates = function.getResultAttrOfType<StringAttr>(i, attr::kUpdates);
    step.results.add(step.ret.getOperand(i),
                     name ? name.str() : "result." + std::to_string(i),
                     updates ? updates.str() : "");
  }
  OpBuilder builder(step.ret);
  collectWeightGradients(backward, builder, step);
  return step;
}

LogicalResult mlir::remat::finishStep(func::FuncOp function, GradientStep &step,
                                      const AutodiffOptions &options) {
  OpBuilder builder(step.ret);
  SmallVector<Operation *> updateOps;
  Operation *stepIncrement = nullptr;
  if (failed(appendOptimizerUpdate(function, builder, step.weights,
                                   step.gradients, options, step.results,
                                   updateOps, stepIncrement)))
    return failure();
  step.results.replaceReturn(function, step.ret);
  step.ret = nullptr;
  uniquifyNames(function);
  if (options.updatePlacement == "interleaved" && !updateOps.empty())
    interleaveUpdates(function.getBody().front(), step.weights, step.gradients,
                      updateOps, stepIncrement);
  return success();
}

std::optional<std::string>
mlir::remat::findInvalidOptimizerValue(const AutodiffOptions &options) {
  struct Value {
    const char *key;
    double value;
    bool belowOne; ///< a probability: in [0, 1)
  };
  std::vector<Value> values;
  if (options.optimizer == "sgd")
    values = {{"lr", options.lr, false},
              {"momentum", options.momentum, false},
              {"weight-decay", options.weightDecay, false}};
  else if (options.optimizer == "adam" || options.optimizer == "adamw")
    values = {{"lr", options.lr, false},
              {"weight-decay", options.weightDecay, false},
              {"beta1", options.beta1, true},
              {"beta2", options.beta2, true},
              {"eps", options.eps, false}};
  for (const Value &value : values) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << value.key << "=" << llvm::format("%g", value.value);
    if (!std::isfinite(value.value))
      return text + " is not a finite number";
    if (value.value < 0.0)
      return text + " must not be negative";
    if (value.belowOne && value.value >= 1.0)
      return text + " must be below 1";
  }
  return std::nullopt;
}

static LogicalResult checkOptions(func::FuncOp function,
                                  const AutodiffOptions &options) {
  if (std::optional<std::string> invalid = findInvalidOptimizerValue(options))
    return emitFunctionError(function) << "optimizer option " << *invalid;
  if (options.loss != "none" && options.loss != "cross-entropy")
    return emitFunctionError(function) << "unknown loss '" << options.loss
                                << "' (none or cross-entropy)";
  if (options.optimizer != "none" && options.optimizer != "sgd" &&
      options.optimizer != "adam" && options.optimizer != "adamw")
    return emitFunctionError(function)
           << "unknown optimizer '" << options.optimizer
           << "' (none, sgd, adam or adamw)";
  if (options.lossReduction != "mean" && options.lossReduction != "sum")
    return emitFunctionError(function)
           << "unknown loss reduction '" << options.lossReduction
           << "' (mean or sum)";
  if (options.loss == "cross-entropy" && options.lossReduction != "mean")
    return emitFunctionError(function)
           << "loss=cross-entropy is a mean over the batch: "
              "loss-reduction=sum applies to a model's own loss (loss=none)";
  if (options.updatePlacement != "interleaved" &&
      options.updatePlacement != "end")
    return emitFunctionError(function)
           << "unknown update placement '" << options.updatePlacement
           << "' (interleaved or end)";
  if (options.accumulationSteps < 1)
    return emitFunctionError(function)
           << "accumulation-steps must be at least 1, not "
           << options.accumulationSteps;
  if (options.accumulationSteps > kMaxAccumulationSteps)
    return emitFunctionError(function)
           << "accumulation-steps=" << options.accumulationSteps
           << " is more than " << kMaxAccumulationSteps
           << ", the most this pass builds (the step holds a copy of the "
              "micro-step per accumulation step)";
  return success();
}

LogicalResult mlir::remat::differentiateFunction(func::FuncOp function,
                                                 const AutodiffOptions &options) {
  if (failed(checkOptions(function, options)) || failed(checkForward(function)))
    return failure();
  eraseMemoryPlan(function);
  if (options.accumulationSteps > 1)
    return buildAccumulatedStep(function, options);
  FailureOr<GradientStep> step = buildGradients(function, options, 1);
  if (failed(step))
    return failure();
  return finishStep(function, *step, options);
}

namespace {
struct RematAutodiffPass
    : public remat::impl::RematAutodiffPassBase<RematAutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    AutodiffOptions options;
    options.loss = loss;
    options.lossReduction = lossReduction;
    options.optimizer = optimizer;
    options.lr = lr;
    options.momentum = momentum;
    options.weightDecay = weightDecay;
    options.beta1 = beta1;
    options.beta2 = beta2;
    options.eps = eps;
    options.updatePlacement = updatePlacement;
    options.accumulationSteps = accumulationSteps;
    // Every func.func with a body, nested modules included (the only
    // function op among remat's dialects).
    SmallVector<func::FuncOp> functions;
    getOperation().walk([&](func::FuncOp function) {
      if (!function.isExternal())
        functions.push_back(function);
    });
    for (func::FuncOp function : functions)
      if (failed(differentiateFunction(function, options)))
        return signalPassFailure();
  }
};
} // namespace
