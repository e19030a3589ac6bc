//===- HeuristicBuilds.h - the heuristic's eight builds ---------*- C++ -*-===//
//
// Internal to lib/Remat: the `heuristic` solver is eight builds of the
// schedule builder under the budget (four eviction scores, each holding an
// evicted value's operands and allowing chains). They are independent, so
// `heuristic` and `auto` may run them at the same time; they are folded in
// variant order however they finish, so the result is the one a run of the
// builds one after the other gives.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REMAT_HEURISTICBUILDS_H
#define REMAT_LIB_REMAT_HEURISTICBUILDS_H

#include "remat/Remat/Solvers.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace mlir::remat {

struct ScheduleIndex;

class HeuristicBuilds {
public:
  static constexpr int kCount = 8;

  HeuristicBuilds(const RematProblem &problem, const SolverOptions &options);

  /// Runs build `variant` (0..kCount-1) and folds in every build now in
  /// order; returns whether that folded the last one. Safe to call from
  /// several threads, once per variant.
  bool run(int variant);
  /// The heuristic's result, once every build is folded.
  SolverResult takeResult();

private:
  struct Build {
    SolverResult candidate;
    bool aborted = false;
    bool ranOutOfTime = false;
  };
  Build build(int variant) const;
  void fold(Build build);

  const RematProblem &problem;
  const SolverOptions &options;
  std::chrono::steady_clock::time_point start;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::vector<bool> discarded;
  int64_t workShare;
  std::shared_ptr<const ScheduleIndex> index;

  std::mutex mutex;
  std::vector<std::optional<Build>> waiting;
  int next = 0;
  /// A build ran out of time: the later ones are not folded (a run one
  /// after the other stops there).
  bool stopped = false;
  bool timedOut = false;
  SolverResult best;
  std::optional<int64_t> smallestPeak;
};

} // namespace mlir::remat

#endif // REMAT_LIB_REMAT_HEURISTICBUILDS_H
