//===- Plan.cpp - the fastest way to train at a batch within a budget -----===//
//
// For each micro-batch m dividing the batch, builds the accumulated step
// (k = batch / m micro-steps, one optimizer update), evaluates the policies
// under the budget, keeps the cheapest that fits, and chooses the fastest.
// One step lives at a time: a step holds its model's weights.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/Plan.h"

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::remat;

llvm::StringRef
mlir::remat::stringifyBatchNormSemantics(BatchNormSemantics semantics) {
  return semantics == BatchNormSemantics::PerMicroBatch ? "per_micro_batch"
                                                        : "full_batch";
}

int64_t PlanResult::getSmallestBytes() const {
  int64_t smallest = INT64_MAX;
  for (const PlanCandidate &candidate : microBatches)
    if (candidate.skipped.empty() && candidate.evaluation.notApplicable.empty())
      smallest = std::min(smallest, candidate.evaluation.bytes);
  return smallest;
}

bool mlir::remat::hasBatchNorm(ModuleOp step) {
  return step.walk([](nn::BatchNormOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// `a` takes less time than `b`: the same costs summed in another order
/// (a schedule that only reorders) are not faster.
static bool isFaster(double a, double b) {
  return a < b - 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

/// The micro-batches dividing `batch` in at most `maxSteps` accumulation
/// steps, largest first: divisors found in pairs up to sqrt(batch).
static std::vector<int64_t> getMicroBatches(int64_t batch, int64_t maxSteps) {
  std::vector<int64_t> sizes;
  for (int64_t d = 1; d <= batch / d; ++d) {
    if (batch % d != 0)
      continue;
    // d steps of batch / d, and batch / d steps of d.
    if (d <= maxSteps)
      sizes.push_back(batch / d);
    if (d != batch / d && batch / d <= maxSteps)
      sizes.push_back(d);
  }
  llvm::sort(sizes, std::greater<int64_t>());
  return sizes;
}

static ModelSpec withAccumulation(const ModelSpec &spec, int64_t steps) {
  ModelSpec accumulated = spec;
  accumulated.autodiff.accumulationSteps = steps;
  return accumulated;
}

/// `none` first: when the step as given fits, no policy runs it faster.
static std::vector<Policy> orderPolicies(ArrayRef<Policy> policies) {
  std::vector<Policy> ordered;
  for (const Policy &policy : policies)
    if (policy.solver.getKind() == SolverKind::None)
      ordered.push_back(policy);
  for (const Policy &policy : policies)
    if (policy.solver.getKind() != SolverKind::None)
      ordered.push_back(policy);
  return ordered;
}

static std::string describeEvaluation(const PlanCandidate &candidate,
                                      const Policy &policy,
                                      const PolicyEvaluation &evaluation) {
  std::string prefix = "micro-batch " + std::to_string(candidate.microBatch) +
                       " x " + std::to_string(candidate.accumulationSteps) +
                       ": " + policy.label;
  if (!evaluation.notApplicable.empty())
    return prefix + " does not apply: " + evaluation.notApplicable;
  return prefix + (evaluation.fits ? " fits" : " does not fit") + " (" +
         std::to_string(evaluation.bytes) + " bytes)";
}

/// Of two evaluations that do not fit, whether `a` comes closer than `b`:
/// one that applies before one that does not, then fewer bytes.
static bool isCloser(const PolicyEvaluation &a, const PolicyEvaluation &b) {
  if (a.notApplicable.empty() != b.notApplicable.empty())
    return a.notApplicable.empty();
  return a.notApplicable.empty() && a.bytes < b.bytes;
}

/// Evaluates the policies on `step` for `candidate`: the cheapest that fits,
/// else the evaluation that comes closest (isCloser).
static LogicalResult evaluateMicroBatch(ModuleOp step,
                                        const PlanOptions &options,
                                        const CostModel &costModel,
                                        PlanCandidate &candidate) {
  bool evaluated = false;
  for (const Policy &policy : orderPolicies(options.policies)) {
    FailureOr<PolicyEvaluation> evaluation = evaluatePolicy(
        step, policy, options.budgetBytes, costModel, options.remat);
    if (failed(evaluation))
      return failure();
    if (options.progress)
      options.progress(describeEvaluation(candidate, policy, *evaluation));
    if (evaluation->fits) {
      if (!candidate.fits() ||
          isFaster(evaluation->seconds, candidate.evaluation.seconds)) {
        candidate.policy = policy;
        candidate.evaluation = *evaluation;
      }
      if (policy.solver.getKind() == SolverKind::None)
        break;
    } else if (!candidate.fits() &&
               (!evaluated || isCloser(*evaluation, candidate.evaluation))) {
      candidate.evaluation = *evaluation;
    }
    evaluated = true;
  }
  return success();
}

FailureOr<TorchScriptImport> mlir::remat::buildPlannedStep(
    const ModelSpec &spec, const PlanCandidate &candidate, MLIRContext *context,
    llvm::StringRef weightsPath, bool *returnsLoss) {
  return buildTrainingStep(withAccumulation(spec, candidate.accumulationSteps),
                           candidate.microBatch, context, weightsPath,
                           returnsLoss);
}

/// Builds the step of `candidate`; when it fails, sets `why` to the first
/// error the build emitted, with its location, instead of emitting it.
static FailureOr<TorchScriptImport>
buildOrExplain(const ModelSpec &spec, const PlanCandidate &candidate,
               MLIRContext *context, std::string &why) {
  std::string firstError;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        firstError.empty()) {
      llvm::raw_string_ostream os(firstError);
      if (auto file = diagnostic.getLocation()->findInstanceOf<FileLineColLoc>()) {
        os << file.getFilename().getValue();
        if (file.getLine() != 0)
          os << ":" << file.getLine() << ":" << file.getColumn();
        os << ": ";
      }
      os << diagnostic.str();
    }
    return success();
  });
  FailureOr<TorchScriptImport> step =
      buildPlannedStep(spec, candidate, context, "");
  if (failed(step))
    why = firstError.empty() ? "an error without a message" : firstError;
  return step;
}

FailureOr<PlanResult>
mlir::remat::planTrainingBatch(const ModelSpec &spec, MLIRContext *context,
                               const CostModel &costModel,
                               const PlanOptions &options) {
  PlanResult result;
  result.batch = options.batch;
  result.budgetBytes = options.budgetBytes;
  result.maxAccumulationSteps = options.maxAccumulationSteps;
  for (int64_t microBatch :
       getMicroBatches(options.batch, options.maxAccumulationSteps)) {
    PlanCandidate candidate;
    candidate.microBatch = microBatch;
    candidate.accumulationSteps = options.batch / microBatch;
    // The whole batch must build; a smaller micro-batch the model refuses
    // (PyTorch's batch norm on 1 value per channel) is skipped, saying why.
    bool wholeBatch = result.microBatches.empty();
    std::string why;
    FailureOr<TorchScriptImport> step =
        wholeBatch ? buildPlannedStep(spec, candidate, context, "",
                                      &result.modelReturnsLoss)
                   : buildOrExplain(spec, candidate, context, why);
    if (failed(step) && wholeBatch)
      return failure();
    if (failed(step)) {
      candidate.skipped = "the step does not build at this micro-batch: " + why;
      if (options.progress)
        options.progress("micro-batch " + std::to_string(microBatch) + " x " +
                         std::to_string(candidate.accumulationSteps) +
                         ": skipped, " + candidate.skipped);
      result.microBatches.push_back(std::move(candidate));
      continue;
    }
    if (candidate.accumulationSteps > 1 && hasBatchNorm(*step->module))
      candidate.batchNorm = BatchNormSemantics::PerMicroBatch;
    if (failed(
            evaluateMicroBatch(*step->module, options, costModel, candidate)))
      return failure();
    // The whole batch in one step as given: every policy's secondsBefore.
    if (candidate.accumulationSteps == 1)
      result.idealSeconds = candidate.evaluation.secondsBefore;
    result.microBatches.push_back(std::move(candidate));
  }
  for (size_t i = 0; i < result.microBatches.size(); ++i) {
    PlanCandidate &candidate = result.microBatches[i];
    if (!candidate.skipped.empty())
      continue;
    if (result.idealSeconds > 0)
      candidate.extraTime = candidate.getSeconds() / result.idealSeconds - 1.0;
    // Summing the same costs in another order is not extra time.
    if (std::fabs(candidate.extraTime) < 1e-9)
      candidate.extraTime = 0.0;
    if (!candidate.fits())
      continue;
    // Largest micro-batch first: a tie keeps fewer accumulation steps.
    if (!result.chosen ||
        isFaster(candidate.getSeconds(),
                 result.microBatches[*result.chosen].getSeconds()))
      result.chosen = i;
  }
  return result;
}
