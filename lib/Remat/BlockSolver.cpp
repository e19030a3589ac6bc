//===- BlockSolver.cpp - hierarchical checkpointing over found blocks -----===//
//
// The `blocks` solver: finds the block structure of a step's forward part on
// any DAG and chooses, by dynamic programming over the chain of blocks, which
// block boundaries to keep and how to treat each block between kept
// boundaries.
//
// Structure. A boundary after forward node i is crossed by the forward values
// defined before i that a forward node after i reads (node i's own results
// are the boundary's checkpoint). Values that stay live across a large part
// of the forward pass (a causal mask, positions, an embedding read by every
// block, a U-Net skip) would leave no boundary at all; they are set apart as
// long-lived: never dropped by this solver, their bytes charged everywhere
// (they are live in every measurement). A boundary is a position whose other
// crossing values are at most two (the residual stream read by a block's two
// branches) and, like its own results, are read by the backward too, so
// that keeping them leaves something to recompute from. Pure cut vertices
// (`chain`'s) are the boundaries with nothing crossing; the analysis runs
// with no long-lived values and with those of a forward span above 1/8 of
// the forward part, and keeps the cheaper result.
//
// Options. Between two kept boundaries a < b a block is treated one of four
// ways: dropped (every forward value in it, except b's checkpoint, dropped
// after the forward pass and recomputed once before its backward, as
// `chain`), kept (nothing dropped: for consecutive boundaries only), or
// selective (only values cheaper per byte than the forward part's median or
// its 80th percentile dropped: the expensive ones stay as inner
// checkpoints, as Megatron's selective recomputation keeps matmul outputs).
//
// Dynamic program. As in `chain`: what is live while a block's forward runs
// and while its backward (with its recomputation) runs is the same whatever
// is chosen elsewhere, plus what earlier kept boundaries and kept or
// selective blocks hold until their own backward. Blocks and options are
// measured by simulate(): one simulation keeps the boundaries every `span`
// from an offset, treats every block alike, and measures each block's
// windows less what the blocks before it hold (so blocks of span s take s
// simulations per option, whatever the number of boundaries). The DP
// (SegmentChoice.h, `chain`'s too) keeps per boundary the Pareto front (at
// most 100) of (bytes held from before, recomputation cost). The chosen
// schedule is simulated like every other; if the estimate was off and it
// overshoots, the DP runs again with the target lowered by the overshoot.
//
// Below the checkpoints' floor. Kept checkpoints are live at the step's
// widest point (a language model's logits and their gradient at the end of
// the forward pass), so plans alone stop short of the tightest budgets.
// The plans for looser targets (x1.05, x1.15, x1.4) and the plan that drops
// every block and keeps every boundary also go through the schedule builder
// with eviction under the budget (three scores, as the heuristic), which
// drops what the plan keeps where the budget needs it and recomputes it
// where read. The cheapest schedule within the budget wins, else the one
// with the smallest peak.
//
// Work. The simulations are bounded by a work limit (1,000,000 schedule
// steps by default, `work-limit` otherwise): spans grow while it allows,
// with at least 16 simulations (else "not applicable": about 30,000 nodes
// by default); boundaries beyond 160 are thinned evenly by the forward
// bytes. Without forward/backward phases or boundaries it is "not
// applicable".
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"

#include "BlockStructure.h"
#include "ScheduleBuilder.h"
#include "SegmentChoice.h"
#include "SolverSupport.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

using namespace mlir::remat;
using Clock = std::chrono::steady_clock;

namespace {

/// Boundaries the dynamic program takes at most.
constexpr size_t kMaxBoundaries = 160;
/// Schedule steps the measurements may build in all, by default (about a
/// quarter of a second on the GPT-style step, on this project's machines).
constexpr int64_t kDefaultWorkSteps = 1'000'000;
/// The fewest simulations worth running (about spans up to 3 with every
/// option).
constexpr double kMinSimulations = 16.0;
/// The most simulations: on small graphs more add little.
constexpr double kMaxSimulations = 600.0;
/// Pareto states kept per boundary.
constexpr size_t kMaxFront = 100;

enum class BlockOption { Drop, Keep, SelectiveHalf, SelectiveMost };
constexpr BlockOption kOptions[] = {BlockOption::Drop, BlockOption::Keep,
                                    BlockOption::SelectiveHalf,
                                    BlockOption::SelectiveMost};
constexpr int kNumOptions = 4;

/// Measures blocks between boundaries and builds the chosen schedule.
class BlockMeasurer {
public:
  BlockMeasurer(const BlockAnalysis &analysis, const SolverOptions &options,
                const std::vector<Boundary> &boundaries);

  /// Boundaries are -1 (the start), 0..L-1, L (the end).
  /// Measures every block of one tiling at once: the boundaries at
  /// `offset`, `offset + span`, ... kept, every block under `option`. A
  /// block's live bytes are those of its windows less what the blocks
  /// before it hold (as the dynamic program charges them). Calls
  /// `store(from, to, facts)` per block.
  template <typename Store>
  void measureTiling(int span, int offset, BlockOption option,
                     Store &&store) const;
  /// The discards of a whole choice: kept boundaries, and each block's
  /// option (blocks[k] covers kept[k-1] .. kept[k], the last one the end).
  std::vector<bool> discards(const std::vector<int> &kept,
                             const std::vector<BlockOption> &options) const;
  int64_t keptBytes(int boundary, int next) const;
  /// The problem's index, shared by every build of the measurements.
  const std::shared_ptr<const ScheduleIndex> &getIndex() const { return index; }

private:
  /// Per kept boundary, the step where the backward starts on the blocks
  /// before it; the search starts at `backwardBegin`.
  std::vector<int64_t> getBackwardStarts(const Schedule &schedule,
                                         const std::vector<int> &kept,
                                         size_t backwardBegin) const;
  /// Marks the discards of block (from, to) under `option` into `discarded`.
  void applyBlock(std::vector<bool> &discarded, int from, int to,
                  BlockOption option) const;
  int endPosition(int boundary) const {
    return boundary >= int(boundaries.size()) ? int(forward.size()) - 1
                                              : boundaries[boundary].position;
  }
  int startPosition(int boundary) const {
    return boundary < 0 ? 0 : boundaries[boundary].position + 1;
  }
  bool isKeptBy(int boundary, ValueId value) const {
    if (boundary < 0 || boundary >= int(boundaries.size()))
      return false;
    const std::vector<ValueId> &kept = boundaries[boundary].kept;
    return std::find(kept.begin(), kept.end(), value) != kept.end();
  }

  const BlockAnalysis &analysis;
  const RematProblem &problem;
  const std::vector<NodeId> &forward;
  const std::vector<Boundary> &boundaries;
  std::vector<bool> markedDiscards;
  std::shared_ptr<const ScheduleIndex> index;
  /// Cost per byte below which the selective options drop a value.
  double halfThreshold = 0.0, mostThreshold = 0.0;
};

BlockMeasurer::BlockMeasurer(const BlockAnalysis &analysis,
                             const SolverOptions &options,
                             const std::vector<Boundary> &boundaries)
    : analysis(analysis), problem(analysis.problem), forward(analysis.forward),
      boundaries(boundaries),
      markedDiscards(getMarkedDiscards(analysis.problem)),
      index(getScheduleIndex(analysis.problem, options)) {
  std::vector<double> ratios;
  for (NodeId id : forward)
    for (ValueId value : problem.nodes[id].results)
      if (analysis.readByBackward[value] && problem.values[value].bytes > 0)
        ratios.push_back(problem.nodes[id].cost /
                         double(problem.values[value].bytes));
  std::sort(ratios.begin(), ratios.end());
  if (!ratios.empty()) {
    halfThreshold = ratios[ratios.size() / 2];
    mostThreshold = ratios[std::min(ratios.size() - 1, ratios.size() * 4 / 5)];
  }
}

int64_t BlockMeasurer::keptBytes(int boundary, int next) const {
  if (boundary < 0 || boundary >= int(boundaries.size()))
    return 0;
  int64_t bytes = 0;
  for (ValueId value : boundaries[boundary].kept)
    if (!isKeptBy(next, value))
      bytes = addBytesSaturated(bytes, problem.values[value].bytes);
  return bytes;
}

void BlockMeasurer::applyBlock(std::vector<bool> &discarded, int from, int to,
                               BlockOption option) const {
  int begin = startPosition(from);
  int end = endPosition(to);
  bool last = to >= int(boundaries.size());
  for (int p = begin; p <= end; ++p) {
    const RematNode &node = problem.nodes[forward[p]];
    if (node.policy == NodePolicy::Keep)
      continue;
    for (ValueId value : node.results) {
      if (analysis.longLived[value] || (!last && isKeptBy(to, value)))
        continue;
      bool drop = false;
      double bytes = double(std::max<int64_t>(problem.values[value].bytes, 1));
      switch (option) {
      case BlockOption::Drop:
        drop = true;
        break;
      case BlockOption::Keep:
        drop = false;
        break;
      case BlockOption::SelectiveHalf:
        drop = node.cost / bytes < halfThreshold;
        break;
      case BlockOption::SelectiveMost:
        drop = node.cost / bytes < mostThreshold;
        break;
      }
      if (drop)
        discarded[value] = true;
    }
  }
}

std::vector<bool>
BlockMeasurer::discards(const std::vector<int> &kept,
                        const std::vector<BlockOption> &options) const {
  std::vector<bool> discarded = markedDiscards;
  int from = -1;
  for (size_t k = 0; k <= kept.size(); ++k) {
    int to = k < kept.size() ? kept[k] : int(boundaries.size());
    applyBlock(discarded, from, to, options[k]);
    from = to;
  }
  return discarded;
}

// A block's forward window: its first computations. Its backward window:
// from where the backward starts on the blocks before its end boundary to
// where it starts on those before its start boundary (the end of the
// forward pass and the end of the step for the last and first blocks). The
// backward starts on the blocks before a boundary at the first step after
// the forward pass that reads a forward value (not long-lived, not kept by
// the boundary) made before the boundary's node, or recomputes a forward
// node at or before it (a dropped value's recomputation comes just before
// the read that needs it). Those points cut the backward the same way
// whatever is kept, so the windows of consecutive blocks tile it. The later
// the boundary, the earlier its point: one pass from the last kept boundary
// back.
std::vector<int64_t>
BlockMeasurer::getBackwardStarts(const Schedule &schedule,
                                 const std::vector<int> &kept,
                                 size_t backwardBegin) const {
  auto isForward = [&](NodeId id) {
    return problem.nodes[id].phase == NodePhase::Forward;
  };
  size_t steps = schedule.steps.size();
  std::vector<int64_t> starts(kept.size(), int64_t(steps));
  size_t cursor = backwardBegin;
  for (size_t j = kept.size(); j-- > 0;) {
    int boundary = kept[j];
    NodeId threshold = forward[boundaries[boundary].position];
    for (; cursor < steps; ++cursor) {
      NodeId id = schedule.steps[cursor];
      bool hit =
          isForward(id) && id <= threshold &&
          std::none_of(problem.nodes[id].results.begin(),
                       problem.nodes[id].results.end(), [&](ValueId value) {
                         return analysis.longLived[value];
                       });
      for (ValueId operand : problem.nodes[id].operands) {
        NodeId producer = problem.values[operand].producer;
        if (isForward(producer) && producer < threshold &&
            !analysis.longLived[operand] && !isKeptBy(boundary, operand))
          hit = true;
      }
      if (hit)
        break;
    }
    starts[j] = int64_t(cursor);
  }
  return starts;
}

template <typename Store>
void BlockMeasurer::measureTiling(int span, int offset, BlockOption option,
                                  Store &&store) const {
  int count = int(boundaries.size());
  std::vector<int> kept;
  for (int b = offset; b < count; b += span)
    kept.push_back(b);
  std::vector<BlockOption> options(kept.size() + 1, option);
  std::vector<bool> discarded = discards(kept, options);
  Schedule schedule = buildWithDiscards(problem, discarded, index);
  Simulation simulation = simulate(problem, schedule);
  if (!simulation.valid)
    return;
  auto isForward = [&](NodeId id) {
    return problem.nodes[id].phase == NodePhase::Forward;
  };
  size_t steps = schedule.steps.size();
  // First computations of forward nodes, and repeated runs of the others.
  std::vector<int64_t> firstAt(problem.nodes.size(), -1);
  std::vector<double> otherRepeats(steps + 1, 0.0); // prefix sums
  int64_t lastForward = -1;
  for (size_t p = 0; p < steps; ++p) {
    NodeId id = schedule.steps[p];
    bool firstTime = firstAt[id] < 0;
    if (firstTime)
      firstAt[id] = int64_t(p);
    if (firstTime && isForward(id))
      lastForward = int64_t(p);
    otherRepeats[p + 1] = otherRepeats[p] + (!firstTime && !isForward(id)
                                                 ? problem.nodes[id].cost
                                                 : 0.0);
  }
  std::vector<int64_t> windowEnd =
      getBackwardStarts(schedule, kept, size_t(lastForward + 1));
  auto maxOver = [&](int64_t begin, int64_t end) {
    return getMaxLiveBytes(simulation, begin, end);
  };
  int64_t held = 0;
  for (size_t j = 0; j <= kept.size(); ++j) {
    int from = j == 0 ? -1 : kept[j - 1];
    int to = j < kept.size() ? kept[j] : count;
    int begin = startPosition(from), end = endPosition(to);
    SegmentFacts facts;
    facts.valid = true;
    int64_t forwardBegin = int64_t(steps), forwardEnd = -1;
    for (int p = begin; p <= end; ++p) {
      NodeId id = forward[p];
      forwardBegin = std::min(forwardBegin, firstAt[id]);
      forwardEnd = std::max(forwardEnd, firstAt[id]);
      facts.cost += problem.nodes[id].cost *
                    double(std::max(0, simulation.runs[id] - 1));
    }
    int64_t backwardBegin = to >= count ? lastForward + 1 : windowEnd[j];
    int64_t backwardEnd = from < 0 ? int64_t(steps) : windowEnd[j - 1];
    if (backwardEnd > backwardBegin)
      facts.cost += otherRepeats[backwardEnd] - otherRepeats[backwardBegin];
    int64_t live = std::max(maxOver(forwardBegin, forwardEnd + 1),
                            maxOver(backwardBegin, backwardEnd));
    facts.liveBytes = std::max<int64_t>(0, live - held);
    if (option != BlockOption::Drop && to < count)
      for (int p = begin; p <= end; ++p)
        for (ValueId value : problem.nodes[forward[p]].results)
          if (!discarded[value] && analysis.readByBackward[value] &&
              !analysis.longLived[value] && !isKeptBy(to, value))
            facts.heldInside = addBytesSaturated(facts.heldInside,
                                                 problem.values[value].bytes);
    store(from, to, facts);
    held = addBytesSaturated(addBytesSaturated(held, keptBytes(from, to)),
                             facts.heldInside);
  }
}

/// The result of one analysis: a schedule, or none.
struct Attempt {
  SolverResult best = notApplicable("blocks", "");
  std::string message;
};

/// Picks at most `limit` boundaries, evenly by the forward bytes the
/// backward reads.
std::vector<Boundary> thinBoundaries(const BlockAnalysis &analysis,
                                     size_t limit) {
  const std::vector<Boundary> &all = analysis.boundaries;
  if (all.size() <= limit)
    return all;
  const RematProblem &problem = analysis.problem;
  std::vector<double> prefix(analysis.forward.size() + 1, 0.0);
  for (size_t i = 0; i < analysis.forward.size(); ++i) {
    double bytes = 0;
    for (ValueId value : problem.nodes[analysis.forward[i]].results)
      if (analysis.readByBackward[value])
        bytes += double(problem.values[value].bytes);
    prefix[i + 1] = prefix[i] + bytes;
  }
  std::vector<Boundary> chosen;
  size_t next = 0;
  for (size_t k = 1; k <= limit && next < all.size(); ++k) {
    double target = prefix.back() * double(k) / double(limit + 1);
    size_t best = next;
    for (size_t i = next; i < all.size(); ++i) {
      if (std::abs(prefix[all[i].position + 1] - target) <
          std::abs(prefix[all[best].position + 1] - target))
        best = i;
      if (prefix[all[i].position + 1] > target)
        break;
    }
    chosen.push_back(all[best]);
    next = best + 1;
  }
  return chosen;
}

/// How far the measurements reach within the work: blocks up to `maxSpan`
/// boundaries long, with the selective options up to `selectiveSpan`.
struct SpanLimits {
  double affordable = 0.0; ///< simulations the work affords
  int maxSpan = 0;
  int selectiveSpan = 0;
};

/// Each simulation builds and measures a schedule of about the starting
/// order's length (more with recomputation): the work affords so many. One
/// simulation measures every block of a tiling (boundaries kept every
/// `span`, from an offset): blocks of span s take s tilings per option.
/// Spans grow while the work allows: first with the selective options, then
/// dropped blocks alone. The kept single blocks take one.
SpanLimits chooseSpans(size_t nodeCount, int64_t workSteps, size_t limit) {
  SpanLimits spans;
  double perMeasure = 2.0 * double(nodeCount) + 1.0;
  spans.affordable = std::min(double(workSteps) / perMeasure, kMaxSimulations);
  double used = 1.0;
  for (int span = 1; span <= int(limit) + 1; ++span) {
    if (used + 3.0 * span > spans.affordable)
      break;
    used += 3.0 * span;
    spans.maxSpan = spans.selectiveSpan = span;
  }
  for (int span = spans.maxSpan + 1; span <= int(limit) + 1; ++span) {
    if (used + span > spans.affordable)
      break;
    used += span;
    spans.maxSpan = span;
  }
  return spans;
}

/// One analysis's measurements, its plans by the segment program, and the
/// schedules they lead to.
class BlockSearch {
public:
  BlockSearch(const BlockAnalysis &analysis, std::vector<Boundary> chosen,
              const SolverOptions &options,
              std::optional<Clock::time_point> deadline, bool &timedOut);

  /// Measures every block up to the spans, shorter blocks first, so that a
  /// run cut short by the time limit still has the fine-grained ones.
  void measure(const SpanLimits &spans);
  /// The plan at the budget; where the estimate was off and it overshoots,
  /// again with the target lowered by the overshoot.
  void tryPlanAtBudget();
  /// Below what a plan reaches by itself (checkpoints kept until their
  /// backward hold memory at the step's widest point, e.g. a language
  /// model's logits): plans for looser targets, and the plan that drops
  /// every block and keeps every boundary, with the schedule builder
  /// evicting under the budget what the plan keeps (recomputed where read
  /// again).
  void tryLoosePlansWithEviction();

  SolverResult takeBest() { return std::move(best); }

private:
  /// The kept boundaries and each block's option.
  struct Plan {
    std::vector<int> kept;
    std::vector<BlockOption> options;
    bool operator==(const Plan &other) const {
      return kept == other.kept && options == other.options;
    }
  };

  std::array<SegmentFacts, kNumOptions> &at(int from, int to) {
    return measured[size_t(from + 1) * width + size_t(to + 1)];
  }
  /// The dynamic program at a target, or nothing when no choice fits it.
  std::optional<Plan> choosePlan(int64_t target);
  std::string describe(const Plan &plan, const char *how) const;
  void consider(Schedule schedule, std::string message);

  const BlockAnalysis &analysis;
  const RematProblem &problem;
  std::vector<Boundary> boundaries;
  BlockMeasurer measurer;
  const SolverOptions &options;
  std::optional<Clock::time_point> deadline;
  bool &timedOut;
  int count;
  size_t width;
  /// measured[(from + 1) * width + (to + 1)][option]
  std::vector<std::array<SegmentFacts, kNumOptions>> measured;
  SolverResult best = notApplicable("blocks", "");
};

BlockSearch::BlockSearch(const BlockAnalysis &analysis,
                         std::vector<Boundary> chosen,
                         const SolverOptions &options,
                         std::optional<Clock::time_point> deadline,
                         bool &timedOut)
    : analysis(analysis), problem(analysis.problem),
      boundaries(std::move(chosen)), measurer(analysis, options, boundaries),
      options(options), deadline(deadline), timedOut(timedOut),
      count(int(boundaries.size())), width(size_t(count + 2)),
      measured(width * width) {}

void BlockSearch::measure(const SpanLimits &spans) {
  auto store = [this](BlockOption option) {
    return [this, option](int from, int to, const SegmentFacts &facts) {
      SegmentFacts &slot = at(from, to)[int(option)];
      if (!slot.valid)
        slot = facts;
    };
  };
  measurer.measureTiling(1, 0, BlockOption::Keep, store(BlockOption::Keep));
  for (int span = 1; span <= spans.maxSpan && !timedOut; ++span)
    for (int offset = 0; offset < span && !timedOut; ++offset)
      for (BlockOption option : kOptions) {
        if (option == BlockOption::Keep ||
            (option != BlockOption::Drop && span > spans.selectiveSpan))
          continue;
        if (deadline && Clock::now() > *deadline) {
          timedOut = true;
          break;
        }
        measurer.measureTiling(span, offset, option, store(option));
      }
}

std::optional<BlockSearch::Plan> BlockSearch::choosePlan(int64_t target) {
  SegmentProgram program;
  program.boundaryCount = count;
  program.optionCount = kNumOptions;
  program.maxFront = kMaxFront;
  auto measure = [this](int from, int to, int option) {
    return at(from, to)[option];
  };
  program.measure = measure;
  auto keptBytes = [this](int from, int to) {
    return measurer.keptBytes(from, to);
  };
  program.keptBytes = keptBytes;
  std::optional<SegmentChoice> choice = chooseSegments(program, target);
  if (!choice)
    return std::nullopt;
  Plan plan;
  plan.kept = std::move(choice->kept);
  for (int option : choice->options)
    plan.options.push_back(kOptions[option]);
  return plan;
}

std::string BlockSearch::describe(const Plan &plan, const char *how) const {
  int dropped = 0, whole = 0;
  for (BlockOption option : plan.options) {
    dropped += option == BlockOption::Drop;
    whole += option == BlockOption::Keep;
  }
  return "keeps " + std::to_string(plan.kept.size()) + " of " +
         std::to_string(count) + " block boundaries (" +
         std::to_string(analysis.boundaries.size()) + " found); " +
         std::to_string(dropped) + " blocks recomputed, " +
         std::to_string(whole) + " kept, " +
         std::to_string(int(plan.options.size()) - dropped - whole) +
         " selective" + how;
}

void BlockSearch::consider(Schedule schedule, std::string message) {
  SolverResult candidate = finish(problem, "blocks", std::move(schedule),
                                  options, std::move(message));
  if (isBetterResult(candidate, best))
    best = std::move(candidate);
}

void BlockSearch::tryPlanAtBudget() {
  int64_t target = options.budgetBytes;
  for (int round = 0; round < 4; ++round) {
    std::optional<Plan> plan = choosePlan(target);
    if (!plan)
      break;
    Schedule schedule =
        buildWithDiscards(problem, measurer.discards(plan->kept, plan->options),
                          measurer.getIndex());
    Simulation simulation = simulate(problem, schedule);
    if (!simulation.valid)
      break;
    consider(std::move(schedule), describe(*plan, ""));
    if (simulation.peakBytes <= options.budgetBytes)
      break;
    target -= simulation.peakBytes - options.budgetBytes;
  }
}

void BlockSearch::tryLoosePlansWithEviction() {
  std::vector<Plan> loose;
  // Looser targets saturate at the int64 range (a budget of any size).
  auto loosen = [&](double factor) {
    double target = double(options.budgetBytes) * factor;
    return target >= 0x1p63 ? std::numeric_limits<int64_t>::max()
                            : int64_t(target);
  };
  for (double factor : {1.0, 1.05, 1.15, 1.4})
    if (std::optional<Plan> plan = choosePlan(loosen(factor)))
      if (loose.empty() || !(*plan == loose.back()))
        loose.push_back(std::move(*plan));
  Plan everything;
  for (int boundary = 0; boundary < count; ++boundary)
    everything.kept.push_back(boundary);
  everything.options.assign(count + 1, BlockOption::Drop);
  loose.push_back(everything);
  int64_t buildWork = 64 * int64_t(problem.nodes.size()) + 1'000'000;
  for (const Plan &plan : loose) {
    std::vector<bool> discarded = measurer.discards(plan.kept, plan.options);
    for (int variant = 0; variant < 3; ++variant) {
      ScheduleBuilder builder(problem, measurer.getIndex());
      builder.setDiscarded(discarded);
      builder.setBudget(options.budgetBytes,
                        variant == 0 ? EvictionScore::CostPerByteDistance
                                     : EvictionScore::ChainCostPerByteDistance);
      builder.setHoldOperands(variant == 0);
      if (variant == 2)
        builder.setBudget(options.budgetBytes, EvictionScore::ByteDistance);
      builder.setLimits(buildWork, deadline);
      Schedule schedule = builder.build();
      if (builder.aborted())
        continue;
      timedOut |= builder.ranOutOfTime();
      consider(std::move(schedule), describe(plan, ", evicting under the "
                                                   "budget"));
    }
  }
}

Attempt solveOnAnalysis(const BlockAnalysis &analysis,
                        const SolverOptions &options, int64_t workSteps,
                        std::optional<Clock::time_point> deadline,
                        bool &timedOut) {
  Attempt attempt;
  size_t limit = std::min(analysis.boundaries.size(), kMaxBoundaries);
  SpanLimits spans =
      chooseSpans(analysis.problem.nodes.size(), workSteps, limit);
  if (analysis.boundaries.empty()) {
    attempt.message = "the forward part has no block boundaries";
    return attempt;
  }
  // Fewer simulations than this measure too little to be worth the work.
  if (spans.affordable < kMinSimulations) {
    attempt.message = "the graph is too large for the block measurements "
                      "within the work limit (" +
                      std::to_string(workSteps) + " steps)";
    return attempt;
  }
  BlockSearch search(analysis, thinBoundaries(analysis, limit), options,
                     deadline, timedOut);
  search.measure(spans);
  search.tryPlanAtBudget();
  search.tryLoosePlansWithEviction();
  attempt.best = search.takeBest();
  if (!attempt.best.hasSchedule())
    attempt.message = "no choice of blocks fits the budget";
  return attempt;
}

} // namespace

SolverResult mlir::remat::solveBlocks(const RematProblem &problem,
                                      const SolverOptions &options) {
  Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> deadline =
      getDeadline(start, options.timeLimitSeconds);
  std::vector<NodeId> forward = getForwardNodes(problem);
  if (forward.size() < 2 || forward.size() == problem.nodes.size())
    return notApplicable("blocks", "the step has no forward and backward "
                                   "phases (remat.phase)");
  int64_t workSteps =
      options.workLimit > 0 ? options.workLimit : kDefaultWorkSteps;
  int64_t count = int64_t(forward.size());
  // Pure cut vertices, then with long-lived values set apart (the second
  // only where it differs).
  std::vector<BlockAnalysis> analyses;
  analyses.emplace_back(problem, forward, count);
  analyses.emplace_back(problem, forward, std::max<int64_t>(8, count / 8));
  if (analyses[1].longLived == analyses[0].longLived)
    analyses.pop_back();
  SolverResult best = notApplicable("blocks", "");
  bool timedOut = false;
  std::string why;
  for (const BlockAnalysis &analysis : analyses) {
    Attempt attempt =
        solveOnAnalysis(analysis, options, workSteps / int64_t(analyses.size()),
                        deadline, timedOut);
    if (!attempt.best.hasSchedule()) {
      if (why.empty())
        why = attempt.message;
      continue;
    }
    if (isBetterResult(attempt.best, best))
      best = std::move(attempt.best);
  }
  if (!best.hasSchedule())
    return notApplicable("blocks",
                         why.empty() ? "no block structure found" : why);
  best.timedOut = timedOut;
  return best;
}
