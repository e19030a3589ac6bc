//===- ExactSolver.cpp - Checkmate's stage MILP, solved by CBC ------------===//
//
// The `exact` solver: the rematerialization MILP of Checkmate (Jain et al.,
// MLSys 2020) over frontier-advancing stages - stage t computes node t for
// the first time, after recomputing any earlier nodes it chooses - with
// memory counted per node (all results of a node live and die together),
// written for CBC through its C interface and warm-started with a complete
// assignment of the best schedule of the other solvers. CBC either proves the
// optimum over that schedule space or stops at the work or time limit with
// its best schedule and a proven lower bound; `auto` uses the LP relaxation
// alone as a bound. Every schedule returned goes through simulate().
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

using namespace mlir::remat;

namespace {

/// Problems above this many nodes get the heuristic's schedule: the MILP
/// has O(n^2) binaries.
constexpr size_t kMaxMilpNodes = 120;
/// Branch-and-bound nodes CBC may explore when no work limit is given.
constexpr int kDefaultMaxBranchNodes = 20000;

/// A MILP collected in memory, then handed to CBC in one call (adding rows
/// one by one to CBC takes quadratic time).
struct SparseMilp {
  std::vector<double> colLower, colUpper, objective;
  std::vector<int> integers;
  std::vector<double> rowLower, rowUpper;
  std::vector<std::tuple<int, int, double>> entries; // column, row, value

  int addColumn(double lb, double ub, double cost, bool integer) {
    int column = int(colLower.size());
    colLower.push_back(lb);
    colUpper.push_back(ub);
    objective.push_back(cost);
    if (integer)
      integers.push_back(column);
    return column;
  }

  /// Adds `coef` times column `col` to the row being written.
  void term(int col, double coef) {
    entries.push_back({col, int(rowLower.size()), coef});
  }
  /// Ends the row being written: its terms `sense` ('L' <=, 'G' >=, 'E' =)
  /// `rhs`.
  void row(char sense, double rhs) {
    rowLower.push_back(sense == 'L' ? -DBL_MAX : rhs);
    rowUpper.push_back(sense == 'G' ? DBL_MAX : rhs);
  }

  void load(Cbc_Model *model) {
    std::sort(entries.begin(), entries.end());
    std::vector<CoinBigIndex> start(colLower.size() + 1, 0);
    std::vector<int> index;
    std::vector<double> value;
    for (auto [column, row, coef] : entries) {
      ++start[column + 1];
      index.push_back(row);
      value.push_back(coef);
    }
    for (size_t c = 0; c < colLower.size(); ++c)
      start[c + 1] += start[c];
    Cbc_loadProblem(model, int(colLower.size()), int(rowLower.size()),
                    start.data(), index.data(), value.data(), colLower.data(),
                    colUpper.data(), objective.data(), rowLower.data(),
                    rowUpper.data());
    for (int column : integers)
      Cbc_setInteger(model, column);
  }
};

/// The MILP's columns and rows for one problem and budget.
class StageModel {
public:
  StageModel(const RematProblem &problem, int64_t budgetBytes);

  void build(SparseMilp &milp);
  /// A cost in the objective's units back in the problem's.
  double toCost(double objective) const { return objective / costScale; }
  /// Every integer column's value for `schedule` (whose first computations
  /// must come in the starting order), for CBC's MIP start: a partial start
  /// leaves CBC to complete it, which it fails to do on larger models.
  /// Empty if the schedule has no stage form. Call after build().
  std::vector<std::pair<int, double>> encode(const Schedule &schedule) const;
  Schedule decode(const double *solution) const;

private:
  void addColumns(SparseMilp &milp) const;
  /// Stage t's rows on what runs and stays resident.
  void addOrderRows(SparseMilp &milp, int t) const;
  /// Stage t's FREE columns and their hazard rows; per node k of the stage,
  /// the (column, bytes) freed right after it.
  std::vector<std::vector<std::pair<int, double>>>
  addFreeColumns(SparseMilp &milp, int t);
  /// Stage t's memory rows: U[t][k] after node k runs, within the budget.
  void addMemoryRows(
      SparseMilp &milp, int t,
      const std::vector<std::vector<std::pair<int, double>>> &freedAfter) const;

  int r(int t, int i) const { return t * (t + 1) / 2 + i; }
  int s(int t, int i) const { return sBase + (t - 1) * t / 2 + i; }
  int u(int t, int k) const { return uBase + t * (t + 1) / 2 + k; }

  const RematProblem &problem;
  int n;
  double scale;
  /// Objective units per unit of cost: the compute-once cost becomes 1000,
  /// whatever the graph's units (seconds of a few microseconds leave CBC's
  /// tolerances larger than the objective).
  double costScale;
  double budget;
  int sBase, uBase;
  /// All result bytes of a node, and those of its results the step returns
  /// (live from the first computation to the end; a recomputation's copies
  /// are never read and die with it).
  std::vector<double> memory, outputBytes, workspace;
  std::vector<std::vector<int>> deps, users;
  std::vector<bool> once, recomputeMarked;
  std::vector<int> phaseEnd;
  /// The last stage in which each node may run: the update of state it
  /// reads is in that stage (stage t runs node t last).
  std::vector<int64_t> stateDeadline;
  /// For each node defining a view, the node defining the view's owner.
  std::vector<int> viewOwner;
  /// FREE[t][i][k] columns, in the order build() adds them.
  struct FreeColumn {
    int t, i, k, column;
  };
  std::vector<FreeColumn> freeColumns;
};

} // namespace

StageModel::StageModel(const RematProblem &problem, int64_t budgetBytes)
    : problem(problem), n(int(problem.nodes.size())) {
  // Bytes in units of a thousandth of the budget keep the coefficients
  // small; simulate() checks every schedule in bytes afterwards.
  scale = std::max(1.0, double(budgetBytes) / 1000.0);
  budget = double(budgetBytes) / scale;
  costScale = 1000.0 / std::max(problem.getTotalCost(), 1e-300);
  sBase = n * (n + 1) / 2;
  uBase = sBase + (n - 1) * n / 2;
  memory.assign(n, 0.0);
  outputBytes.assign(n, 0.0);
  workspace.assign(n, 0.0);
  deps.assign(n, {});
  users.assign(n, {});
  once.assign(n, false);
  recomputeMarked.assign(n, false);
  phaseEnd.assign(n, n - 1);
  stateDeadline = problem.getStateDeadlines();
  viewOwner.assign(n, -1);
  std::map<NodePhase, int> lastOfPhase;
  for (int i = 0; i < n; ++i)
    lastOfPhase[problem.nodes[i].phase] = i;
  for (int k = 0; k < n; ++k) {
    const RematNode &node = problem.nodes[k];
    for (ValueId result : node.results) {
      double bytes = double(problem.values[result].bytes) / scale;
      memory[k] += bytes;
      if (problem.values[result].isOutput)
        outputBytes[k] += bytes;
    }
    workspace[k] = double(node.workspaceBytes) / scale;
    for (ValueId result : node.results)
      if (ValueId owner = problem.values[result].viewOf; owner >= 0)
        viewOwner[k] = problem.values[owner].producer;
    once[k] = !node.recomputable || node.policy == NodePolicy::Keep;
    recomputeMarked[k] = node.policy == NodePolicy::Recompute;
    phaseEnd[k] = lastOfPhase[node.phase];
    for (ValueId operand : node.operands) {
      int producer = problem.values[operand].producer;
      if (std::find(deps[k].begin(), deps[k].end(), producer) == deps[k].end())
        deps[k].push_back(producer);
    }
    for (int producer : deps[k])
      users[producer].push_back(k);
  }
  // A recomputed copy of a returned value that something reads would live
  // on; such nodes run once.
  for (int k = 0; k < n; ++k)
    for (ValueId result : problem.nodes[k].results)
      if (problem.values[result].isOutput)
        for (int user : users[k])
          for (ValueId operand : problem.nodes[user].operands)
            if (operand == result)
              once[k] = true;
}

void StageModel::addColumns(SparseMilp &milp) const {
  // Columns: R[t][i] (i <= t), S[t][i] (i < t), U[t][k] (k <= t), then
  // FREE[t][i][k] as the rows need them.
  for (int t = 0; t < n; ++t)
    for (int i = 0; i <= t; ++i) {
      bool frontier = i == t;
      bool allowed = frontier || (!once[i] && t <= stateDeadline[i]);
      milp.addColumn(frontier ? 1 : 0, allowed ? 1 : 0,
                     problem.nodes[i].cost * costScale, true);
    }
  for (int t = 1; t < n; ++t)
    for (int i = 0; i < t; ++i) {
      double ub = recomputeMarked[i] && t > phaseEnd[i] ? 0 : 1;
      milp.addColumn(0, ub, 0.0, true);
    }
  for (int t = 0; t < n; ++t)
    for (int k = 0; k <= t; ++k)
      milp.addColumn(0, budget, 0.0, false);
}

void StageModel::addOrderRows(SparseMilp &milp, int t) const {
  // Operands are computed earlier in the stage or resident.
  for (int k = 0; k <= t; ++k)
    for (int j : deps[k]) {
      milp.term(r(t, k), 1);
      milp.term(r(t, j), -1);
      if (j < t)
        milp.term(s(t, j), -1);
      milp.row('L', 0);
    }
  // A value is resident in the next stage only if it is now.
  if (t + 1 < n)
    for (int i = 0; i <= t; ++i) {
      milp.term(s(t + 1, i), 1);
      milp.term(r(t, i), -1);
      if (i < t)
        milp.term(s(t, i), -1);
      milp.row('L', 0);
    }
  // A view is made again whenever its owner is: a view read in a stage
  // must come from the owner's instance of that stage.
  for (int i = 0; i < t; ++i)
    if (int owner = viewOwner[i]; owner >= 0) {
      milp.term(r(t, owner), 1);
      milp.term(r(t, i), -1);
      milp.row('L', 0);
    }
  // Recomputing a resident value is never useful.
  for (int i = 0; i < t; ++i) {
    milp.term(r(t, i), 1);
    milp.term(s(t, i), 1);
    milp.row('L', 1);
  }
}

std::vector<std::vector<std::pair<int, double>>>
StageModel::addFreeColumns(SparseMilp &milp, int t) {
  std::vector<std::vector<std::pair<int, double>>> freedAfter(t + 1);
  for (int i = 0; i <= t; ++i) {
    std::vector<int> points{i};
    for (int user : users[i])
      if (user <= t)
        points.push_back(user);
    for (int k : points) {
      if (k < i)
        continue;
      // FREE[t][i][k]: i dies right after k runs in stage t, exactly when
      // k runs, i is not kept into the next stage, and no later user of i
      // runs in this stage (Checkmate's hazard linearization).
      int free = milp.addColumn(0, 1, 0.0, true);
      freeColumns.push_back({t, i, k, free});
      std::vector<int> later;
      for (int user : users[i])
        if (user > k && user <= t)
          later.push_back(user);
      bool keepTerm = t + 1 < n;
      double maxHazards = 1 + (keepTerm ? 1 : 0) + double(later.size());
      for (int pass = 0; pass < 2; ++pass) {
        milp.term(r(t, k), -1);
        if (keepTerm)
          milp.term(s(t + 1, i), 1);
        for (int user : later)
          milp.term(r(t, user), 1);
        milp.term(free, pass == 0 ? 1 : maxHazards);
        if (pass == 0)
          milp.row('G', 0);
        else
          milp.row('L', maxHazards - 1);
      }
      freedAfter[k].push_back({free, memory[i] - outputBytes[i]});
    }
  }
  return freedAfter;
}

void StageModel::addMemoryRows(
    SparseMilp &milp, int t,
    const std::vector<std::vector<std::pair<int, double>>> &freedAfter) const {
  for (int k = 0; k <= t; ++k) {
    milp.term(u(t, k), 1);
    milp.term(r(t, k), -memory[k]);
    if (k == 0) {
      double returned = 0;
      for (int i = 0; i < t; ++i) {
        milp.term(s(t, i), -(memory[i] - outputBytes[i]));
        returned += outputBytes[i];
      }
      milp.row('E', double(problem.argumentBytes) / scale + returned);
    } else {
      milp.term(u(t, k - 1), -1);
      for (auto [free, bytes] : freedAfter[k - 1])
        milp.term(free, bytes);
      // A recomputed copy's returned results die right after it.
      if (outputBytes[k - 1] > 0)
        milp.term(r(t, k - 1), outputBytes[k - 1]);
      milp.row('E', 0);
    }
    milp.term(u(t, k), 1);
    milp.term(r(t, k), workspace[k]);
    milp.row('L', budget);
  }
}

void StageModel::build(SparseMilp &milp) {
  addColumns(milp);
  for (int t = 0; t < n; ++t) {
    addOrderRows(milp, t);
    // Memory after computing node k of the stage, before its frees.
    addMemoryRows(milp, t, addFreeColumns(milp, t));
  }
}

std::vector<std::pair<int, double>>
StageModel::encode(const Schedule &schedule) const {
  // Stage of each step: the next first computation at or after it.
  std::vector<int> stageOf(schedule.steps.size(), -1);
  std::vector<bool> seen(n, false);
  int frontier = 0;
  for (size_t p = 0; p < schedule.steps.size(); ++p) {
    int node = schedule.steps[p];
    if (!seen[node]) {
      if (node != frontier)
        return {};
      seen[node] = true;
      ++frontier;
    }
  }
  int stage = n - 1;
  std::vector<int> firstAt(n, 0);
  for (size_t p = schedule.steps.size(); p-- > 0;) {
    int node = schedule.steps[p];
    firstAt[node] = int(p);
  }
  std::vector<int> stageStart(n, 0);
  for (size_t p = schedule.steps.size(); p-- > 0;) {
    int node = schedule.steps[p];
    if (firstAt[node] == int(p))
      stage = node;
    stageOf[p] = stage;
    stageStart[stage] = int(p);
  }
  // Each instance: when computed and when last read (reads bind to the
  // latest instance, as in simulate()).
  std::vector<int> latest(n, -1);
  std::vector<int> lastRead(schedule.steps.size(), -1);
  for (size_t p = 0; p < schedule.steps.size(); ++p) {
    int node = schedule.steps[p];
    for (int dep : deps[node])
      lastRead[latest[dep]] = int(p);
    latest[node] = int(p);
  }
  std::map<std::pair<int, int>, double> values;
  for (size_t p = 0; p < schedule.steps.size(); ++p) {
    int node = schedule.steps[p];
    values[{stageOf[p], node}] = 1;
    int end = lastRead[p]; // returned results are counted apart
    for (int t = stageOf[p] + 1; t < n; ++t)
      if (stageStart[t] <= end)
        values[{-1 - t, node}] = 1; // resident at the start of stage t
  }
  auto isSet = [&](int code, int node) { return values.count({code, node}); };
  std::vector<std::pair<int, double>> start;
  for (int t = 0; t < n; ++t)
    for (int i = 0; i <= t; ++i)
      start.push_back({r(t, i), isSet(t, i) ? 1.0 : 0.0});
  for (int t = 1; t < n; ++t)
    for (int i = 0; i < t; ++i)
      start.push_back({s(t, i), isSet(-1 - t, i) ? 1.0 : 0.0});
  // FREE follows from R and S: i dies after k in stage t when k runs, i is
  // not resident in the next stage, and no later user of i runs in t.
  for (const FreeColumn &f : freeColumns) {
    bool dies = isSet(f.t, f.k) && !(f.t + 1 < n && isSet(-2 - f.t, f.i));
    for (int user : users[f.i])
      if (user > f.k && user <= f.t && isSet(f.t, user))
        dies = false;
    start.push_back({f.column, dies ? 1.0 : 0.0});
  }
  return start;
}

Schedule StageModel::decode(const double *solution) const {
  Schedule schedule;
  for (int t = 0; t < n; ++t)
    for (int i = 0; i <= t; ++i)
      if (solution[r(t, i)] > 0.5)
        schedule.steps.push_back(i);
  return schedule;
}

/// The cost of computing every node once: no schedule costs less.
static std::string formatCost(double cost) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", cost);
  return text;
}

/// Says, while CBC runs, that it still does: every few seconds, the time
/// spent and the limits (CBC's own log goes to stdout, where the step may go,
/// so its incumbents cannot be shown as they come). Quiet for solves under
/// a second, as the heuristic is.
class ProgressTicker {
public:
  /// `what` opens the first line.
  ProgressTicker(const SolverOptions &options, std::string what)
      : progress(options.progress), what(std::move(what)),
        timeLimit(options.timeLimitSeconds) {
    if (progress)
      thread = std::thread([this] { run(); });
  }
  ~ProgressTicker() {
    if (!thread.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    wake.notify_one();
    thread.join();
  }

private:
  void run() {
    using namespace std::chrono;
    auto start = steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex);
    // After 1 s, then every 5 s.
    for (auto next = start + seconds(1);; next += seconds(5)) {
      if (wake.wait_until(lock, next, [this] { return done; }))
        return;
      double elapsed = duration<double>(steady_clock::now() - start).count();
      // The first line says what runs; the others, that it still does.
      std::string line =
          (next == start + seconds(1) ? what : std::string("exact")) +
          ": still running after " + std::to_string(int64_t(elapsed)) + " s";
      if (timeLimit > 0 && timeLimit < 1e9)
        line += " (time limit " + std::to_string(int64_t(timeLimit)) + " s)";
      progress(line);
    }
  }

  std::function<void(const std::string &)> progress;
  std::string what;
  double timeLimit;
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
  std::thread thread;
};

static double getComputeOnceCost(const RematProblem &problem) {
  return problem.getTotalCost();
}

bool mlir::remat::isExactSolverAvailable() { return true; }

SolverResult mlir::remat::solveExact(const RematProblem &problem,
                                     const SolverOptions &options) {
  SolverResult start = solveWithoutMilp(problem, options);
  SolverResult result =
      solveMilpFrom(problem, options, start, MilpEffort::BranchAndBound);
  result.solver = "exact";
  // A start optimal in its own solver's space is optimal here only if the
  // MILP's bound says so.
  bool proven =
      result.lowerBoundCost &&
      *result.lowerBoundCost >=
          result.simulation.cost - 1e-9 * std::max(1.0, result.simulation.cost);
  if (result.status == SolveStatus::Optimal && !proven)
    result.status = SolveStatus::Feasible;
  return result;
}

using CbcModel = std::unique_ptr<Cbc_Model, void (*)(Cbc_Model *)>;

/// CBC's limits and tolerances for `effort`.
static void configureCbc(Cbc_Model *model, const SolverOptions &options,
                         MilpEffort effort) {
  // CBC's preprocessing strengthens rows of this model for minutes and
  // ignores the time limit meanwhile; the model is small enough without it.
  Cbc_setParameter(model, "preprocess", "off");
  if (effort == MilpEffort::LpBound) {
    Cbc_setParameter(model, "cuts", "off");
    Cbc_setParameter(model, "heuristics", "off");
    Cbc_setMaximumNodes(model, 0);
  } else {
    Cbc_setMaximumNodes(
        model, options.workLimit > 0
                   ? int(std::min<int64_t>(options.workLimit, INT32_MAX))
                   : kDefaultMaxBranchNodes);
  }
  // As the heuristic does: a limit beyond about 31 years is no limit.
  if (options.timeLimitSeconds > 0 && options.timeLimitSeconds < 1e9)
    Cbc_setMaximumSeconds(model, options.timeLimitSeconds);
  Cbc_setAllowableGap(model, 0.0);
  Cbc_setAllowableFractionGap(model, 1e-9);
}

/// Hands CBC `schedule` as its MIP start, where it has a stage form.
static void setMipStart(Cbc_Model *model, const StageModel &stages,
                        const Schedule &schedule) {
  std::vector<int> indices;
  std::vector<double> values;
  for (auto [index, value] : stages.encode(schedule)) {
    indices.push_back(index);
    values.push_back(value);
  }
  if (!indices.empty())
    Cbc_setMIPStartI(model, int(indices.size()), indices.data(), values.data());
}

/// Takes CBC's best schedule into `result` where it fits and is cheaper
/// than the start's.
static void takeCbcSchedule(Cbc_Model *model, const RematProblem &problem,
                            const StageModel &stages,
                            const SolverOptions &options, bool startFits,
                            SolverResult &result) {
  if (Cbc_numberSavedSolutions(model) == 0)
    return;
  Schedule schedule = stages.decode(Cbc_bestSolution(model));
  Simulation simulation = simulate(problem, schedule);
  bool fits = simulation.valid && simulation.peakBytes <= options.budgetBytes;
  bool better = !startFits || simulation.cost < result.simulation.cost;
  if (fits && better) {
    result.schedule = std::move(schedule);
    result.simulation = std::move(simulation);
    result.status = SolveStatus::Feasible;
  }
}

/// The lower bound CBC proved, no lower than computing every node once
/// (`floor`); infinite where no schedule of stages fits.
static double getCbcBound(Cbc_Model *model, const StageModel &stages,
                          double floor) {
  if (Cbc_isProvenInfeasible(model))
    return INFINITY;
  // After a proof CBC's best possible value may still be the root bound;
  // the proven optimum is the objective itself.
  double objectiveBound = Cbc_isProvenOptimal(model)
                              ? Cbc_getObjValue(model)
                              : Cbc_getBestPossibleObjValue(model);
  return std::max(floor, stages.toCost(objectiveBound));
}

/// Sets `result`'s lower bound (and status, where the bound meets its
/// cost) from CBC's `bound`.
static void boundResult(SolverResult &result, double bound, double floor) {
  bool hasFit = result.status == SolveStatus::Feasible ||
                result.status == SolveStatus::Optimal;
  if (!hasFit)
    return;
  double cost = result.simulation.cost;
  // The bound holds over the stage space; a schedule outside it may be
  // cheaper, and then only computing every node once bounds it.
  result.lowerBoundCost = cost >= bound - 1e-9 * std::max(1.0, cost)
                              ? std::min(bound, cost)
                              : floor;
  if (*result.lowerBoundCost >= cost - 1e-9 * std::max(1.0, cost))
    result.status = SolveStatus::Optimal;
}

/// The line of progress after a branch and bound of `seconds`.
static std::string describeBranchAndBound(const SolverResult &result,
                                          double seconds, double bound,
                                          bool proven) {
  bool hasFit = result.status == SolveStatus::Feasible ||
                result.status == SolveStatus::Optimal;
  std::string line = "exact: branch and bound done after " +
                     std::to_string(int64_t(seconds)) + " s: ";
  if (std::isinf(bound) && !hasFit)
    return line + "no schedule of stages fits the budget";
  return line +
         (hasFit ? "cost " + formatCost(result.simulation.cost)
                 : std::string("no schedule")) +
         ", lower bound " + formatCost(result.lowerBoundCost.value_or(bound)) +
         (proven            ? " (optimal)"
          : result.timedOut ? " (time limit)"
                            : "");
}

/// Where no MILP is needed or possible: the start, bounded below by
/// computing every node once.
static std::optional<SolverResult>
answerWithoutMilp(const RematProblem &problem, const SolverResult &start,
                  bool startFits, double floor) {
  SolverResult result = start;
  // Computing every node once bounds every schedule; a start that costs no
  // more needs no MILP.
  if (startFits && start.simulation.cost <= floor * (1 + 1e-12)) {
    result.lowerBoundCost = start.simulation.cost;
    result.status = SolveStatus::Optimal;
    result.message = "computes every node once";
    return result;
  }
  if (problem.nodes.size() <= kMaxMilpNodes)
    return std::nullopt;
  result.message = "the stage MILP has too many variables at " +
                   std::to_string(problem.nodes.size()) +
                   " nodes; the start's schedule, bounded below by "
                   "computing every node once";
  if (startFits && !result.lowerBoundCost)
    result.lowerBoundCost = floor;
  return result;
}

SolverResult mlir::remat::solveMilpFrom(const RematProblem &problem,
                                        const SolverOptions &options,
                                        const SolverResult &start,
                                        MilpEffort effort) {
  double floor = getComputeOnceCost(problem);
  bool startFits = start.status == SolveStatus::Feasible ||
                   start.status == SolveStatus::Optimal;
  if (std::optional<SolverResult> answer =
          answerWithoutMilp(problem, start, startFits, floor))
    return std::move(*answer);

  StageModel stages(problem, options.budgetBytes);
  CbcModel model(Cbc_newModel(), Cbc_deleteModel);
  Cbc_setObjSense(model.get(), 1);
  Cbc_setLogLevel(model.get(), 0);
  SparseMilp milp;
  stages.build(milp);
  milp.load(model.get());
  configureCbc(model.get(), options, effort);
  // The LP bound needs no start; a start CBC cannot use (a schedule not of
  // stage form) costs it seconds of repair.
  if (startFits && effort == MilpEffort::BranchAndBound)
    setMipStart(model.get(), stages, start.schedule);
  auto solveStart = std::chrono::steady_clock::now();
  bool talk = options.progress && effort == MilpEffort::BranchAndBound;
  {
    ProgressTicker ticker(
        talk ? options : SolverOptions(),
        "exact: branch and bound over " + std::to_string(milp.colLower.size()) +
            " variables from a start of cost " +
            (startFits ? formatCost(start.simulation.cost)
                       : std::string("none (no schedule fits yet)")));
    Cbc_solve(model.get());
  }
  double solveSeconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - solveStart)
                            .count();

  SolverResult result = start;
  takeCbcSchedule(model.get(), problem, stages, options, startFits, result);
  bool proven = Cbc_isProvenOptimal(model.get());
  double bound = getCbcBound(model.get(), stages, floor);
  boundResult(result, bound, floor);
  // CBC's secondary status 4: stopped on time.
  result.timedOut = !proven && Cbc_secondaryStatus(model.get()) == 4;
  if (talk && solveSeconds > 1.0)
    options.progress(
        describeBranchAndBound(result, solveSeconds, bound, proven));
  if (result.status == SolveStatus::Optimal)
    result.message = "no schedule of frontier-advancing stages costs less";
  else if (effort == MilpEffort::LpBound)
    result.message = "bounded below by the stage MILP's LP relaxation";
  else
    result.message = "CBC stopped at its limit; best schedule and lower bound";
  return result;
}
