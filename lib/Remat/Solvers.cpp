//===- Solvers.cpp - schedules under a byte budget, IR-free ---------------===//
//
// The checkpoint-style solvers (segments, sqrt, marks) choose which forward
// values to drop and let the schedule builder recompute them on demand; the
// heuristic lets the builder evict under the budget. All results are
// measured by simulate().
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"

#include "HeuristicBuilds.h"
#include "ScheduleBuilder.h"
#include "SolverSupport.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>

using namespace mlir::remat;
using Clock = std::chrono::steady_clock;

const char *mlir::remat::stringifySolveStatus(SolveStatus status) {
  switch (status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return "feasible";
  case SolveStatus::Infeasible:
    return "infeasible";
  case SolveStatus::Timeout:
    return "timeout";
  case SolveStatus::NotApplicable:
    return "not applicable";
  }
  return "unknown";
}

SolverResult mlir::remat::solveNone(const RematProblem &problem,
                                    const SolverOptions &options) {
  return finish(problem, "none", getStartingSchedule(problem), options);
}

SolverResult mlir::remat::solveMarks(const RematProblem &problem,
                                     const SolverOptions &options) {
  return finish(problem, "marks",
                buildWithDiscards(problem, getMarkedDiscards(problem),
                                  getScheduleIndex(problem, options)),
                options);
}

SolverResult mlir::remat::solveSegments(const RematProblem &problem,
                                        int64_t segments,
                                        const SolverOptions &options) {
  std::string name = "segments=" + std::to_string(segments);
  std::vector<NodeId> forward = getForwardNodes(problem);
  if (forward.empty() || forward.size() == problem.nodes.size())
    return notApplicable(name, "the step has no forward and backward phases "
                               "(remat.phase) to cut into segments");
  if (segments < 1)
    return notApplicable(name, "needs at least one segment");
  std::vector<NodeId> cuts = getCutVertices(problem, forward);
  if (static_cast<int64_t>(cuts.size()) < segments - 1)
    return notApplicable(name, "the forward part has " +
                                   std::to_string(cuts.size()) +
                                   " cut vertices, fewer than the " +
                                   std::to_string(segments - 1) + " needed");
  // Choose the cut closest to each k/K of the forward cost, in order.
  std::vector<double> prefix(problem.nodes.size() + 1, 0.0);
  for (size_t id = 0; id < problem.nodes.size(); ++id)
    prefix[id + 1] = prefix[id] + (problem.nodes[id].phase == NodePhase::Forward
                                       ? problem.nodes[id].cost
                                       : 0.0);
  double total = prefix.back();
  std::vector<NodeId> chosen;
  size_t next = 0;
  for (int64_t k = 1; k < segments; ++k) {
    double target = total * k / segments;
    size_t remaining = segments - 1 - k; // cuts still needed after this one
    size_t best = next;
    for (size_t i = next; i + remaining < cuts.size(); ++i)
      if (std::abs(prefix[cuts[i] + 1] - target) <
          std::abs(prefix[cuts[best] + 1] - target))
        best = i;
    chosen.push_back(cuts[best]);
    next = best + 1;
  }
  // Drop every forward value the backward reads, except the segment inputs
  // (the cuts' results) and the last segment, which runs once.
  NodeId lastSegmentStart =
      chosen.empty() ? forward.front() : chosen.back() + 1;
  std::vector<bool> discarded = getMarkedDiscards(problem);
  for (NodeId id : forward) {
    if (id >= lastSegmentStart ||
        std::find(chosen.begin(), chosen.end(), id) != chosen.end())
      continue;
    for (ValueId result : problem.nodes[id].results)
      discarded[result] = true;
  }
  return finish(problem, name,
                buildWithDiscards(problem, discarded,
                                  getScheduleIndex(problem, options)),
                options);
}

SolverResult mlir::remat::solveSqrt(const RematProblem &problem,
                                    const SolverOptions &options) {
  size_t forward = getForwardNodes(problem).size();
  int64_t segments =
      std::max<int64_t>(1, std::llround(std::sqrt(double(forward))));
  SolverResult result = solveSegments(problem, segments, options);
  result.solver = "sqrt";
  return result;
}

/// Keeps in `smallest` the smaller of it and `peak` (each possibly unset).
static void foldSmallestPeak(std::optional<int64_t> &smallest,
                             std::optional<int64_t> peak) {
  if (peak && (!smallest || *peak < *smallest))
    smallest = peak;
}

namespace {
/// The best of the candidates, folded in the order of their indices however
/// they finish: a candidate that finishes early waits for those before it,
/// so that solvers running at the same time give the result, and pack the
/// same candidates, as one after the other.
class CandidateFold {
public:
  /// `fixedKeys[i]` names candidate i's kept schedule in
  /// options.fixedSchedules (empty for a budget-dependent solver; the
  /// candidates past the keys have none).
  CandidateFold(const RematProblem &problem, const SolverOptions &options,
                size_t count, llvm::ArrayRef<std::string> fixedKeys)
      : problem(problem), options(options), fixedKeys(fixedKeys),
        waiting(count) {}

  /// Takes candidate `index` and folds in every candidate now in order;
  /// safe to call from several threads.
  void finish(size_t index, SolverResult candidate) {
    std::lock_guard<std::mutex> lock(mutex);
    waiting[index] = std::move(candidate);
    for (; next < waiting.size() && waiting[next]; ++next) {
      consider(next, std::move(*waiting[next]));
      waiting[next].reset();
    }
  }

  SolverResult best = notApplicable("auto", "no solver applies");
  std::optional<SolverResult> bestPacking;
  std::optional<int64_t> smallestPeak;
  bool timedOut = false;

private:
  void consider(size_t index, SolverResult candidate) {
    timedOut |= candidate.timedOut;
    foldSmallestPeak(smallestPeak, candidate.smallestPeakBytes);
    if (packsWithinTarget(index, candidate))
      bestPacking = candidate;
    if (isBetterResult(candidate, best))
      best = std::move(candidate);
  }

  /// Where the arena must fit (fit-arena), the cheapest candidate that
  /// meets the target and packs within it is kept beside the cheapest: the
  /// cheapest peak may fragment past the budget while a dearer one packs
  /// tightly. Only a candidate better than the best that packs is packed
  /// (once per kept schedule).
  bool packsWithinTarget(size_t index, SolverResult &candidate) {
    if (!options.fitArena || !meetsTarget(candidate) ||
        (bestPacking && !isBetterResult(candidate, *bestPacking)))
      return false;
    bool measured = candidate.packedBytes.has_value();
    int64_t packed = getPackedBytes(problem, candidate);
    if (!measured && options.fixedSchedules && index < fixedKeys.size() &&
        !fixedKeys[index].empty())
      options.fixedSchedules->notePackedBytes(problem, fixedKeys[index],
                                              packed);
    return packed <= options.budgetBytes;
  }

  const RematProblem &problem;
  const SolverOptions &options;
  llvm::ArrayRef<std::string> fixedKeys;
  std::mutex mutex;
  std::vector<std::optional<SolverResult>> waiting;
  size_t next = 0;
};
} // namespace

/// Runs `solvers` (at the same time where `parallel`, as many as there are
/// threads) and hands each result to `fold` as it finishes. The
/// heuristic's builds, the longest tasks, run first and as tasks of their
/// own; its result is folded after the solvers'.
static void runSolvers(llvm::ArrayRef<std::function<SolverResult()>> solvers,
                       HeuristicBuilds &heuristic, bool parallel,
                       CandidateFold &fold) {
  constexpr size_t builds = HeuristicBuilds::kCount;
  size_t count = builds + solvers.size();
  auto run = [&](size_t index) {
    if (index >= builds)
      fold.finish(index - builds, solvers[index - builds]());
    else if (heuristic.run(int(index)))
      fold.finish(solvers.size(), heuristic.takeResult());
  };
  if (!parallel) {
    for (size_t index = 0; index < count; ++index)
      run(index);
    return;
  }
  llvm::parallelFor(0, count, run);
}

struct FixedSchedules::Kept {
  struct Entry {
    std::string solver;
    std::string message;
    /// Unset where the solver does not apply.
    std::optional<Schedule> schedule;
    int64_t peakBytes = 0;
    double cost = 0;
    std::optional<int64_t> packedBytes;

    /// What finish() gives for the kept schedule at `options`' budget, from
    /// the kept figures: the simulation holds its validity, peak and cost.
    SolverResult getBriefResult(const SolverOptions &options) && {
      SolverResult result;
      result.solver = std::move(solver);
      result.message = std::move(message);
      result.schedule = std::move(*schedule);
      result.simulation.valid = true;
      result.simulation.peakBytes = peakBytes;
      result.simulation.cost = cost;
      result.briefSimulation = true;
      result.status = peakBytes <= options.budgetBytes
                          ? SolveStatus::Feasible
                          : SolveStatus::Infeasible;
      result.smallestPeakBytes = peakBytes;
      result.packedBytes = packedBytes;
      return result;
    }
  };
  std::mutex mutex;
  std::map<std::string, Entry> entries;
  std::once_flag indexBuilt;
  std::shared_ptr<const ScheduleIndex> index;
};

FixedSchedules::FixedSchedules(const RematProblem &problem)
    : problem(&problem), kept(std::make_unique<Kept>()) {}

FixedSchedules::~FixedSchedules() = default;

std::shared_ptr<const ScheduleIndex>
FixedSchedules::getIndex(const RematProblem &problem) {
  if (&problem != this->problem)
    return std::make_shared<const ScheduleIndex>(problem);
  std::call_once(kept->indexBuilt, [&] {
    kept->index = std::make_shared<const ScheduleIndex>(problem);
  });
  return kept->index;
}

SolverResult
FixedSchedules::get(const RematProblem &problem, const std::string &key,
                    const SolverOptions &options,
                    const std::function<SolverResult()> &solveOnce) {
  if (&problem != this->problem)
    return solveOnce();
  std::optional<Kept::Entry> entry;
  {
    std::lock_guard<std::mutex> lock(kept->mutex);
    auto found = kept->entries.find(key);
    if (found != kept->entries.end())
      entry = found->second;
  }
  if (entry && !entry->schedule)
    return notApplicable(entry->solver, entry->message);
  if (entry)
    return std::move(*entry).getBriefResult(options);
  SolverResult result = solveOnce();
  Kept::Entry made{result.solver, result.message, std::nullopt};
  if (result.hasSchedule()) {
    made.schedule = result.schedule;
    made.peakBytes = result.simulation.peakBytes;
    made.cost = result.simulation.cost;
  }
  std::lock_guard<std::mutex> lock(kept->mutex);
  kept->entries.emplace(key, std::move(made));
  return result;
}

void FixedSchedules::notePackedBytes(const RematProblem &problem,
                                     const std::string &key,
                                     int64_t packedBytes) {
  if (&problem != this->problem)
    return;
  std::lock_guard<std::mutex> lock(kept->mutex);
  auto found = kept->entries.find(key);
  if (found != kept->entries.end())
    found->second.packedBytes = packedBytes;
}


SolverResult mlir::remat::solveWithoutMilp(const RematProblem &problem,
                                           const SolverOptions &options) {
  // The solvers whose schedule does not depend on the budget, taken from
  // options.fixedSchedules where set.
  auto fixed = [&](std::string key, std::function<SolverResult()> solveOnce) {
    return [&problem, &options, key = std::move(key),
            solveOnce = std::move(solveOnce)] {
      if (!options.fixedSchedules)
        return solveOnce();
      return options.fixedSchedules->get(problem, key, options, solveOnce);
    };
  };
  // Each candidate is folded in as soon as those before it are, so that
  // only the best ones' schedules and simulations (and the few that finish
  // early) stay in memory (a million-node step).
  std::vector<std::function<SolverResult()>> solvers;
  std::vector<std::string> fixedKeys;
  auto addFixed = [&](std::string key,
                      std::function<SolverResult()> solveOnce) {
    fixedKeys.push_back(key);
    solvers.push_back(fixed(std::move(key), std::move(solveOnce)));
  };
  addFixed("none", [&] { return solveNone(problem, options); });
  addFixed("marks", [&] { return solveMarks(problem, options); });
  addFixed("sqrt", [&] { return solveSqrt(problem, options); });
  for (int64_t segments = 2; segments <= 16; ++segments)
    addFixed("segments=" + std::to_string(segments), [&, segments] {
      return solveSegments(problem, segments, options);
    });
  addFixed("block-checkpoints",
           [&] { return solveBlockCheckpoints(problem, options); });
  solvers.push_back([&] { return solveChain(problem, options); });
  solvers.push_back([&] { return solveBlocks(problem, options); });
  HeuristicBuilds heuristic(problem, options);
  CandidateFold fold(problem, options, solvers.size() + 1, fixedKeys);
  runSolvers(solvers, heuristic, options.parallel, fold);
  // Only the kept candidates are measured in full.
  SolverResult best = std::move(fold.best);
  completeSimulation(problem, best);
  std::optional<SolverResult> bestPacking = std::move(fold.bestPacking);
  if (bestPacking)
    completeSimulation(problem, *bestPacking);
  std::optional<int64_t> smallestPeak = fold.smallestPeak;
  bool timedOut = fold.timedOut;
  // The search reorders and searches from the best so far; it only adds a
  // candidate, and is skipped where nothing can be cheaper (a fitting
  // schedule that computes every node once).
  bool settled = (best.status == SolveStatus::Feasible ||
                  best.status == SolveStatus::Optimal) &&
                 best.simulation.cost <= problem.getTotalCost() * (1 + 1e-12);
  if (!settled) {
    SolverResult search = solveSearch(
        problem, options, best.hasSchedule() ? &best.schedule : nullptr);
    timedOut |= search.timedOut;
    foldSmallestPeak(smallestPeak, search.smallestPeakBytes);
    // Where the arena must fit, the search's schedule is taken if it packs
    // within the budget, or if the best of the others does not fit at all
    // (where the pass would stop): else the pass tightens the target as it
    // would without the search.
    bool bestFits = best.status == SolveStatus::Feasible ||
                    best.status == SolveStatus::Optimal;
    if (isBetterResult(search, best) &&
        (!options.fitArena || !bestFits ||
         getPackedBytes(problem, search) <= options.budgetBytes))
      best = std::move(search);
  }
  if (bestPacking && isBetterResult(best, *bestPacking) &&
      getPackedBytes(problem, best) > options.budgetBytes)
    best.packingAlternative =
        std::make_shared<const SolverResult>(std::move(*bestPacking));
  best.noteSmallestPeak(smallestPeak);
  best.timedOut = timedOut;
  return best;
}

SolverResult mlir::remat::solveAuto(const RematProblem &problem,
                                    const SolverOptions &options) {
  SolverResult best = solveWithoutMilp(problem, options);
  std::string chosen = best.solver;
  if (options.autoLpBound && best.status == SolveStatus::Feasible) {
    std::optional<int64_t> smallestPeak = best.smallestPeakBytes;
    std::shared_ptr<const SolverResult> alternative = best.packingAlternative;
    best = solveMilpFrom(problem, options, best, MilpEffort::LpBound);
    best.noteSmallestPeak(smallestPeak);
    if (!best.packingAlternative)
      best.packingAlternative = std::move(alternative);
  }
  best.message = "auto chose " + chosen +
                 (best.lowerBoundCost ? "; bounded below by the stage MILP's "
                                        "LP relaxation"
                                      : "");
  return best;
}

SolverResult mlir::remat::solve(const RematProblem &problem,
                                const SolverSpec &spec,
                                const SolverOptions &options) {
  if (std::optional<NodeId> node = problem.findByteOverflow())
    return notApplicable(spec.str(),
                         "the step's bytes (arguments, every value and "
                         "workspace) exceed the int64 range at '" +
                             problem.nodes[*node].name + "'");
  switch (spec.getKind()) {
  case SolverKind::None:
    return solveNone(problem, options);
  case SolverKind::Segments:
    return solveSegments(problem, spec.getSegments(), options);
  case SolverKind::Sqrt:
    return solveSqrt(problem, options);
  case SolverKind::Marks:
    return solveMarks(problem, options);
  case SolverKind::BlockCheckpoints:
    return solveBlockCheckpoints(problem, options);
  case SolverKind::Chain:
    return solveChain(problem, options);
  case SolverKind::Blocks:
    return solveBlocks(problem, options);
  case SolverKind::Heuristic:
    return solveHeuristic(problem, options);
  case SolverKind::Search:
    return solveSearch(problem, options);
  case SolverKind::Exact:
    return solveExact(problem, options);
  case SolverKind::Auto:
    return solveAuto(problem, options);
  }
  return solveAuto(problem, options);
}

#ifndef REMAT_HAVE_CBC
bool mlir::remat::isExactSolverAvailable() { return false; }

SolverResult mlir::remat::solveExact(const RematProblem &problem,
                                     const SolverOptions &options) {
  return notApplicable("exact", "this build of remat has no CBC");
}

SolverResult mlir::remat::solveMilpFrom(const RematProblem &problem,
                                        const SolverOptions &options,
                                        const SolverResult &start,
                                        MilpEffort effort) {
  return start;
}
#endif
