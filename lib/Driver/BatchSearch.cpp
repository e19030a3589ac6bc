//===- BatchSearch.cpp - policies, budgets and the largest batch ----------===//

#include "remat/Driver/BatchSearch.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::remat;

/// The step's one function with a body.
static FailureOr<func::FuncOp> getStepFunction(ModuleOp step) {
  func::FuncOp found;
  for (auto function : step.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    if (found)
      return step.emitError("a training step has one function; this module "
                            "has several");
    found = function;
  }
  if (!found)
    return step.emitError("the module has no function");
  return found;
}

/// Marks every forward op for recomputation but the checkpoints, which are
/// kept: the schedule torch.utils.checkpoint runs around those values. In
/// an accumulated step a checkpoint also keeps its copy in every micro-step
/// (the op whose remat.micro_step says it repeats the checkpoint).
static LogicalResult markFunction(func::FuncOp function,
                                  ArrayRef<std::string> checkpoints) {
  llvm::StringSet<> wanted;
  for (const std::string &name : checkpoints)
    wanted.insert(name);
  llvm::StringSet<> found;
  for (Operation &op : function.getBody().front()) {
    auto name = op.getAttrOfType<StringAttr>(attr::kName);
    if (getPhase(&op) != Phase::Forward || !name)
      continue;
    bool keep = wanted.contains(name.getValue());
    if (keep)
      found.insert(name.getValue());
    llvm::StringRef original = getMicroStepOrigin(&op);
    if (!keep && !original.empty() && wanted.contains(original))
      keep = true;
    setPolicy(&op, keep ? OpPolicy::Keep : OpPolicy::Recompute);
  }
  for (const std::string &name : checkpoints)
    if (!found.contains(name))
      return function.emitError() << "no forward op is named '" << name
                                  << "' (a checkpoint of the policy)";
  return success();
}

LogicalResult mlir::remat::markCheckpoints(ModuleOp step,
                                           ArrayRef<std::string> checkpoints) {
  FailureOr<func::FuncOp> function = getStepFunction(step);
  if (failed(function))
    return failure();
  return markFunction(*function, checkpoints);
}

static int64_t getFlops(const ExtractedProblem &extracted,
                        const CostModel &costModel, ArrayRef<NodeId> steps) {
  int64_t flops = 0;
  for (NodeId node : steps)
    if (FailureOr<OpCost> cost = costModel.getCost(extracted.ops[node]);
        succeeded(cost))
      flops += cost->flops;
  return flops;
}

/// Plans the step's function (a copy, when the policy marks it).
static FailureOr<std::pair<ExtractedProblem, RematPlan>>
planPolicy(ModuleOp step, const Policy &policy, int64_t budgetBytes,
           const CostModel &costModel, const RematOptions &base,
           OwningOpRef<ModuleOp> &copy) {
  ModuleOp target = step;
  if (!policy.checkpoints.empty()) {
    copy = step.clone();
    target = *copy;
  }
  FailureOr<func::FuncOp> function = getStepFunction(target);
  if (failed(function))
    return failure();
  if (!policy.checkpoints.empty() &&
      failed(markFunction(*function, policy.checkpoints)))
    return failure();
  FailureOr<ExtractedProblem> extracted =
      extractRematProblem(*function, costModel);
  if (failed(extracted))
    return failure();
  RematOptions options = base;
  options.budget = ByteSize::fromBytes(budgetBytes);
  options.solver = policy.checkpoints.empty() ? policy.solver
                                              : SolverSpec(SolverKind::Marks);
  options.strict = false;
  // The search asks only whether a batch fits.
  options.lowerBound = false;
  FailureOr<RematPlan> plan =
      planRematerialization(*function, *extracted, options);
  if (failed(plan))
    return failure();
  return std::make_pair(std::move(*extracted), std::move(*plan));
}

FailureOr<PolicyEvaluation>
mlir::remat::evaluatePolicy(ModuleOp step, const Policy &policy,
                            int64_t budgetBytes, const CostModel &costModel,
                            const RematOptions &options) {
  OwningOpRef<ModuleOp> copy;
  auto planned =
      planPolicy(step, policy, budgetBytes, costModel, options, copy);
  if (failed(planned))
    return failure();
  const auto &[extracted, plan] = *planned;
  PolicyEvaluation evaluation;
  evaluation.fits = plan.meetsBudget;
  evaluation.bytes = extracted.problem.argumentBytes + plan.arenaBytes;
  evaluation.peakBytes = plan.result.simulation.peakBytes;
  evaluation.peakBytesBefore = plan.peakBytesBefore;
  evaluation.solver = plan.result.solver;
  evaluation.status = stringifySolveStatus(plan.result.status);
  if (plan.result.status == SolveStatus::NotApplicable)
    evaluation.notApplicable = plan.result.message;
  evaluation.seconds = plan.result.simulation.cost;
  evaluation.secondsBefore = plan.costBefore;
  if (plan.costBefore > 0)
    evaluation.extraTime = plan.result.simulation.cost / plan.costBefore - 1.0;
  std::vector<NodeId> once;
  for (NodeId node = 0; node < NodeId(extracted.problem.nodes.size()); ++node)
    once.push_back(node);
  int64_t flopsBefore = getFlops(extracted, costModel, once);
  int64_t flopsAfter =
      getFlops(extracted, costModel, plan.result.schedule.steps);
  if (flopsBefore > 0)
    evaluation.extraFlops = double(flopsAfter) / double(flopsBefore) - 1.0;
  return evaluation;
}

namespace {
/// Evaluates one policy at the batches a search asks for, each once.
class BatchEvaluator {
public:
  BatchEvaluator(TrainingStepBuilder &steps, const Policy &policy,
                 int64_t budgetBytes, const CostModel &costModel,
                 const std::function<void(const std::string &)> &progress,
                 const RematOptions &options)
      : steps(steps), policy(policy), budgetBytes(budgetBytes),
        costModel(costModel), progress(progress), options(options) {}

  FailureOr<PolicyEvaluation> evaluate(int64_t batch) {
    auto known = evaluations.find(batch);
    if (known != evaluations.end())
      return known->second;
    FailureOr<ModuleOp> step = steps.getStep(batch);
    if (failed(step))
      return failure();
    FailureOr<PolicyEvaluation> evaluation =
        evaluatePolicy(*step, policy, budgetBytes, costModel, options);
    if (failed(evaluation))
      return failure();
    if (progress && !evaluation->notApplicable.empty())
      progress(policy.label + ": batch " + std::to_string(batch) +
               " does not apply: " + evaluation->notApplicable);
    else if (progress)
      progress(policy.label + ": batch " + std::to_string(batch) +
               (evaluation->fits ? " fits" : " does not fit") + " (" +
               std::to_string(evaluation->bytes) + " bytes" +
               (evaluation->fits
                    ? ", " + formatExtraTime(evaluation->extraTime) + " time"
                    : "") +
               ")");
    evaluations[batch] = *evaluation;
    return *evaluation;
  }

private:
  static std::string formatExtraTime(double extraTime) {
    std::string text;
    llvm::raw_string_ostream(text)
        << llvm::format("%+.1f%%", 100.0 * extraTime);
    return text;
  }

  TrainingStepBuilder &steps;
  const Policy &policy;
  int64_t budgetBytes;
  const CostModel &costModel;
  const std::function<void(const std::string &)> &progress;
  const RematOptions &options;
  std::map<int64_t, PolicyEvaluation> evaluations;
};

/// The answer of one search.
struct LargestBatch {
  /// 0: not even batch 1 is accepted.
  int64_t batch = 0;
  bool capped = false;
  /// At `batch`, or at batch 1 when none is accepted.
  PolicyEvaluation evaluation;
};
} // namespace

/// The largest batch in [1, maxBatch] that `accept`s its evaluation, by
/// doubling and then bisection (acceptance is taken to be monotone).
static FailureOr<LargestBatch>
searchLargestBatch(BatchEvaluator &evaluator, int64_t maxBatch,
                   function_ref<bool(const PolicyEvaluation &)> accept) {
  LargestBatch result;
  FailureOr<PolicyEvaluation> first = evaluator.evaluate(1);
  if (failed(first))
    return failure();
  result.evaluation = *first;
  if (!accept(*first))
    return result;
  // Double while accepted, then bisect between the last batch accepted and
  // the first that is not.
  int64_t good = 1, bad = 0;
  auto tryBatch = [&](int64_t batch) -> LogicalResult {
    FailureOr<PolicyEvaluation> evaluation = evaluator.evaluate(batch);
    if (failed(evaluation))
      return failure();
    if (accept(*evaluation)) {
      good = batch;
      result.evaluation = *evaluation;
    } else {
      bad = batch;
    }
    return success();
  };
  while (!bad) {
    int64_t next = good > maxBatch / 2 ? maxBatch : good * 2;
    if (next <= good) {
      result.capped = true;
      break;
    }
    if (failed(tryBatch(next)))
      return failure();
  }
  while (bad && bad - good > 1)
    if (failed(tryBatch(good + (bad - good) / 2)))
      return failure();
  result.batch = good;
  return result;
}

/// The largest batch in [1, top] that `accept`s its evaluation, searched
/// down from `top`: top, top - 1, top - 2, top - 4, ... until one is
/// accepted, then bisection between it and the smallest rejected above it.
/// Acceptance need only be monotone near the answer, not down to batch 1.
static FailureOr<LargestBatch>
searchDownFrom(BatchEvaluator &evaluator, int64_t top,
               function_ref<bool(const PolicyEvaluation &)> accept) {
  LargestBatch result;
  int64_t rejected = top + 1, accepted = 0;
  for (int64_t step = 0; !accepted;) {
    int64_t batch = std::max<int64_t>(1, top - step);
    FailureOr<PolicyEvaluation> evaluation = evaluator.evaluate(batch);
    if (failed(evaluation))
      return failure();
    if (accept(*evaluation)) {
      accepted = batch;
      result.evaluation = *evaluation;
    } else {
      rejected = batch;
      if (batch == 1) {
        result.evaluation = *evaluation;
        return result;
      }
    }
    step = step ? step * 2 : 1;
  }
  while (rejected - accepted > 1) {
    int64_t middle = accepted + (rejected - accepted) / 2;
    FailureOr<PolicyEvaluation> evaluation = evaluator.evaluate(middle);
    if (failed(evaluation))
      return failure();
    if (accept(*evaluation)) {
      accepted = middle;
      result.evaluation = *evaluation;
    } else {
      rejected = middle;
    }
  }
  result.batch = accepted;
  return result;
}

static bool fits(const PolicyEvaluation &evaluation) {
  return evaluation.fits;
}

/// The search of findMaxBatch, with `evaluator`.
static FailureOr<MaxBatchResult> findMaxBatchWith(BatchEvaluator &evaluator,
                                                  const Policy &policy,
                                                  int64_t maxBatch) {
  FailureOr<LargestBatch> largest =
      searchLargestBatch(evaluator, maxBatch, fits);
  if (failed(largest))
    return failure();
  MaxBatchResult result;
  result.policy = policy;
  result.batch = largest->batch;
  result.capped = largest->capped;
  result.evaluation = largest->evaluation;
  return result;
}

FailureOr<MaxBatchResult> mlir::remat::findMaxBatch(
    TrainingStepBuilder &steps, const Policy &policy, int64_t budgetBytes,
    const CostModel &costModel, int64_t maxBatch,
    const std::function<void(const std::string &)> &progress,
    const RematOptions &options) {
  BatchEvaluator evaluator(steps, policy, budgetBytes, costModel, progress,
                           options);
  return findMaxBatchWith(evaluator, policy, maxBatch);
}

FailureOr<MaxBatchResult> mlir::remat::findMaxBatchWithinOverhead(
    TrainingStepBuilder &steps, const Policy &policy, int64_t budgetBytes,
    const CostModel &costModel, int64_t maxBatch, double maxOverhead,
    const std::function<void(const std::string &)> &progress,
    const RematOptions &options) {
  BatchEvaluator evaluator(steps, policy, budgetBytes, costModel, progress,
                           options);
  FailureOr<MaxBatchResult> result =
      findMaxBatchWith(evaluator, policy, maxBatch);
  if (failed(result) || result->batch == 0)
    return result;
  // Summing the same costs in another order is not extra time.
  constexpr double kTolerance = 1e-9;
  auto within = [&](const PolicyEvaluation &evaluation) {
    return evaluation.fits && evaluation.extraTime <= maxOverhead + kTolerance;
  };
  FailureOr<LargestBatch> largest =
      searchDownFrom(evaluator, result->batch, within);
  if (failed(largest))
    return failure();
  result->batchWithinOverhead = largest->batch;
  result->evaluationWithinOverhead = largest->evaluation;
  return result;
}

double mlir::remat::getSamplesPerSecond(int64_t batch,
                                        const PolicyEvaluation &evaluation) {
  if (batch <= 0 || evaluation.seconds <= 0.0)
    return 0.0;
  return static_cast<double>(batch) / evaluation.seconds;
}

FailureOr<std::vector<SweepPoint>>
mlir::remat::sweepBudgets(ModuleOp step, const Policy &policy, int points,
                          const CostModel &costModel,
                          const RematOptions &options) {
  // The range: from the lower bound to the bytes the step needs as given.
  Policy none{"none", SolverSpec(SolverKind::None), {}};
  OwningOpRef<ModuleOp> copy;
  auto baseline = planPolicy(step, none, int64_t(1) << 62, costModel, options,
                             copy);
  if (failed(baseline))
    return failure();
  int64_t low = baseline->first.problem.getPeakLowerBound();
  int64_t high =
      baseline->first.problem.argumentBytes + baseline->second.arenaBytes;
  std::vector<SweepPoint> sweep;
  for (int i = 0; i < points; ++i) {
    double fraction = points == 1 ? 1.0 : double(i) / double(points - 1);
    int64_t budget = high - int64_t(std::llround(fraction * double(high - low)));
    FailureOr<PolicyEvaluation> evaluation =
        evaluatePolicy(step, policy, budget, costModel, options);
    if (failed(evaluation))
      return failure();
    sweep.push_back({budget, *evaluation});
  }
  return sweep;
}
