//===- Rematerialize.cpp - rematerialization of a step under a budget -----===//
//
// IR glue around the IR-free solvers: extraction, planning with the arena
// check, rewriting, and the remat-rematerialize pass.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Rematerialize.h"

#include "remat/Analysis/MemoryPlan.h"
#include "remat/Analysis/PeakMemory.h"
#include "remat/Analysis/ValueStorage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Remat/OffsetPacker.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

#include <chrono>
#include <limits>

using namespace mlir;
using namespace mlir::remat;

//===----------------------------------------------------------------------===//
// Extraction
//===----------------------------------------------------------------------===//

static NodePhase toNodePhase(Operation *op) {
  std::optional<Phase> phase = getPhase(op);
  if (!phase)
    return NodePhase::Unknown;
  switch (*phase) {
  case Phase::Forward:
    return NodePhase::Forward;
  case Phase::Backward:
    return NodePhase::Backward;
  case Phase::Update:
    return NodePhase::Update;
  }
  return NodePhase::Unknown;
}

static NodePolicy toNodePolicy(Operation *op) {
  std::optional<OpPolicy> policy = getPolicy(op);
  if (!policy)
    return NodePolicy::None;
  return *policy == OpPolicy::Keep ? NodePolicy::Keep : NodePolicy::Recompute;
}

/// The argument whose old value reading `value` reads: `value` itself or
/// the source of a chain of views, when that is an argument; else null.
static BlockArgument getArgumentRead(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isViewOp(op))
      return {};
    value = cast<ViewLikeOpInterface>(op).getViewSource();
  }
  return cast<BlockArgument>(value);
}

namespace {
/// Builds the IR-free problem of one function, op by op in its schedule.
class ProblemExtractor {
public:
  ProblemExtractor(FunctionOpInterface function, RematProblem &problem)
      : body(function.getFunctionBody().front()), storage(function),
        problem(problem) {}

  /// Each argument updated in place is a state.
  void addStates();
  /// Adds `op` as a node costing `cost`.
  void addNode(Operation *op, const OpCost &cost);
  /// Marks what the function returns (and the owners of returned views).
  void markOutputs();

private:
  /// Every value `op` reads from the body, its regions included (reading a
  /// view reads its owner's bytes too), and the states it reads.
  void collectReads(Operation *op, std::vector<ValueId> &operands,
                    std::vector<int32_t> &stateReads) const;
  /// Records the values of `op`'s results (node `id`).
  void addResults(Operation *op, NodeId id);

  Block &body;
  ValueStorage storage;
  RematProblem &problem;
  llvm::DenseMap<Value, ValueId> valueIds;
  llvm::DenseMap<BlockArgument, int32_t> stateOf;
};
} // namespace

void ProblemExtractor::addStates() {
  for (BlockArgument argument : body.getArguments())
    if (storage.getUpdate(argument)) {
      stateOf[argument] = problem.stateNames.size();
      problem.stateNames.push_back(getValueName(argument));
    }
}

void ProblemExtractor::collectReads(Operation *op,
                                    std::vector<ValueId> &operands,
                                    std::vector<int32_t> &stateReads) const {
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands()) {
      if (BlockArgument argument = getArgumentRead(operand)) {
        auto state = stateOf.find(argument);
        if (state != stateOf.end() &&
            !llvm::is_contained(stateReads, state->second))
          stateReads.push_back(state->second);
      }
      auto it = valueIds.find(operand);
      if (it == valueIds.end())
        continue;
      operands.push_back(it->second);
      if (ValueId owner = problem.values[it->second].viewOf; owner >= 0)
        operands.push_back(owner);
    }
  });
}

void ProblemExtractor::addNode(Operation *op, const OpCost &cost) {
  // Updated state and views have no arena bytes of their own.
  std::vector<int64_t> resultBytes;
  for (Value result : op->getResults())
    resultBytes.push_back(storage.getKind(result) == StorageKind::Arena
                              ? getTypeBytes(result.getType()).value_or(0)
                              : 0);
  std::vector<ValueId> operands;
  std::vector<int32_t> stateReads;
  collectReads(op, operands, stateReads);
  std::string name = getOpName(op).str();
  if (name.empty())
    name = getValueName(op->getNumResults() ? op->getResult(0) : Value());
  NodeId id = problem.addNode(name, cost.cost, resultBytes, operands);
  RematNode &node = problem.nodes[id];
  node.workspaceBytes = cost.workspaceBytes;
  node.recomputable = cost.recomputable && isMemoryEffectFree(op);
  node.phase = toNodePhase(op);
  node.policy = toNodePolicy(op);
  node.stateReads = std::move(stateReads);
  addResults(op, id);
}

void ProblemExtractor::addResults(Operation *op, NodeId id) {
  RematNode &node = problem.nodes[id];
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    ValueId value = node.results[index];
    valueIds[result] = value;
    problem.values[value].alignment =
        isa<GraphNodeOp>(op) ? 1 : kTensorAlignment;
    if (BlockArgument updated = storage.getUpdatedArgument(result)) {
      node.stateWrites.push_back(stateOf.lookup(updated));
      node.recomputable = false;
    }
    Value owner = storage.getOwner(result);
    if (storage.getKind(result) == StorageKind::View &&
        !isa<BlockArgument>(owner))
      problem.values[value].viewOf = valueIds.lookup(owner);
  }
}

void ProblemExtractor::markOutputs() {
  for (Value returned : body.getTerminator()->getOperands()) {
    auto it = valueIds.find(returned);
    if (it == valueIds.end())
      continue;
    problem.values[it->second].isOutput = true;
    if (ValueId owner = problem.values[it->second].viewOf; owner >= 0)
      problem.values[owner].isOutput = true;
  }
}

FailureOr<ExtractedProblem>
mlir::remat::extractRematProblem(FunctionOpInterface function,
                                 const CostModel &costModel) {
  FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
  if (failed(analysis))
    return failure();
  ExtractedProblem extracted;
  RematProblem &problem = extracted.problem;
  problem.argumentBytes = analysis->getArgumentBytes();
  ProblemExtractor extractor(function, problem);
  extractor.addStates();
  for (Operation *op : analysis->getSchedule()) {
    FailureOr<OpCost> cost = costModel.getCost(op);
    if (failed(cost))
      return failure();
    extractor.addNode(op, *cost);
    extracted.ops.push_back(op);
  }
  extractor.markOutputs();
  std::string error = problem.verify();
  if (!error.empty())
    return emitFunctionError(function)
           << "internal error: the extracted problem is malformed: " << error;
  return extracted;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

LogicalResult mlir::remat::verifyRematOptions(const RematOptions &options,
                                              Location loc) {
  if (!(options.timeLimitSeconds >= 0)) {
    std::string limit;
    llvm::raw_string_ostream(limit)
        << llvm::format("%g", options.timeLimitSeconds);
    return emitError(loc) << "time-limit must be a non-negative number of "
                             "seconds (0 for none), got "
                          << limit;
  }
  if (options.workLimit < 0)
    return emitError(loc) << "work-limit must be a non-negative count of "
                             "search steps (0 for the solver's default), got "
                          << options.workLimit;
  return success();
}

/// The op that runs at `step` of `schedule`.
static Operation *getStepOp(const ExtractedProblem &extracted,
                            const Schedule &schedule, int64_t step) {
  return extracted.ops[schedule.steps[step]];
}

/// The arena `schedule` needs (measured as `simulation`), packed as
/// remat-plan-memory packs it; an error at the op whose buffer would end
/// beyond the int64 range.
static FailureOr<int64_t> getArenaBytes(const ExtractedProblem &extracted,
                                        const Schedule &schedule,
                                        const Simulation &simulation) {
  std::vector<PackItem> items;
  for (auto [buffer, alignment] :
       llvm::zip(simulation.buffers, simulation.alignments))
    items.push_back({buffer, alignment});
  Packing packing = packOffsets(items);
  if (packing.overflows()) {
    // Every buffer starts at the step that defines it.
    int64_t step = items[*packing.overflowItem].lifetime.first;
    return emitOpError(getStepOp(extracted, schedule, step))
           << "cannot be placed in the arena: its offset and bytes exceed the "
              "int64 range";
  }
  return packing.arenaBytes;
}

/// Arguments + `arenaBytes`; an error at the function when the sum leaves
/// the int64 range.
static FailureOr<int64_t> addArena(FunctionOpInterface function,
                                   const RematProblem &problem,
                                   int64_t arenaBytes) {
  std::optional<int64_t> total = addBytes(problem.argumentBytes, arenaBytes);
  if (!total)
    return emitFunctionError(function)
           << "arguments + arena (" << problem.argumentBytes << " + "
           << arenaBytes << " bytes) exceed the int64 range";
  return *total;
}

/// Checks that the step's bytes can be summed in int64 by every solver, and
/// measures what the step needs as given: arguments + the packed arena of
/// the given order (the peak alone without fit-arena); errors name the op
/// where a sum overflows.
static LogicalResult checkBytesAndMeasureGiven(FunctionOpInterface function,
                                               const ExtractedProblem &extracted,
                                               const Simulation &before,
                                               const RematOptions &options,
                                               RematPlan &plan) {
  const RematProblem &problem = extracted.problem;
  if (std::optional<NodeId> node = problem.findByteOverflow())
    return emitOpError(extracted.ops[*node])
           << "brings the step's bytes (arguments, every value and workspace "
              "so far) beyond the int64 range, which remat cannot plan";
  if (!before.valid) {
    if (before.overflowStep >= 0)
      return emitOpError(extracted.ops[before.overflowStep])
             << "runs with more bytes live than the int64 range holds";
    return emitFunctionError(function)
           << "internal error: the given order is invalid: " << before.error;
  }
  plan.peakBytesBefore = before.peakBytes;
  plan.costBefore = before.cost;
  plan.liveBytesBefore = before.liveBytes;
  FailureOr<int64_t> arenaBytes =
      getArenaBytes(extracted, getStartingSchedule(problem), before);
  if (failed(arenaBytes))
    return failure();
  plan.arenaBytesBefore = *arenaBytes;
  FailureOr<int64_t> given = addArena(function, problem, *arenaBytes);
  if (failed(given))
    return failure();
  plan.givenBytes = options.fitArena ? *given : before.peakBytes;
  return success();
}

/// Whether `kind` chooses what to recompute by the budget, so that a budget
/// the given order meets leaves nothing to recompute; the checkpointing
/// policies (segments, sqrt, marks, block-checkpoints) recompute by design.
static bool choosesByBudget(SolverKind kind) {
  switch (kind) {
  case SolverKind::Chain:
  case SolverKind::Blocks:
  case SolverKind::Heuristic:
  case SolverKind::Search:
  case SolverKind::Exact:
  case SolverKind::Auto:
    return true;
  default:
    return false;
  }
}

/// The given order, where it meets the budget and the solver would only
/// search for what it already has: nothing recomputed, and optimal (every op
/// runs once, the least any schedule can cost).
static std::optional<SolverResult>
solveGivenOrderIfItFits(const RematProblem &problem, const RematPlan &plan,
                        const RematOptions &options,
                        const SolverOptions &solverOptions) {
  if (!choosesByBudget(options.solver.getKind()) ||
      plan.givenBytes > plan.budgetBytes)
    return std::nullopt;
  SolverResult result = solveNone(problem, solverOptions);
  if (!result.hasSchedule())
    return std::nullopt;
  result.status = SolveStatus::Optimal;
  result.lowerBoundCost = result.simulation.cost;
  result.message = "the step as given fits the budget";
  return result;
}

/// Resolves the budget against what the step needs as given.
static LogicalResult resolveBudget(FunctionOpInterface function,
                                   const RematOptions &options,
                                   RematPlan &plan) {
  std::string error;
  std::optional<int64_t> budget = options.budget.resolve(plan.givenBytes, error);
  if (!budget)
    return emitFunctionError(function) << "budget " << error;
  plan.budgetBytes = *budget;
  return success();
}

namespace {
/// One solve at one target and what its schedule needs once packed.
struct ArenaAttempt {
  SolverResult result;
  /// The peak the solver was asked for.
  int64_t target = 0;
  int64_t arenaBytes = 0;
  /// Arguments + arena (the peak alone without fit-arena).
  int64_t total = 0;
  /// The solver's packing alternative rather than its own choice.
  bool alternative = false;
};

/// The attempts of the default pipeline: the best so far against the
/// budget, and what every attempt's schedules reached.
struct ArenaSearch {
  std::optional<ArenaAttempt> best;
  std::optional<int64_t> smallestPeak;
  std::optional<double> firstLowerBound;
  std::vector<int64_t> triedTargets;
  /// A solver's own choice (not a packing alternative) met the budget:
  /// lower targets would only cost more.
  bool choiceFits = false;

  bool fits(int64_t budget) const {
    return best && best->result.hasSchedule() && best->total <= budget;
  }

  /// Keeps `attempt` if it is better against `budget`: one that fits beats
  /// one that does not; of two that fit, the cheaper (the first on ties);
  /// of two that do not, the one closer to the budget.
  void consider(ArenaAttempt attempt, int64_t budget) {
    bool attemptFits = attempt.total <= budget;
    if (best && best->result.hasSchedule()) {
      bool bestFits = best->total <= budget;
      if (attemptFits != bestFits ? !attemptFits
          : attemptFits
              ? attempt.result.simulation.cost >= best->result.simulation.cost
              : attempt.total >= best->total)
        return;
    }
    best = std::move(attempt);
  }
};
} // namespace

/// What one attempt reached: its schedule's peak and total, and whether the
/// solver met its target.
struct AttemptOutcome {
  int64_t peak = 0;
  int64_t total = 0;
  bool solverFits = false;
};

/// Packs `result`'s schedule: the attempt with its arena and total.
static FailureOr<ArenaAttempt> measureAttempt(FunctionOpInterface function,
                                              const ExtractedProblem &extracted,
                                              const RematOptions &options,
                                              SolverResult result,
                                              int64_t target) {
  // The solve packed it already where it weighed its packing.
  FailureOr<int64_t> arenaBytes =
      result.packedBytes &&
              *result.packedBytes != std::numeric_limits<int64_t>::max()
          ? *result.packedBytes - extracted.problem.argumentBytes
          : getArenaBytes(extracted, result.schedule, result.simulation);
  if (failed(arenaBytes))
    return failure();
  FailureOr<int64_t> argumentsAndArena =
      addArena(function, extracted.problem, *arenaBytes);
  if (failed(argumentsAndArena))
    return failure();
  int64_t total =
      options.fitArena ? *argumentsAndArena : result.simulation.peakBytes;
  return ArenaAttempt{std::move(result), target, *arenaBytes, total};
}

/// Solves at `solverOptions.budgetBytes` and packs the schedule (and the
/// solver's packing alternative, where the schedule packs beyond the
/// budget); records both in `search`. Returns what the solver's choice
/// reached (std::nullopt when it found no schedule).
static FailureOr<std::optional<AttemptOutcome>>
solveAttempt(FunctionOpInterface function, const ExtractedProblem &extracted,
             const RematOptions &options, const SolverOptions &solverOptions,
             int64_t budget, ArenaSearch &search) {
  int64_t target = solverOptions.budgetBytes;
  search.triedTargets.push_back(target);
  SolverResult result = solve(extracted.problem, options.solver, solverOptions);
  // Every attempt's schedules count for the unmet-budget message.
  result.noteSmallestPeak(search.smallestPeak);
  if (result.hasSchedule())
    result.noteSmallestPeak(result.simulation.peakBytes);
  search.smallestPeak = result.smallestPeakBytes;
  if (search.triedTargets.size() == 1)
    search.firstLowerBound = result.lowerBoundCost;
  if (!result.hasSchedule()) {
    if (!search.best)
      search.best = ArenaAttempt{std::move(result), target, 0, 0};
    return std::optional<AttemptOutcome>();
  }
  std::shared_ptr<const SolverResult> alternative = result.packingAlternative;
  AttemptOutcome outcome{result.simulation.peakBytes, 0,
                         result.status == SolveStatus::Feasible ||
                             result.status == SolveStatus::Optimal};
  FailureOr<ArenaAttempt> attempt =
      measureAttempt(function, extracted, options, std::move(result), target);
  if (failed(attempt))
    return failure();
  outcome.total = attempt->total;
  search.choiceFits |= attempt->total <= budget;
  search.consider(std::move(*attempt), budget);
  if (alternative && outcome.total > budget) {
    FailureOr<ArenaAttempt> packing =
        measureAttempt(function, extracted, options, *alternative, target);
    if (failed(packing))
      return failure();
    packing->alternative = true;
    search.consider(std::move(*packing), budget);
  }
  return std::optional<AttemptOutcome>(outcome);
}

/// Re-solves with a tighter target while packing pushes the solver's choice
/// of arguments + arena over the budget (a dearer packing alternative may
/// already fit: a cheaper schedule is sought below the peak first): packing
/// adds `overshoot` to the schedule's peak, so the next target is that much
/// below the peak and a quarter more (packing a different schedule adds a
/// little more or less; a target above the peak would only give the same
/// schedule back), down to the lower bound. `outcome` is what the solve at
/// `solverOptions.budgetBytes` reached.
static LogicalResult tightenTarget(FunctionOpInterface function,
                                   const ExtractedProblem &extracted,
                                   const RematOptions &options,
                                   SolverOptions solverOptions,
                                   AttemptOutcome outcome, int64_t budget,
                                   ArenaSearch &search) {
  for (int attempt = 0; attempt < 7 && !search.choiceFits; ++attempt) {
    if (outcome.total <= budget || !outcome.solverFits)
      return success();
    __int128 overshoot = outcome.total - budget;
    __int128 below =
        std::min(solverOptions.budgetBytes, outcome.peak) - overshoot * 5 / 4;
    int64_t target = static_cast<int64_t>(std::max<__int128>(
        below, extracted.problem.getPeakLowerBound()));
    if (target >= solverOptions.budgetBytes)
      return success();
    solverOptions.budgetBytes = target;
    FailureOr<std::optional<AttemptOutcome>> next = solveAttempt(
        function, extracted, options, solverOptions, budget, search);
    if (failed(next))
      return failure();
    if (!*next)
      return success();
    outcome = **next;
  }
  return success();
}

/// When the schedule at the budget packs too loosely, tries targets spread
/// between the budget and the lower bound, highest first (the first that
/// fits is about the cheapest): another schedule with a peak in between may
/// pack within the budget (fewer, better-nested buffers fragment less).
static LogicalResult spreadTargets(FunctionOpInterface function,
                                   const ExtractedProblem &extracted,
                                   const RematOptions &options,
                                   SolverOptions solverOptions, int64_t budget,
                                   ArenaSearch &search) {
  constexpr int kSpread = 8;
  int64_t floor = extracted.problem.getPeakLowerBound();
  if (floor >= budget)
    return success();
  for (int k = 1; k < kSpread && !search.choiceFits; ++k) {
    int64_t target =
        budget - static_cast<int64_t>(static_cast<long double>(budget - floor) *
                                      k / kSpread);
    if (llvm::is_contained(search.triedTargets, target))
      continue;
    solverOptions.budgetBytes = target;
    if (failed(solveAttempt(function, extracted, options, solverOptions,
                            budget, search)))
      return failure();
  }
  return success();
}

/// Solves for a schedule whose arguments + packed arena meet the budget: at
/// the budget, then at targets spread below it, then tightening the target
/// by what packing overshoots; records in `plan` the attempt that meets the
/// budget, else the one closest to it.
static LogicalResult solveWithinArena(FunctionOpInterface function,
                                      const ExtractedProblem &extracted,
                                      const RematOptions &options,
                                      SolverOptions solverOptions,
                                      RematPlan &plan) {
  ArenaSearch search;
  FailureOr<std::optional<AttemptOutcome>> first = solveAttempt(
      function, extracted, options, solverOptions, plan.budgetBytes, search);
  if (failed(first))
    return failure();
  bool retry =
      *first && (*first)->solverFits && options.fitArena && !search.choiceFits;
  if (retry && (failed(tightenTarget(function, extracted, options,
                                     solverOptions, **first, plan.budgetBytes,
                                     search)) ||
                failed(spreadTargets(function, extracted, options,
                                     solverOptions, plan.budgetBytes,
                                     search))))
    return failure();
  plan.result = std::move(search.best->result);
  plan.result.smallestPeakBytes = search.smallestPeak;
  plan.arenaBytes = search.best->arenaBytes;
  plan.meetsBudget = search.fits(plan.budgetBytes);
  bool resolved =
      search.best->target != plan.budgetBytes || search.best->alternative;
  if (plan.meetsBudget && resolved) {
    // The solver may have answered a tighter target than the user's
    // budget, or chosen another schedule: its status and bound are about
    // that target and that choice. The schedule
    // meets the budget (feasible); the first attempt's bound, at the budget
    // itself over the peak alone, still bounds any schedule that fits.
    plan.result.status = SolveStatus::Feasible;
    plan.result.lowerBoundCost = search.firstLowerBound;
  } else if (plan.result.hasSchedule() && !plan.meetsBudget &&
             (plan.result.status == SolveStatus::Feasible ||
              plan.result.status == SolveStatus::Optimal)) {
    plan.result.status = SolveStatus::Infeasible;
  }
  return success();
}

FailureOr<RematPlan>
mlir::remat::planRematerialization(FunctionOpInterface function,
                                   const ExtractedProblem &extracted,
                                   const RematOptions &options) {
  const RematProblem &problem = extracted.problem;
  if (!options.budget.isSet())
    return emitFunctionError(function)
           << "rematerialization needs a budget (the 'budget' option, e.g. "
              "budget=2.5GB or 80%)";
  if (failed(verifyRematOptions(options, function.getLoc())))
    return failure();
  RematPlan plan;
  Simulation before = simulate(problem, getStartingSchedule(problem));
  if (failed(checkBytesAndMeasureGiven(function, extracted, before, options,
                                       plan)) ||
      failed(resolveBudget(function, options, plan)))
    return failure();

  auto start = std::chrono::steady_clock::now();
  SolverOptions solverOptions;
  solverOptions.budgetBytes = plan.budgetBytes;
  solverOptions.workLimit = options.workLimit;
  solverOptions.timeLimitSeconds = options.timeLimitSeconds;
  solverOptions.autoLpBound = options.lowerBound;
  solverOptions.fitArena = options.fitArena;
  solverOptions.progress = options.progress;
  // auto's solvers share the machine's threads unless the context may not
  // (--mlir-disable-threading): the result is the same either way.
  solverOptions.parallel = function->getContext()->isMultithreadingEnabled();
  // The arena search solves the problem at several targets.
  solverOptions.fixedSchedules = std::make_shared<FixedSchedules>(problem);
  if (std::optional<SolverResult> given =
          solveGivenOrderIfItFits(problem, plan, options, solverOptions)) {
    plan.result = std::move(*given);
    plan.arenaBytes = plan.arenaBytesBefore;
    plan.meetsBudget = true;
  } else if (failed(solveWithinArena(function, extracted, options,
                                     solverOptions, plan))) {
    return failure();
  }
  plan.solveSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  return plan;
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

void mlir::remat::applySchedule(FunctionOpInterface function,
                                const ExtractedProblem &extracted,
                                const Schedule &schedule) {
  eraseMemoryPlan(function);
  Block &body = function.getFunctionBody().front();
  Operation *terminator = body.getTerminator();
  OpBuilder builder(terminator);
  llvm::DenseMap<Operation *, NodeId> nodeOf;
  for (auto [id, op] : llvm::enumerate(extracted.ops))
    nodeOf[op] = id;
  std::vector<Operation *> latest(extracted.ops.size(), nullptr);
  std::vector<int> copies(extracted.ops.size(), 0);

  for (NodeId id : schedule.steps) {
    Operation *original = extracted.ops[id];
    Operation *instance = original;
    if (!latest[id]) {
      original->moveBefore(terminator);
    } else {
      instance = builder.clone(*original);
      StringRef name = getOpName(original);
      std::string of = name.empty() ? getValueName(original->getResult(0))
                                    : name.str();
      instance->setAttr(attr::kRecomputeOf, builder.getStringAttr(of));
      instance->setAttr(attr::kName,
                        builder.getStringAttr(
                            of + ".recompute" +
                            (copies[id] ? std::to_string(copies[id] + 1) : "")));
      ++copies[id];
      nodeOf[instance] = id;
    }
    // Read the latest copy of every value from the body.
    instance->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands()) {
        auto result = dyn_cast<OpResult>(operand.get());
        if (!result)
          continue;
        auto it = nodeOf.find(result.getOwner());
        if (it == nodeOf.end() || !latest[it->second])
          continue;
        operand.set(latest[it->second]->getResult(result.getResultNumber()));
      }
    });
    latest[id] = instance;
  }
}

//===----------------------------------------------------------------------===//
// The whole job
//===----------------------------------------------------------------------===//

/// Records what rematerialization did, for the report.
static void recordOutcome(FunctionOpInterface function, const RematPlan &plan,
                          const RematOptions &options) {
  Builder builder(function.getContext());
  // For the report's charts: for each op of the rewritten body, the step of
  // its op (for a recomputation, its original's) in the given order.
  SmallVector<int64_t> givenPositions(plan.result.schedule.steps.begin(),
                                      plan.result.schedule.steps.end());
  FloatAttr lowerBound, solveSeconds;
  if (plan.result.lowerBoundCost)
    lowerBound = builder.getF64FloatAttr(*plan.result.lowerBoundCost);
  if (options.recordSolveTime)
    solveSeconds = builder.getF64FloatAttr(plan.solveSeconds);
  function->setAttr(
      attr::kSolve,
      SolveRecordAttr::get(
          function.getContext(), plan.budgetBytes, options.budget.str(),
          plan.peakBytesBefore, builder.getF64FloatAttr(plan.costBefore),
          plan.result.solver, stringifySolveStatus(plan.result.status),
          builder.getDenseI64ArrayAttr(plan.liveBytesBefore),
          builder.getDenseI64ArrayAttr(givenPositions),
          builder.getBoolAttr(plan.result.timedOut),
          builder.getBoolAttr(options.fitArena), lowerBound, solveSeconds));
}

/// The smallest peak the solve reached, for the unmet-budget diagnostic:
/// carried from the solve (every candidate `auto` and the heuristic ran, in
/// every attempt of the planning loop), not solved again.
static int64_t getSmallestPeak(const RematPlan &plan) {
  int64_t smallest = plan.result.hasSchedule()
                         ? plan.result.simulation.peakBytes
                         : plan.peakBytesBefore;
  if (plan.result.smallestPeakBytes)
    smallest = std::min(smallest, *plan.result.smallestPeakBytes);
  return smallest;
}

/// The unmet budget, an error when strict (else a warning), at the op where
/// the plan's schedule peaks, so that the message names an op and quotes one
/// line, never the function. Where packing, not the schedule, misses the
/// budget (the peak fits, arguments + arena do not), it says so first.
static InFlightDiagnostic reportUnmetBudget(FunctionOpInterface function,
                                            const ExtractedProblem &extracted,
                                            const RematPlan &plan,
                                            const RematOptions &options) {
  const RematProblem &problem = extracted.problem;
  const Simulation &simulation = plan.result.simulation;
  // A function without ops peaks at no op: its arguments alone miss.
  Operation *peakOp =
      simulation.peakStep >= 0
          ? getStepOp(extracted, plan.result.schedule, simulation.peakStep)
          : nullptr;
  Location loc = peakOp ? peakOp->getLoc() : function.getLoc();
  InFlightDiagnostic diagnostic =
      options.strict ? emitError(loc) : emitWarning(loc);
  if (!peakOp)
    diagnostic << "function @" << function.getName() << ": ";
  int64_t total = problem.argumentBytes + plan.arenaBytes;
  diagnostic << "cannot fit the step in the budget of " << plan.budgetBytes
             << " bytes: ";
  if (options.fitArena && simulation.peakBytes <= plan.budgetBytes)
    diagnostic << "packing misses it, not the schedule: arguments + arena "
                  "come to "
               << total << " bytes (" << problem.argumentBytes << " + "
               << plan.arenaBytes << ") though solver '" << plan.result.solver
               << "' peaks at " << simulation.peakBytes
               << " bytes, within the budget (the arena's alignment and "
                  "fragmentation add "
               << total - simulation.peakBytes << " bytes)";
  else
    diagnostic << "solver '" << plan.result.solver << "' needs "
               << simulation.peakBytes << " bytes at its peak (arguments + arena "
               << total << ")";
  if (peakOp)
    diagnostic << "; the step peaks at " << describeOp(peakOp);
  // `auto` runs every solver; another solver speaks for itself.
  std::string reached = options.solver.getKind() == SolverKind::Auto
                            ? std::string("any solver")
                            : "solver '" + options.solver.str() + "'";
  diagnostic << "; the smallest peak " << reached << " reached is "
             << getSmallestPeak(plan)
             << " bytes, and no schedule can peak below "
             << problem.getPeakLowerBound()
             << " bytes (arguments plus the largest single-op working set)";
  return diagnostic;
}

LogicalResult mlir::remat::rematerializeFunction(FunctionOpInterface function,
                                                 const CostModel &costModel,
                                                 const RematOptions &options) {
  FailureOr<ExtractedProblem> extracted =
      extractRematProblem(function, costModel);
  if (failed(extracted))
    return failure();
  FailureOr<RematPlan> plan =
      planRematerialization(function, *extracted, options);
  if (failed(plan))
    return failure();
  if (!plan->result.hasSchedule())
    return emitFunctionError(function)
           << "solver '" << options.solver.str() << "' found no schedule: "
           << (plan->result.message.empty() ? "the time limit ran out"
                                            : plan->result.message);
  if (!plan->meetsBudget) {
    InFlightDiagnostic diagnostic =
        reportUnmetBudget(function, *extracted, *plan, options);
    if (options.strict)
      return diagnostic;
  }
  applySchedule(function, *extracted, plan->result.schedule);
  FailureOr<PeakMemory> after = PeakMemory::analyze(function);
  if (failed(after))
    return failure();
  if (after->getPeakBytes() != plan->result.simulation.peakBytes)
    return emitFunctionError(function)
           << "internal error: the solver predicted a peak of "
           << plan->result.simulation.peakBytes
           << " bytes but the rewritten function peaks at "
           << after->getPeakBytes() << " bytes";
  recordOutcome(function, *plan, options);
  return success();
}
