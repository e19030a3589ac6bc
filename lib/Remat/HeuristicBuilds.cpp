//===- HeuristicBuilds.cpp - the heuristic's eight builds -----------------===//

#include "HeuristicBuilds.h"

#include "ScheduleBuilder.h"
#include "SolverSupport.h"

#include "llvm/Support/Parallel.h"

using namespace mlir::remat;
using Clock = std::chrono::steady_clock;

/// Without a work limit, each score still gets a bounded amount of work
/// (candidate evaluations), so that a solve always ends.
constexpr int64_t kDefaultWorkPerScore = 200'000'000;

HeuristicBuilds::HeuristicBuilds(const RematProblem &problem,
                                 const SolverOptions &options)
    : problem(problem), options(options), start(Clock::now()),
      deadline(getDeadline(start, options.timeLimitSeconds)),
      discarded(getMarkedDiscards(problem)),
      workShare(options.workLimit > 0 ? options.workLimit / kCount
                                      : kDefaultWorkPerScore),
      index(getScheduleIndex(problem, options)), waiting(kCount),
      best(notApplicable("heuristic", "no schedule")) {}

HeuristicBuilds::Build HeuristicBuilds::build(int variant) const {
  // Each score twice: holding an evicted value's operands (one-step
  // recomputation), then allowing chains of recomputation.
  const EvictionScore scores[] = {EvictionScore::CostPerByteDistance,
                                  EvictionScore::ChainCostPerByteDistance,
                                  EvictionScore::CostPerByte,
                                  EvictionScore::ByteDistance};
  ScheduleBuilder builder(problem, index);
  builder.setDiscarded(discarded);
  builder.setBudget(options.budgetBytes, scores[variant % 4]);
  builder.setHoldOperands(variant < 4);
  builder.setLimits(workShare, deadline);
  Schedule schedule = builder.build();
  Build result;
  result.aborted = builder.aborted();
  result.ranOutOfTime = builder.ranOutOfTime();
  if (!result.aborted)
    result.candidate =
        finish(problem, "heuristic", std::move(schedule), options);
  return result;
}

bool HeuristicBuilds::run(int variant) {
  bool skip;
  {
    std::lock_guard<std::mutex> lock(mutex);
    skip = stopped;
  }
  Build result;
  result.aborted = skip;
  if (!skip)
    result = build(variant);
  std::lock_guard<std::mutex> lock(mutex);
  waiting[variant] = std::move(result);
  for (; next < kCount && waiting[next]; ++next) {
    fold(std::move(*waiting[next]));
    waiting[next].reset();
  }
  return next == kCount;
}

void HeuristicBuilds::fold(Build build) {
  if (stopped || build.aborted)
    return;
  timedOut |= build.ranOutOfTime;
  std::optional<int64_t> peak = build.candidate.smallestPeakBytes;
  if (peak && (!smallestPeak || *peak < *smallestPeak))
    smallestPeak = peak;
  if (isBetterResult(build.candidate, best))
    best = std::move(build.candidate);
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (options.progress && elapsed > 1.0 && best.hasSchedule())
    options.progress("heuristic: best peak " +
                     std::to_string(best.simulation.peakBytes) +
                     " bytes, cost " + std::to_string(best.simulation.cost) +
                     " after " + std::to_string(elapsed) + " s");
  stopped = build.ranOutOfTime;
}

SolverResult HeuristicBuilds::takeResult() {
  std::lock_guard<std::mutex> lock(mutex);
  SolverResult result = std::move(best);
  if (!result.hasSchedule()) {
    // Every variant snowballed: fall back to the starting order.
    result = finish(problem, "heuristic", getStartingSchedule(problem),
                    options);
    result.message = "every eviction order snowballed; the starting order";
  }
  result.noteSmallestPeak(smallestPeak);
  result.timedOut = timedOut;
  return result;
}

SolverResult mlir::remat::solveHeuristic(const RematProblem &problem,
                                         const SolverOptions &options) {
  HeuristicBuilds builds(problem, options);
  if (options.parallel)
    llvm::parallelFor(0, HeuristicBuilds::kCount,
                      [&](size_t variant) { builds.run(int(variant)); });
  else
    for (int variant = 0; variant < HeuristicBuilds::kCount; ++variant)
      builds.run(variant);
  return builds.takeResult();
}
