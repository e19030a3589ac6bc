//===- BatchSearch.h - policies, budgets and the largest batch --*- C++ -*-===//
//
// The questions the `remat` driver answers, as library calls: does a
// training step fit a byte budget under a policy (a solver, or the user's own
// checkpoints), what does it cost there, what is the largest batch that fits
// (and the largest within a limit on extra time), and how does the extra
// compute grow as the budget shrinks.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_BATCHSEARCH_H
#define REMAT_DRIVER_BATCHSEARCH_H

#include "remat/Analysis/CostModel.h"
#include "remat/Driver/TrainingStep.h"
#include "remat/Transforms/RematOptions.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::remat {

/// How a step is made to fit.
struct Policy {
  /// As shown in tables: "none", "checkpoints", "sqrt", "auto", ...
  std::string label;
  /// The solver (`none`, `segments=K`, `sqrt`, `heuristic`, `auto`, ...).
  SolverSpec solver;
  /// With `checkpoints`: the forward ops whose results are kept, as
  /// torch.utils.checkpoint keeps segment inputs; every other forward op is
  /// marked for recomputation and the `marks` solver runs.
  std::vector<std::string> checkpoints;
};

/// Marks the forward ops of `step` (its one function) for the `marks`
/// solver: the `checkpoints` keep their results, every other forward op is
/// recomputed. Fails with an error for a name no forward op has.
LogicalResult markCheckpoints(ModuleOp step, ArrayRef<std::string> checkpoints);

struct PolicyEvaluation {
  bool fits = false;
  /// Arguments + the planned arena.
  int64_t bytes = 0;
  /// The schedule's peak by the memory model, and the given order's.
  int64_t peakBytes = 0;
  int64_t peakBytesBefore = 0;
  /// Extra estimated time and extra FLOPs over the step without
  /// recomputation, as fractions.
  double extraTime = 0.0;
  double extraFlops = 0.0;
  /// The estimated cost of the schedule (recomputations included) and of
  /// the step as given, in the cost model's unit (seconds on a device
  /// profile).
  double seconds = 0.0;
  double secondsBefore = 0.0;
  std::string solver;
  std::string status;
  /// Why the policy's solver does not apply to the step (segments=K on a
  /// forward with fewer cut vertices); empty when it does. A policy that
  /// does not apply has no schedule: `fits` is false and `bytes` means
  /// nothing.
  std::string notApplicable;
};

/// Plans `step` (every function of it) under `budgetBytes` with `policy`;
/// the other rematerialization options (limits, fit-arena) from `options`.
/// Fails with an error for a checkpoint name no forward op has.
FailureOr<PolicyEvaluation> evaluatePolicy(ModuleOp step, const Policy &policy,
                                           int64_t budgetBytes,
                                           const CostModel &costModel,
                                           const RematOptions &options = {});

struct MaxBatchResult {
  Policy policy;
  /// The largest batch that fits (0: not even batch 1).
  int64_t batch = 0;
  /// `batch` is the search's cap (maxBatch) and fits: larger batches were
  /// not tried and may fit too.
  bool capped = false;
  /// At that batch, or at batch 1 when none fits.
  PolicyEvaluation evaluation;
  /// With a maximum overhead (findMaxBatchWithinOverhead): the largest
  /// batch that fits with extra time at most that (0: not even batch 1),
  /// and its evaluation (batch 1's when none).
  int64_t batchWithinOverhead = 0;
  PolicyEvaluation evaluationWithinOverhead;
};

/// The samples per estimated second of a step of `batch` samples that
/// `evaluation` estimates (PolicyEvaluation::seconds); 0 when there is no
/// batch or no estimate.
double getSamplesPerSecond(int64_t batch, const PolicyEvaluation &evaluation);

/// The largest batch in [1, maxBatch] whose step fits `budgetBytes` under
/// `policy`, by doubling and then bisection (fitting is taken to be
/// monotone in the batch). `progress` hears of each batch tried.
FailureOr<MaxBatchResult>
findMaxBatch(TrainingStepBuilder &steps, const Policy &policy,
             int64_t budgetBytes, const CostModel &costModel, int64_t maxBatch,
             const std::function<void(const std::string &)> &progress,
             const RematOptions &options = {});

/// findMaxBatch, and also the largest batch whose step fits with extra
/// time at most `maxOverhead` (a fraction of the estimated time of the same
/// batch without recomputation: 0.2 for 20%), in
/// MaxBatchResult::batchWithinOverhead. The second answer is searched down
/// from the first (the first, then 1, 2, 4, ... below it, then bisection),
/// reusing the batches the first search evaluated: extra time is taken to
/// grow with the batch near the answer only, since at small batches it need
/// not (segments=5 on NetA: +15.7% at batch 1, +12.6% at 4).
FailureOr<MaxBatchResult> findMaxBatchWithinOverhead(
    TrainingStepBuilder &steps, const Policy &policy, int64_t budgetBytes,
    const CostModel &costModel, int64_t maxBatch, double maxOverhead,
    const std::function<void(const std::string &)> &progress,
    const RematOptions &options = {});

/// One point of a budget sweep.
struct SweepPoint {
  int64_t budgetBytes = 0;
  PolicyEvaluation evaluation;
};

/// Evaluates `policy` at `points` budgets evenly spaced from the step's
/// lower bound (arguments plus the largest single-op working set) to its
/// peak without recomputation.
FailureOr<std::vector<SweepPoint>>
sweepBudgets(ModuleOp step, const Policy &policy, int points,
             const CostModel &costModel, const RematOptions &options = {});

} // namespace mlir::remat

#endif // REMAT_DRIVER_BATCHSEARCH_H
