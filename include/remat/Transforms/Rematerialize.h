//===- Rematerialize.h - rematerialization of a step under a budget -*- C++ -*-//
//
// The library behind remat-rematerialize: extract the problem from a
// function, plan a schedule under the budget (re-solving with a tighter
// target while the planned arena pushes arguments + arena over it), and
// apply the schedule to the IR: recomputed ops are cloned where they are
// recomputed, carrying `remat.recompute_of`, uses are rewired to the latest
// copy, and the body is ordered as scheduled. Nothing else changes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_REMATERIALIZE_H
#define REMAT_TRANSFORMS_REMATERIALIZE_H

#include "remat/Analysis/CostModel.h"
#include "remat/Remat/Solvers.h"
#include "remat/Transforms/RematOptions.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::remat {

/// Checks the options every entry point takes from the user: a time limit
/// that is a non-negative number (0: none; one too large for the clock is no
/// limit), a non-negative work limit. Emits an error at `loc` and fails on
/// the first that is wrong.
LogicalResult verifyRematOptions(const RematOptions &options, Location loc);

/// A function's body as a problem, with the op behind each node.
struct ExtractedProblem {
  RematProblem problem;
  std::vector<Operation *> ops;
};

/// Builds the problem of `function`'s single-block body: one node per op
/// (costs from `costModel`), one value per op result, the returned values as
/// outputs. Ops with memory effects, or that say so through the cost
/// interface, are never recomputed. Emits an error and fails on what the
/// peak-memory analysis cannot measure.
FailureOr<ExtractedProblem> extractRematProblem(FunctionOpInterface function,
                                                const CostModel &costModel);

/// What planning decided, and the figures the report needs.
struct RematPlan {
  SolverResult result;
  int64_t budgetBytes = 0;
  /// The arena the schedule needs, planned as remat-plan-memory will.
  int64_t arenaBytes = 0;
  /// The arena of the given order.
  int64_t arenaBytesBefore = 0;
  /// What the step needs as given, the reference of a percentage budget:
  /// arguments + the arena of the given order (the peak of the given order
  /// without fit-arena). A budget at least this is met with nothing
  /// recomputed.
  int64_t givenBytes = 0;
  int64_t peakBytesBefore = 0;
  double costBefore = 0.0;
  std::vector<int64_t> liveBytesBefore;
  double solveSeconds = 0.0;
  bool meetsBudget = false;
};

/// Solves under the budget. A percentage budget is of `givenBytes`. Where
/// the given order meets the budget, the solvers that choose what to
/// recompute by the budget (auto, heuristic, search, exact, chain, blocks)
/// are not run: the result is the given order, solver `none`, status
/// `optimal`. Fails with an error for a missing or
/// unresolvable budget, options verifyRematOptions rejects, or a byte count
/// of the step or of its arena beyond the int64 range (at the op where the
/// sum overflows).
FailureOr<RematPlan> planRematerialization(FunctionOpInterface function,
                                           const ExtractedProblem &extracted,
                                           const RematOptions &options);

/// Rewrites `function` to run `schedule`.
void applySchedule(FunctionOpInterface function,
                   const ExtractedProblem &extracted,
                   const Schedule &schedule);

/// Plans, reports an unmet budget (an error when strict, else a warning),
/// applies the schedule, checks that the rewritten function's peak is the
/// predicted one, and records the outcome as `remat.solve` on the function
/// (a #remat.solve record: the remat dialect must be loaded, as the
/// remat-rematerialize pass declares it).
LogicalResult rematerializeFunction(FunctionOpInterface function,
                                    const CostModel &costModel,
                                    const RematOptions &options);

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_REMATERIALIZE_H
