//===- ChainSolver.cpp - optimal checkpoints on a chain of blocks ---------===//
//
// The `chain` solver: where the forward part is a chain of blocks between
// cut vertices, the cheapest choice of checkpoints among the cut values
// under the budget, by dynamic programming. Its schedule space is the one
// checkpoint_sequential and sqrt(n) pick from: the chosen cut values are
// kept, every other forward value the backward reads is dropped after its
// last forward use and recomputed once, from the nearest kept checkpoint,
// just before the backward needs it; the last segment either runs once or
// is dropped like the others. A cut is a checkpoint only if what later
// forward ops read from it is also read by the backward (so that it stays
// to recompute from). Within that space the choice is optimal.
//
// Why a dynamic program is exact here: between two kept checkpoints a and b
// (a super-segment), what is live while the segment's forward runs and
// while its backward (with the recomputation) runs is the same whatever
// else is kept, plus the checkpoints kept before a, which stay live until
// their own backward. So the peak of a choice a_1 < ... < a_m is
//   max over its super-segments (a, b) of  kept(before a) + M(a, b),
// where M(a, b) is measured once by simulate() on the schedule that keeps
// only a and b. The DP (SegmentChoice.h, which `blocks` runs too) walks the
// cut values in order, keeping per value the whole Pareto front of (bytes
// kept before it, recomputation cost so far). The final schedule is
// simulated like every other.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"

#include "BlockStructure.h"
#include "ScheduleBuilder.h"
#include "SegmentChoice.h"
#include "SolverSupport.h"

#include <algorithm>
#include <limits>

using namespace mlir::remat;

namespace {

constexpr size_t kMaxCuts = 160;

/// Measures the super-segments of a chain for the DP.
class ChainMeasurer {
public:
  ChainMeasurer(const RematProblem &problem, std::vector<NodeId> forward,
                std::vector<NodeId> cuts, const SolverOptions &options)
      : problem(problem), forward(std::move(forward)), cuts(std::move(cuts)),
        index(getScheduleIndex(problem, options)) {}

  /// Boundaries are -1 (the start), 0..L-1 (cut i), L (the end).
  SegmentFacts measure(int from, int to, bool dropLast = false) const;
  /// The schedule that keeps the given cuts (boundary indices 0..L-1);
  /// the last segment runs once unless `dropLast`.
  Schedule build(const std::vector<int> &kept, bool dropLast = false) const;

private:
  NodeId firstNodeAfter(int boundary) const {
    return boundary < 0 ? forward.front() : cuts[boundary] + 1;
  }
  NodeId lastNodeOf(int boundary) const {
    return boundary >= int(cuts.size()) ? forward.back() : cuts[boundary];
  }

  const RematProblem &problem;
  std::vector<NodeId> forward;
  std::vector<NodeId> cuts;
  /// Shared by every build of the measurements.
  std::shared_ptr<const ScheduleIndex> index;
};

} // namespace

Schedule ChainMeasurer::build(const std::vector<int> &kept,
                              bool dropLast) const {
  std::vector<bool> discarded = getMarkedDiscards(problem);
  NodeId lastSegmentStart =
      dropLast ? forward.back() + 1
               : (kept.empty() ? forward.front() : cuts[kept.back()] + 1);
  for (NodeId id : forward) {
    if (id >= lastSegmentStart || problem.nodes[id].policy == NodePolicy::Keep)
      continue;
    bool isKept = std::any_of(kept.begin(), kept.end(),
                              [&](int cut) { return cuts[cut] == id; });
    if (isKept)
      continue;
    for (ValueId result : problem.nodes[id].results)
      discarded[result] = true;
  }
  return buildWithDiscards(problem, discarded, index);
}

SegmentFacts ChainMeasurer::measure(int from, int to, bool dropLast) const {
  std::vector<int> kept;
  if (from >= 0)
    kept.push_back(from);
  if (to < int(cuts.size()))
    kept.push_back(to);
  Schedule schedule = build(kept, dropLast && to >= int(cuts.size()));
  Simulation simulation = simulate(problem, schedule);
  SegmentFacts facts;
  if (!simulation.valid)
    return facts;
  facts.valid = true;
  NodeId first = firstNodeAfter(from), last = lastNodeOf(to);
  auto isForward = [&](NodeId id) {
    return problem.nodes[id].phase == NodePhase::Forward;
  };
  // The segment's forward window: its first computations. Its backward
  // window: from the first backward-part step that reads a forward value
  // made before the segment's end cut (the end of the forward pass for the
  // last segment) to the first that reads one made before its start cut.
  // Those points cut every schedule of this space the same way, so the
  // windows of consecutive checkpoints tile the backward part.
  std::vector<bool> seen(problem.nodes.size(), false);
  int64_t forwardBegin = -1, forwardEnd = -1, lastForward = -1;
  for (size_t p = 0; p < schedule.steps.size(); ++p) {
    NodeId id = schedule.steps[p];
    bool firstTime = !seen[id];
    seen[id] = true;
    if (firstTime && isForward(id))
      lastForward = int64_t(p);
    if (firstTime && isForward(id) && id >= first && id <= last) {
      if (forwardBegin < 0)
        forwardBegin = int64_t(p);
      forwardEnd = int64_t(p);
    } else if (!firstTime && isForward(id) && id >= first && id <= last) {
      facts.cost += problem.nodes[id].cost;
    }
  }
  auto firstReadBefore = [&](NodeId threshold) {
    for (size_t p = lastForward + 1; p < schedule.steps.size(); ++p)
      for (ValueId operand : problem.nodes[schedule.steps[p]].operands) {
        NodeId producer = problem.values[operand].producer;
        if (isForward(producer) && producer < threshold)
          return int64_t(p);
      }
    return int64_t(schedule.steps.size());
  };
  // (A dropped last segment is recomputed from the end of the forward
  // pass on, so its window starts there too.)
  int64_t backwardBegin = to >= int(cuts.size()) ? lastForward + 1
                                                 : firstReadBefore(cuts[to]);
  int64_t backwardEnd =
      from < 0 ? int64_t(schedule.steps.size()) : firstReadBefore(cuts[from]);
  auto maxOver = [&](int64_t begin, int64_t end) {
    return getMaxLiveBytes(simulation, begin, end);
  };
  facts.liveBytes = std::max(maxOver(forwardBegin, forwardEnd + 1),
                             maxOver(backwardBegin, backwardEnd));
  return facts;
}

SolverResult mlir::remat::solveChain(const RematProblem &problem,
                                     const SolverOptions &options) {
  std::vector<NodeId> forward = getForwardNodes(problem);
  if (forward.empty() || forward.size() == problem.nodes.size())
    return notApplicable("chain", "the step has no forward and backward "
                                  "phases (remat.phase)");
  // The cut vertices that serve as checkpoints: `blocks`' boundaries that
  // nothing crosses, with no value set apart as long-lived. The results
  // that later forward nodes read (what a recomputation starts from) must
  // be read by the backward too: the schedule keeps a value until its last
  // read, so the others die after the forward pass whatever the choice.
  // (Batch norm's output, read only by the next forward op, is no
  // checkpoint; a ReLU's is.)
  BlockAnalysis structure(problem, forward, int64_t(forward.size()));
  std::vector<NodeId> cuts;
  for (const Boundary &boundary : structure.boundaries)
    if (boundary.crossing.empty())
      cuts.push_back(forward[boundary.position]);
  if (cuts.empty())
    return notApplicable("chain", "the forward part is not a chain: it has "
                                  "no cut vertices");
  if (cuts.size() > kMaxCuts)
    return notApplicable("chain", "the forward part has " +
                                      std::to_string(cuts.size()) +
                                      " cut vertices, more than the " +
                                      std::to_string(kMaxCuts) +
                                      " the dynamic program takes");
  ChainMeasurer measurer(problem, forward, cuts, options);
  int count = int(cuts.size());
  auto cutBytes = [&](int cut) {
    int64_t bytes = 0;
    for (ValueId result : problem.nodes[cuts[cut]].results)
      bytes = addBytesSaturated(bytes, problem.values[result].bytes);
    return bytes;
  };

  // Segments between kept cuts are dropped and recomputed; the last one
  // either runs once and is kept, or is dropped like the others (as
  // torch.utils.checkpoint does with every segment).
  enum SegmentOption { LastRunsOnce, Dropped };
  SegmentProgram program;
  program.boundaryCount = count;
  program.optionCount = 2;
  auto measure = [&](int from, int to, int option) {
    if (option == LastRunsOnce && to < count)
      return SegmentFacts();
    return measurer.measure(from, to, option == Dropped);
  };
  program.measure = measure;
  auto keptBytes = [&](int from, int) { return cutBytes(from); };
  program.keptBytes = keptBytes;
  std::optional<SegmentChoice> choice =
      chooseSegments(program, options.budgetBytes);
  if (!choice)
    return finish(problem, "chain", measurer.build({}), options,
                  "no choice of checkpoints fits the budget; the schedule "
                  "that keeps none");
  const std::vector<int> &kept = choice->kept;
  bool dropsLast = choice->options.back() == Dropped;
  SolverResult result =
      finish(problem, "chain", measurer.build(kept, dropsLast), options,
             "keeps " + std::to_string(kept.size()) + " of " +
                 std::to_string(count) + " cut values");
  if (result.status == SolveStatus::Feasible)
    result.status = SolveStatus::Optimal;
  return result;
}
