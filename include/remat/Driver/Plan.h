//===- Plan.h - the fastest way to train at a batch in a budget -*- C++ -*-===//
//
// What `remat plan` answers, as a library call: for a training batch that
// may not fit the budget, every way of running it that the compiler knows -
// rematerialization, gradient accumulation over k micro-batches of m = batch
// / k samples, or both - with the cheapest schedule that fits per
// micro-batch, its bytes and its estimated time per step of the whole batch,
// and the fastest of them.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_PLAN_H
#define REMAT_DRIVER_PLAN_H

#include "remat/Driver/BatchSearch.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

/// The largest --batch plan takes (max-batch's default --max-batch).
constexpr int64_t kMaxPlanBatch = 65536;
/// The most accumulation steps plan tries by default.
constexpr int64_t kMaxPlanAccumulationSteps = 256;

/// What batch norm's statistics are over in a candidate's step.
enum class BatchNormSemantics {
  /// The whole batch (k = 1), or the model has no batch norm.
  FullBatch,
  /// Each micro-batch (k > 1 and the model has batch norm): not what one
  /// step over the whole batch computes.
  PerMicroBatch,
};

llvm::StringRef stringifyBatchNormSemantics(BatchNormSemantics semantics);

/// One micro-batch m dividing the batch, run in k = batch / m accumulation
/// steps.
struct PlanCandidate {
  int64_t microBatch = 0;
  int64_t accumulationSteps = 0;
  BatchNormSemantics batchNorm = BatchNormSemantics::FullBatch;
  /// Why the micro-batch was not evaluated (empty when it was): the step
  /// does not build there (batch norm over 1 value per channel, which
  /// PyTorch refuses to train), with the build's first error.
  std::string skipped;
  /// The cheapest policy whose schedule fits (when one does).
  std::optional<Policy> policy;
  /// That policy's evaluation; where nothing fits, the evaluation that came
  /// closest (fewest bytes).
  PolicyEvaluation evaluation;
  /// Extra estimated time over the ideal: the whole batch in one step
  /// without recomputation (which need not fit), as a fraction.
  double extraTime = 0.0;

  bool fits() const { return policy.has_value(); }
  /// Estimated seconds per step of the whole batch (all k micro-steps and
  /// the optimizer update).
  double getSeconds() const { return evaluation.seconds; }
};

struct PlanResult {
  int64_t batch = 0;
  int64_t budgetBytes = 0;
  /// The most accumulation steps tried (PlanOptions::maxAccumulationSteps).
  int64_t maxAccumulationSteps = 0;
  /// Estimated seconds of the whole-batch step (k = 1) as given, nothing
  /// recomputed: what `extraTime` is measured against.
  double idealSeconds = 0.0;
  /// Whether the model returns its own loss (a scalar): then accumulation
  /// scales it as ModelSpec's loss reduction says, which only the user
  /// knows (a mean or a sum over the batch).
  bool modelReturnsLoss = false;
  /// One per micro-batch dividing the batch, largest first (k = 1 first).
  std::vector<PlanCandidate> microBatches;
  /// Index into `microBatches` of the fastest that fits; none when nothing
  /// fits at any micro-batch.
  std::optional<size_t> chosen;

  /// The fewest bytes any schedule reached, at any micro-batch evaluated
  /// (INT64_MAX when every one was skipped or no policy applied).
  int64_t getSmallestBytes() const;
};

struct PlanOptions {
  /// The whole batch of one optimizer step.
  int64_t batch = 0;
  int64_t budgetBytes = 0;
  /// Tried in order per micro-batch; a `none` that fits ends the micro-batch
  /// (no schedule of the same step costs less than computing each op once).
  std::vector<Policy> policies;
  /// Micro-batches needing more accumulation steps are not tried: their step
  /// holds a copy of the micro-step per accumulation step.
  int64_t maxAccumulationSteps = kMaxPlanAccumulationSteps;
  /// Limits and fit-arena for every solve (its budget and solver are not
  /// read: `budgetBytes` and `policies` are).
  RematOptions remat;
  /// Hears of each micro-batch and policy evaluated.
  std::function<void(const std::string &)> progress;
};

/// Builds the step of `spec` at every micro-batch m dividing `options.batch`
/// in at most `options.maxAccumulationSteps` steps (accumulationSteps =
/// batch / m; buildTrainingStep imports at m), skips those whose batch norm
/// would see 1 value per channel,
/// evaluates the policies there under the budget on `costModel` and keeps per m
/// the one with the fewest estimated seconds that fits (ties: the earlier
/// policy); chooses the fastest micro-batch (ties: fewer accumulation steps).
/// Fails with an error when a step cannot be built or planned; a budget that
/// nothing fits is not a failure (`chosen` is empty).
FailureOr<PlanResult> planTrainingBatch(const ModelSpec &spec,
                                        MLIRContext *context,
                                        const CostModel &costModel,
                                        const PlanOptions &options);

/// The step `candidate` stands for, as planTrainingBatch built it, with its
/// weights recorded at `weightsPath`, not yet planned; sets `*returnsLoss`,
/// when given, as buildTrainingStep does.
FailureOr<TorchScriptImport> buildPlannedStep(const ModelSpec &spec,
                                              const PlanCandidate &candidate,
                                              MLIRContext *context,
                                              llvm::StringRef weightsPath,
                                              bool *returnsLoss = nullptr);

/// Whether `step` runs batch norm (nn.batch_norm).
bool hasBatchNorm(ModuleOp step);

} // namespace mlir::remat

#endif // REMAT_DRIVER_PLAN_H
