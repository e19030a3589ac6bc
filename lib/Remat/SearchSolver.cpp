//===- SearchSolver.cpp - reordering and local search on any DAG ----------===//
//
// The `search` solver, for graphs without chain structure. Every other
// solver runs the nodes in their starting order; this one also reorders
// them. Its starts are the starting order, memory-aware list schedules (at
// each step the ready node that adds the fewest bytes net of the operands
// it frees, ranked three ways) and the best schedule of the
// other solvers when `auto` passes it (and it is short). From each start a
// local search around simulate() descends while some step is over the
// budget: at the highest step, for each value live across it and not read
// there, it considers deferring its node to just before the value's next
// read (no cost, when nothing reads it in between), or running the node
// again there, alone or with the operands that would otherwise be carried
// across the peak (chains of up to two more nodes); moves are ranked by
// the bytes above the budget they remove (summed over all steps, estimated
// from the live profile) per unit of added cost, and the best that
// simulate() confirms is applied. A schedule within the budget then loses
// every recomputation, costliest first, whose removal keeps it there. The
// cheapest result wins (else the smallest peak). Where the arena must fit
// (SolverOptions::fitArena) the cheapest result that packs within the
// budget wins, and the search tightens its own target up to three times
// while none does. Work (steps scanned and simulated) is bounded by the
// work limit, 400M units by default (about a second); beyond
// kMaxSearchNodes nodes the solver does not apply.
//
// Orders respect every rule of the starting order that simulate() checks:
// operands before readers, each state's update after every read of its old
// value, and a view's owner before the view; every move is checked by
// simulate(), which rejects reads of state after its update and of stale
// views. Marks: a `keep` node is never run again (it may move), and readers
// of a `recompute` node's values in another phase read a recomputation.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"

#include "SolverSupport.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>

using namespace mlir::remat;
using Clock = std::chrono::steady_clock;

namespace {

/// Beyond this many nodes the search does not apply (the heuristic and the
/// other solvers remain): its work grows faster than linearly.
constexpr size_t kMaxSearchNodes = 10000;

/// Work units the search may spend when no work limit is given: about a
/// second on this project's machines. A step scanned while estimating a move
/// is one unit, a step simulated kSimulationWeight.
constexpr int64_t kDefaultSearchWork = 400'000'000;
constexpr int64_t kSimulationWeight = 8;
/// Where the arena must fit: how many times the search tightens its own
/// target when its schedules pack over the budget.
constexpr int kPackingRounds = 3;

/// The search's budget: work units, and a wall-clock cap that is only a
/// safety net (results are decided by the work limit).
struct SearchWork {
  int64_t used = 0;
  int64_t limit;
  std::optional<Clock::time_point> deadline;
  bool outOfTime = false;

  SearchWork(int64_t limit, double seconds)
      : limit(limit), deadline(getDeadline(Clock::now(), seconds)) {}
  void spend(int64_t units) { used += units; }
  bool exhausted() {
    if (used >= limit || outOfTime)
      return true;
    if (deadline && Clock::now() > *deadline)
      outOfTime = true;
    return outOfTime;
  }
};


/// The graph the orders are drawn from: node predecessors (operand
/// producers, and every reader of a state before its writer) and
/// successors, deduplicated.
struct OrderGraph {
  std::vector<std::vector<NodeId>> preds, succs;

  explicit OrderGraph(const RematProblem &problem) {
    size_t n = problem.nodes.size();
    preds.resize(n);
    succs.resize(n);
    std::vector<std::vector<NodeId>> readersOfState(problem.stateNames.size());
    for (size_t id = 0; id < n; ++id)
      for (int32_t state : problem.nodes[id].stateReads)
        readersOfState[state].push_back(id);
    for (size_t id = 0; id < n; ++id) {
      const RematNode &node = problem.nodes[id];
      for (ValueId operand : node.operands)
        preds[id].push_back(problem.values[operand].producer);
      for (int32_t state : node.stateWrites)
        for (NodeId reader : readersOfState[state])
          if (reader != NodeId(id))
            preds[id].push_back(reader);
      std::sort(preds[id].begin(), preds[id].end());
      preds[id].erase(std::unique(preds[id].begin(), preds[id].end()),
                      preds[id].end());
      for (NodeId pred : preds[id])
        succs[pred].push_back(id);
    }
  }
};

/// How the list scheduler ranks the ready nodes (the earliest starting
/// position wins ties).
struct OrderVariant {
  /// 0: net bytes (results minus freed operands); 1: net bytes, preferring
  /// nodes that free something; 2: freed bytes first.
  int score = 0;
};

/// A memory-aware list schedule: repeatedly runs the ready node whose
/// results add the fewest bytes net of the operands it frees.
std::vector<NodeId> listSchedule(const RematProblem &problem,
                                 const OrderGraph &graph,
                                 const OrderVariant &variant,
                                 SearchWork &work) {
  size_t n = problem.nodes.size();
  std::vector<int32_t> waiting(n), readersLeft(problem.values.size(), 0);
  for (size_t id = 0; id < n; ++id)
    waiting[id] = graph.preds[id].size();
  // The distinct operands of each node, and how many readers of each value
  // are still to run.
  std::vector<std::vector<ValueId>> distinctOperands(n);
  for (size_t id = 0; id < n; ++id) {
    std::vector<ValueId> ops = problem.nodes[id].operands;
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    for (ValueId v : ops)
      ++readersLeft[v];
    distinctOperands[id] = std::move(ops);
  }
  std::vector<NodeId> ready;
  for (size_t id = 0; id < n; ++id)
    if (waiting[id] == 0)
      ready.push_back(id);
  std::vector<NodeId> order;
  order.reserve(n);
  while (!ready.empty()) {
    size_t bestIndex = 0;
    int64_t bestPrimary = 0, bestSecondary = 0;
    for (size_t index = 0; index < ready.size(); ++index) {
      NodeId id = ready[index];
      const RematNode &node = problem.nodes[id];
      int64_t added = 0;
      for (ValueId result : node.results)
        added += problem.values[result].bytes;
      int64_t freed = 0;
      for (ValueId operand : distinctOperands[id])
        if (readersLeft[operand] == 1 && !problem.values[operand].isOutput)
          freed += problem.values[operand].bytes;
      int64_t primary = added - freed, secondary = 0;
      if (variant.score == 1)
        secondary = freed > 0 ? 0 : 1;
      else if (variant.score == 2) {
        primary = -freed;
        secondary = added;
      }
      bool better = index == 0 || primary < bestPrimary ||
                    (primary == bestPrimary &&
                     (secondary < bestSecondary ||
                      (secondary == bestSecondary && id < ready[bestIndex])));
      if (better) {
        bestIndex = index;
        bestPrimary = primary;
        bestSecondary = secondary;
      }
    }
    work.spend(int64_t(ready.size()));
    NodeId chosen = ready[bestIndex];
    ready[bestIndex] = ready.back();
    ready.pop_back();
    order.push_back(chosen);
    for (ValueId operand : distinctOperands[chosen])
      --readersLeft[operand];
    for (NodeId succ : graph.succs[chosen])
      if (--waiting[succ] == 0)
        ready.push_back(succ);
  }
  return order;
}

/// The user's `recompute` marks in a reordered schedule: the first instance
/// of a marked node's values is read only within its phase; readers in
/// another phase read a recomputation (as the schedule builder drops such
/// values when their phase ends).
class RecomputeMarks {
public:
  explicit RecomputeMarks(const RematProblem &problem) : problem(problem) {
    for (const RematNode &node : problem.nodes)
      any |= node.policy == NodePolicy::Recompute &&
             node.phase != NodePhase::Unknown;
  }

  /// Whether `schedule` reads a marked value across phases from its first
  /// instance.
  bool violated(const Schedule &schedule) const {
    if (!any)
      return false;
    std::vector<int32_t> runs(problem.nodes.size(), 0);
    for (NodeId id : schedule.steps) {
      if (readsFirstAcrossPhases(id, runs))
        return true;
      ++runs[id];
    }
    return false;
  }

  /// `schedule` with a recomputation of each marked node inserted before
  /// its first reader in another phase that would read the first instance.
  Schedule apply(const Schedule &schedule) const {
    if (!any)
      return schedule;
    Schedule result;
    std::vector<int32_t> runs(problem.nodes.size(), 0);
    // For each node defining a view: the runs of the view's owner when it
    // last ran.
    std::vector<int32_t> madeFrom(problem.nodes.size(), -1);
    auto emit = [&](NodeId id) {
      result.steps.push_back(id);
      ++runs[id];
      for (ValueId value : problem.nodes[id].results)
        if (ValueId owner = problem.values[value].viewOf; owner >= 0)
          madeFrom[id] = runs[problem.values[owner].producer];
    };
    for (NodeId id : schedule.steps) {
      for (ValueId operand : problem.nodes[id].operands) {
        NodeId producer = problem.values[operand].producer;
        if (isMarked(producer) && runs[producer] == 1 &&
            problem.nodes[producer].phase != problem.nodes[id].phase)
          emit(producer);
      }
      // Views of a value just recomputed are made again from it.
      for (ValueId operand : problem.nodes[id].operands)
        if (ValueId owner = problem.values[operand].viewOf; owner >= 0) {
          NodeId view = problem.values[operand].producer;
          if (madeFrom[view] != runs[problem.values[owner].producer] &&
              problem.nodes[view].recomputable)
            emit(view);
        }
      emit(id);
    }
    return result;
  }

private:
  bool isMarked(NodeId id) const {
    const RematNode &node = problem.nodes[id];
    return node.policy == NodePolicy::Recompute &&
           node.phase != NodePhase::Unknown && node.recomputable;
  }
  bool readsFirstAcrossPhases(NodeId id,
                              const std::vector<int32_t> &runs) const {
    for (ValueId operand : problem.nodes[id].operands) {
      NodeId producer = problem.values[operand].producer;
      if (isMarked(producer) && runs[producer] == 1 &&
          problem.nodes[producer].phase != problem.nodes[id].phase)
        return true;
    }
    return false;
  }

  const RematProblem &problem;
  bool any = false;
};

/// Local search: removes recomputations (never a first computation) while
/// the schedule stays valid and within the budget, the costliest first.
void removeRecomputations(const RematProblem &problem, Schedule &schedule,
                          Simulation &simulation, int64_t budget,
                          SearchWork &work, const RecomputeMarks &marks) {
  std::vector<bool> seen(problem.nodes.size(), false);
  std::vector<size_t> candidates;
  for (size_t step = 0; step < schedule.steps.size(); ++step) {
    NodeId id = schedule.steps[step];
    if (seen[id])
      candidates.push_back(step);
    seen[id] = true;
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](size_t a, size_t b) {
                     return problem.nodes[schedule.steps[a]].cost >
                            problem.nodes[schedule.steps[b]].cost;
                   });
  std::vector<bool> removed(schedule.steps.size(), false);
  for (size_t step : candidates) {
    if (work.exhausted())
      break;
    removed[step] = true;
    Schedule trial;
    trial.steps.reserve(schedule.steps.size());
    for (size_t s = 0; s < schedule.steps.size(); ++s)
      if (!removed[s])
        trial.steps.push_back(schedule.steps[s]);
    if (marks.violated(trial)) {
      removed[step] = false;
      continue;
    }
    Simulation result = simulate(problem, trial);
    work.spend(kSimulationWeight * int64_t(trial.steps.size()));
    if (!result.valid || result.peakBytes > budget)
      removed[step] = false;
    else
      simulation = std::move(result);
  }
  Schedule kept;
  for (size_t s = 0; s < schedule.steps.size(); ++s)
    if (!removed[s])
      kept.steps.push_back(schedule.steps[s]);
  schedule = std::move(kept);
}


/// The bytes of the live profile above the budget, summed over the steps:
/// zero exactly when the schedule fits.
int64_t getExcess(const Simulation &simulation, int64_t budget) {
  int64_t excess = 0;
  for (int64_t live : simulation.liveBytes)
    excess += std::max<int64_t>(0, live - budget);
  return excess;
}

/// Local search towards the budget: while some step is over it, splits the
/// lifetime of a value live across the highest step (and not read there):
/// its producer runs again just before the value's next read, so that the
/// value is not live in between. Moves are ranked by the estimated excess
/// they remove per unit of recomputation cost and confirmed by simulate().
class PeakDescent {
public:
  PeakDescent(const RematProblem &problem, int64_t budget, SearchWork &work,
              const RecomputeMarks &marks)
      : problem(problem), budget(budget), work(work), marks(marks) {}

  /// Runs from `schedule` (valid, measured by `measured`) until it fits or
  /// no move helps or the work runs out; leaves the best schedule found
  /// and its simulation.
  void run(Schedule &schedule, Simulation &measured);

private:
  struct Move {
    double score;
    int64_t step;     ///< the instance to split (its defining step)
    int64_t insertAt; ///< where its producer runs again
    /// The nodes to run there, in order (the producer last).
    std::vector<NodeId> block;
    /// The step the move takes away (a node moved rather than run again),
    /// or -1.
    int64_t removeStep = -1;
  };
  /// Live-byte changes over old step indices, [lo, hi] += delta.
  struct Range {
    int64_t lo, hi, delta;
  };
  /// A move being evaluated: the live-byte changes over old step indices
  /// (the new step, inserted before `next`, counted at index `next` with
  /// the bytes live there plus newStepExtra), and the nodes to run there.
  struct MoveDraft {
    std::vector<Range> ranges;
    int64_t newStepExtra = 0;
    std::vector<NodeId> block;
    std::vector<NodeId> inBlock;
    double cost = 0.0;
  };
  void analyze(const Schedule &schedule);
  /// The first read after `peakStep` of the instance node `id` defines at
  /// `step`, where nothing reads it at the peak and it may be split there.
  std::optional<int64_t> findNextReadAfterPeak(int64_t step, NodeId id,
                                               int64_t peakStep);
  /// The changes of the instance's own results: freed from their last read
  /// before `next` to `next` (from the step itself where `defer`).
  void addResultRanges(MoveDraft &draft, int64_t step, NodeId id, int64_t next,
                       bool defer) const;
  /// Adds node `x` to the block after what it reads: operands live on until
  /// `next`, or are recomputed too (up to `depthLeft` levels) where that
  /// would carry them across the peak; false where an operand has no
  /// instance before `next`.
  bool addOperands(MoveDraft &draft, NodeId x, int depthLeft, int64_t next,
                   int64_t peakStep) const;
  /// Bytes over the budget the draft removes.
  int64_t getGain(const MoveDraft &draft, int64_t next);
  /// The move that splits the instance defined at `step` around
  /// `peakStep`, recomputing operands that would otherwise be carried
  /// across the peak up to `depth` levels up.
  std::optional<Move> evaluate(const Schedule &schedule, int64_t step,
                               int64_t peakStep, int depth);

  const RematProblem &problem;
  int64_t budget;
  SearchWork &work;
  const RecomputeMarks &marks;
  Simulation simulation;
  /// Per step, per result: the steps reading that instance, ascending.
  std::vector<std::vector<std::vector<int64_t>>> reads;
  /// Per node, the steps at which it runs, ascending.
  std::vector<std::vector<int64_t>> runsAt;
  /// Per step, the first index of its results in simulation.buffers.
  std::vector<size_t> bufferIndex;
  std::vector<bool> firstInstance;
};

void PeakDescent::analyze(const Schedule &schedule) {
  size_t steps = schedule.steps.size();
  reads.assign(steps, {});
  runsAt.assign(problem.nodes.size(), {});
  bufferIndex.assign(steps, 0);
  firstInstance.assign(steps, false);
  size_t index = 0;
  for (size_t step = 0; step < steps; ++step) {
    NodeId id = schedule.steps[step];
    const RematNode &node = problem.nodes[id];
    for (ValueId operand : node.operands) {
      NodeId producer = problem.values[operand].producer;
      int64_t instance = runsAt[producer].back();
      const RematNode &from = problem.nodes[producer];
      size_t result = std::find(from.results.begin(), from.results.end(),
                                operand) -
                      from.results.begin();
      std::vector<int64_t> &list = reads[instance][result];
      if (list.empty() || list.back() != int64_t(step))
        list.push_back(step);
    }
    reads[step].assign(node.results.size(), {});
    firstInstance[step] = runsAt[id].empty();
    runsAt[id].push_back(step);
    bufferIndex[step] = index;
    index += node.results.size();
  }
}

std::optional<int64_t>
PeakDescent::findNextReadAfterPeak(int64_t step, NodeId id, int64_t peakStep) {
  const RematNode &node = problem.nodes[id];
  if (node.results.empty())
    return std::nullopt;
  int64_t next = std::numeric_limits<int64_t>::max();
  int64_t bytes = 0;
  for (size_t r = 0; r < node.results.size(); ++r) {
    const RematValue &value = problem.values[node.results[r]];
    if (value.isOutput && firstInstance[step])
      return std::nullopt;
    const std::vector<int64_t> &list = reads[step][r];
    if (std::binary_search(list.begin(), list.end(), peakStep))
      return std::nullopt;
    auto after = std::upper_bound(list.begin(), list.end(), peakStep);
    if (after != list.end())
      next = std::min(next, *after);
    bytes += value.bytes;
  }
  if (next == std::numeric_limits<int64_t>::max() || bytes == 0)
    return std::nullopt;
  return next;
}

void PeakDescent::addResultRanges(MoveDraft &draft, int64_t step, NodeId id,
                                  int64_t next, bool defer) const {
  const RematNode &node = problem.nodes[id];
  for (size_t r = 0; r < node.results.size(); ++r) {
    const RematValue &value = problem.values[node.results[r]];
    const std::vector<int64_t> &list = reads[step][r];
    auto before = std::lower_bound(list.begin(), list.end(), next);
    int64_t lastBefore = before == list.begin() ? step : *(before - 1);
    int64_t end = simulation.buffers[bufferIndex[step] + r].last;
    if (defer)
      lastBefore = step - 1;
    if (end >= next) {
      if (next - 1 > lastBefore)
        draft.ranges.push_back({lastBefore + 1, next - 1, -value.bytes});
    } else {
      if (end > lastBefore)
        draft.ranges.push_back({lastBefore + 1, end, -value.bytes});
      draft.newStepExtra += value.bytes;
    }
  }
}

bool PeakDescent::addOperands(MoveDraft &draft, NodeId x, int depthLeft,
                              int64_t next, int64_t peakStep) const {
  std::vector<ValueId> operands = problem.nodes[x].operands;
  std::sort(operands.begin(), operands.end());
  operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
  for (ValueId operand : operands) {
    NodeId producer = problem.values[operand].producer;
    if (llvm::is_contained(draft.inBlock, producer))
      continue;
    const std::vector<int64_t> &at = runsAt[producer];
    auto it = std::lower_bound(at.begin(), at.end(), next);
    if (it == at.begin())
      return false;
    int64_t instance = *(it - 1);
    const RematNode &from = problem.nodes[producer];
    size_t result =
        std::find(from.results.begin(), from.results.end(), operand) -
        from.results.begin();
    int64_t end = simulation.buffers[bufferIndex[instance] + result].last;
    if (depthLeft > 0 && end < peakStep && from.recomputable &&
        from.policy != NodePolicy::Keep) {
      draft.inBlock.push_back(producer);
      if (!addOperands(draft, producer, depthLeft - 1, next, peakStep))
        return false;
      for (ValueId made : from.results)
        draft.newStepExtra += problem.values[made].bytes;
      continue;
    }
    if (end < next - 1)
      draft.ranges.push_back(
          {end + 1, next - 1, problem.values[operand].bytes});
    if (end < next)
      draft.newStepExtra += problem.values[operand].bytes;
  }
  draft.block.push_back(x);
  draft.cost += problem.nodes[x].cost;
  return true;
}

int64_t PeakDescent::getGain(const MoveDraft &draft, int64_t next) {
  int64_t lo = next, hi = next;
  for (const Range &range : draft.ranges) {
    lo = std::min(lo, range.lo);
    hi = std::max(hi, range.hi);
  }
  work.spend(hi - lo + 1);
  std::vector<int64_t> delta(hi - lo + 2, 0);
  for (const Range &range : draft.ranges) {
    delta[range.lo - lo] += range.delta;
    delta[range.hi - lo + 1] -= range.delta;
  }
  const std::vector<int64_t> &live = simulation.liveBytes;
  int64_t gain = 0, running = 0;
  for (int64_t s = lo; s <= hi; ++s) {
    running += delta[s - lo];
    int64_t before = std::max<int64_t>(0, live[s] - budget);
    int64_t after = std::max<int64_t>(0, live[s] + running - budget);
    gain += before - after;
  }
  // The new step: what is live at `next` before it runs, roughly.
  return gain - std::max<int64_t>(0, live[next] + draft.newStepExtra - budget);
}

std::optional<PeakDescent::Move> PeakDescent::evaluate(const Schedule &schedule,
                                                       int64_t step,
                                                       int64_t peakStep,
                                                       int depth) {
  NodeId id = schedule.steps[step];
  const RematNode &node = problem.nodes[id];
  // The next read after the peak, and no read at it.
  std::optional<int64_t> found = findNextReadAfterPeak(step, id, peakStep);
  if (!found)
    return std::nullopt;
  int64_t next = *found;
  // Nothing reads the instance before `next`: the node can move there
  // instead of running again.
  bool defer = true;
  for (size_t r = 0; r < node.results.size(); ++r) {
    const std::vector<int64_t> &list = reads[step][r];
    if (!list.empty() && list.front() < next)
      defer = false;
  }
  if (defer && depth > 0)
    return std::nullopt;
  if (!defer && (!node.recomputable || node.policy == NodePolicy::Keep))
    return std::nullopt;
  MoveDraft draft;
  draft.newStepExtra = node.workspaceBytes;
  draft.inBlock = {id};
  addResultRanges(draft, step, id, next, defer);
  // Operands read at the new steps live until them, unless extending them
  // would carry them across the peak and the chain may recompute them too.
  if (!addOperands(draft, id, depth, next, peakStep))
    return std::nullopt;
  int64_t gain = getGain(draft, next);
  if (gain <= 0)
    return std::nullopt;
  double cost = defer ? 0.0 : draft.cost;
  return Move{double(gain) / std::max(cost, 1e-9), step, next,
              std::move(draft.block), defer ? step : -1};
}

void PeakDescent::run(Schedule &schedule, Simulation &measured) {
  simulation = std::move(measured);
  int64_t excess = getExcess(simulation, budget);
  while (excess > 0 && !work.exhausted()) {
    analyze(schedule);
    work.spend(kSimulationWeight * int64_t(schedule.steps.size()));
    int64_t peakStep = simulation.peakStep;
    std::vector<Move> moves;
    for (int64_t step = 0; step < peakStep && !work.exhausted(); ++step)
      if (simulation.buffers.size() > bufferIndex[step] &&
          !problem.nodes[schedule.steps[step]].results.empty() &&
          simulation.buffers[bufferIndex[step]].last >= peakStep)
        for (int depth : {0, 2})
          if (std::optional<Move> move =
                  evaluate(schedule, step, peakStep, depth))
            if (depth == 0 || move->block.size() > 1)
              moves.push_back(std::move(*move));
    std::stable_sort(moves.begin(), moves.end(),
                     [](const Move &a, const Move &b) {
                       return a.score > b.score;
                     });
    bool improved = false;
    for (const Move &move : moves) {
      if (work.exhausted())
        break;
      Schedule trial;
      trial.steps.reserve(schedule.steps.size() + 1);
      trial.steps.insert(trial.steps.end(), schedule.steps.begin(),
                         schedule.steps.begin() + move.insertAt);
      trial.steps.insert(trial.steps.end(), move.block.begin(),
                         move.block.end());
      trial.steps.insert(trial.steps.end(),
                         schedule.steps.begin() + move.insertAt,
                         schedule.steps.end());
      if (move.removeStep >= 0)
        trial.steps.erase(trial.steps.begin() + move.removeStep);
      if (marks.violated(trial))
        continue;
      Simulation result = simulate(problem, trial);
      work.spend(kSimulationWeight * int64_t(trial.steps.size()));
      if (!result.valid)
        continue;
      int64_t trialExcess = getExcess(result, budget);
      if (trialExcess >= excess)
        continue;
      schedule = std::move(trial);
      simulation = std::move(result);
      excess = trialExcess;
      improved = true;
      break;
    }
    if (!improved)
      break;
  }
  measured = std::move(simulation);
}

} // namespace

namespace {
/// One search: its starts, the descent from each, and the choice among the
/// fitting schedules of one that packs.
class SearchRun {
public:
  SearchRun(const RematProblem &problem, const SolverOptions &options)
      : problem(problem), options(options),
        work(options.workLimit > 0 ? options.workLimit : kDefaultSearchWork,
             options.timeLimitSeconds),
        marks(problem) {}

  /// The starting order and the list schedules by each score (no
  /// recomputation), then the seed where it is short: the local search
  /// costs a simulation of the whole schedule per move.
  void makeStarts(const Schedule *seed);
  /// Descends from each start to `target`, then removes what recomputation
  /// the target allows.
  void runStarts(int64_t target);
  /// Where the arena must fit: the cheapest schedule that packs within the
  /// budget; while none does, descends again (a few rounds) to a target
  /// tightened by what the cheapest overshoots, as the pass would.
  void searchForPacking();
  SolverResult takeResult();

private:
  void consider(Schedule schedule);

  const RematProblem &problem;
  const SolverOptions &options;
  SearchWork work;
  RecomputeMarks marks;
  std::vector<Schedule> starts;
  SolverResult best = notApplicable("search", "no schedule");
  SolverResult last;
  /// Fitting schedules found, for the packed arena's choice.
  std::vector<SolverResult> fitting;
};
} // namespace

void SearchRun::makeStarts(const Schedule *seed) {
  size_t n = problem.nodes.size();
  OrderGraph graph(problem);
  std::vector<std::vector<NodeId>> orders;
  orders.push_back({});
  for (size_t id = 0; id < n; ++id)
    orders.back().push_back(id);
  for (int score = 0; score < 3; ++score)
    orders.push_back(listSchedule(problem, graph, {score}, work));
  std::sort(orders.begin() + 1, orders.end());
  orders.erase(std::unique(orders.begin() + 1, orders.end()), orders.end());
  for (std::vector<NodeId> &order : orders)
    starts.push_back(Schedule{std::move(order)});
  if (seed && seed->steps.size() <= 2 * n + 64)
    starts.push_back(*seed);
}

void SearchRun::consider(Schedule schedule) {
  SolverResult candidate =
      finish(problem, "search", std::move(schedule), options);
  work.spend(kSimulationWeight * int64_t(candidate.schedule.steps.size()));
  if (isBetterResult(candidate, best))
    best = candidate;
  last = std::move(candidate);
}

void SearchRun::runStarts(int64_t target) {
  for (size_t k = 0; k < starts.size() && !work.exhausted(); ++k) {
    Schedule schedule = marks.apply(starts[k]);
    Simulation simulation = simulate(problem, schedule);
    work.spend(kSimulationWeight * int64_t(schedule.steps.size()));
    if (!simulation.valid)
      continue;
    if (simulation.peakBytes > target) {
      PeakDescent descent(problem, target, work, marks);
      descent.run(schedule, simulation);
    }
    if (simulation.valid && simulation.peakBytes <= target)
      removeRecomputations(problem, schedule, simulation, target, work, marks);
    consider(std::move(schedule));
    if (meetsTarget(last))
      fitting.push_back(last);
  }
}

void SearchRun::searchForPacking() {
  if (!options.fitArena || !meetsTarget(best))
    return;
  int64_t target = options.budgetBytes;
  size_t from = 0;
  for (int round = 0; round < kPackingRounds; ++round) {
    std::stable_sort(fitting.begin() + from, fitting.end(),
                     [](const SolverResult &a, const SolverResult &b) {
                       return a.simulation.cost < b.simulation.cost;
                     });
    std::optional<int64_t> overshoot;
    bool packed = false;
    for (size_t k = from; k < fitting.size(); ++k) {
      work.spend(kSimulationWeight *
                 int64_t(fitting[k].simulation.buffers.size()));
      int64_t bytes = getPackedBytes(problem, fitting[k].simulation);
      if (bytes <= options.budgetBytes) {
        if (!packed || isBetterResult(fitting[k], best))
          best = fitting[k];
        packed = true;
        break;
      }
      if (!overshoot)
        overshoot = bytes - options.budgetBytes;
    }
    if (packed || !overshoot || work.exhausted())
      break;
    target -= *overshoot;
    if (target < problem.getPeakLowerBound())
      break;
    from = fitting.size();
    runStarts(target);
    if (fitting.size() == from)
      break;
  }
}

SolverResult SearchRun::takeResult() {
  best.solver = "search";
  best.timedOut = work.outOfTime;
  if (best.hasSchedule() && best.message.empty())
    best.message = "reordered and searched from " +
                   std::to_string(starts.size()) + " starts";
  return std::move(best);
}

SolverResult mlir::remat::solveSearch(const RematProblem &problem,
                                      const SolverOptions &options,
                                      const Schedule *seed) {
  size_t n = problem.nodes.size();
  if (n > kMaxSearchNodes)
    return notApplicable("search", "the search reorders graphs of up to " +
                                       std::to_string(kMaxSearchNodes) +
                                       " nodes; this one has " +
                                       std::to_string(n));
  SearchRun run(problem, options);
  run.makeStarts(seed);
  run.runStarts(options.budgetBytes);
  run.searchForPacking();
  return run.takeResult();
}
