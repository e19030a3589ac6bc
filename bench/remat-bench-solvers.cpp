//===- remat-bench-solvers.cpp - the solvers side by side -----------------===//
//
// Benchmarks every solver on the public benchmark graphs (imported with
// --import-graph-json semantics) and on generated training-like graphs, and
// prints Markdown tables: per graph and budget, each solver's status, peak,
// extra compute (% of the step as given) and solve time.
//
//   remat-bench-solvers GRAPH.json...        public graphs
//   remat-bench-solvers STEP.mlir...         training steps (the first
//                                            function with a body, costed
//                                            on the h200 profile)
//   remat-bench-solvers --generate=1000,10000,100000
//                                            generated training-like graphs
//                                            of ~N nodes: per solver (default
//                                            heuristic and auto) status,
//                                            extra compute and solve time at
//                                            50% of the peak and midway to
//                                            the floor
//     --residual-every=4                     ... with a residual edge every
//                                            4 layers (ResNet-like blocks)
//     --skip-probability=P                   chance of a random skip per
//                                            layer (default 0.2)
//     --chain                                a plain chain: no skips, no
//                                            residual edges
//   remat-bench-solvers --max-batch-graph=VGG19_256_224x224_train.json
//                                            the largest batch whose peak
//                                            fits --memory (16 GB), per
//                                            solver, with the graph's bytes
//                                            scaled linearly from its batch
//
// `exact` (when built with CBC) runs with a cap of --exact-seconds (30) per
// solve; its cells give the proven lower bound too.
//
// Budgets are on the peak (the literature's model), between the feasibility
// floor (the largest single-node working set) and the peak as given, plus
// Moccasin's 0.9 and 0.8 of the peak.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"
#include "remat/InitAll.h"
#include "remat/Remat/Solvers.h"
#include "remat/Remat/TrainingGraphs.h"
#include "remat/Target/GraphJson/GraphJsonImport.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

using namespace mlir;
using namespace mlir::remat;
namespace cl = llvm::cl;

/// The tool's own options: --help lists these, not LLVM's.
static cl::OptionCategory &getToolCategory() {
  static cl::OptionCategory category("remat-bench-solvers options");
  return category;
}

static cl::list<std::string> graphs(cl::Positional, cl::desc("<graph.json>..."),
                                    cl::cat(getToolCategory()));
static cl::list<int64_t> generate("generate", cl::CommaSeparated,
                                  cl::desc("Node counts of generated graphs"),
                                  cl::cat(getToolCategory()));
static cl::opt<int64_t> residualEvery(
    "residual-every", cl::init(0),
    cl::desc("Generated graphs: a residual edge every N layers (0: none)"),
    cl::cat(getToolCategory()));
static cl::opt<double> skipProbability(
    "skip-probability", cl::init(0.2),
    cl::desc("Generated graphs: chance that a layer also reads a random "
             "earlier layer's output"),
    cl::cat(getToolCategory()));
static cl::opt<bool> chainOnly(
    "chain", cl::init(false),
    cl::desc("Generated graphs: a plain chain (no skips, no residual edges)"),
    cl::cat(getToolCategory()));
static cl::list<std::string>
    solvers("solvers", cl::CommaSeparated,
            cl::desc("Solvers to compare (default: none,sqrt,segments=4,"
                     "heuristic,auto)"),
            cl::cat(getToolCategory()));

static cl::opt<double> exactSeconds("exact-seconds", cl::init(30.0),
                                    cl::desc("Time cap of each exact solve"),
                                    cl::cat(getToolCategory()));
static cl::opt<std::string>
    maxBatchGraph("max-batch-graph",
                  cl::desc("Graph whose largest batch per solver to find"),
                  cl::cat(getToolCategory()));
static cl::opt<int64_t> graphBatch("graph-batch", cl::init(256),
                                   cl::desc("The batch the graph's bytes are "
                                            "for"),
                                   cl::cat(getToolCategory()));
static cl::opt<double> memoryBytes("memory", cl::init(16e9),
                                   cl::desc("Memory for --max-batch-graph"),
                                   cl::cat(getToolCategory()));

static std::vector<std::string> getSolvers() {
  if (!solvers.empty())
    return std::vector<std::string>(solvers.begin(), solvers.end());
  std::vector<std::string> names = {"none", "sqrt", "segments=4", "heuristic",
                                    "auto"};
  if (isExactSolverAvailable())
    names.push_back("exact");
  return names;
}

/// Runs `solver` and returns its result and wall time.
static std::pair<SolverResult, double> timeSolve(const RematProblem &problem,
                                                 const std::string &solver,
                                                 int64_t budget) {
  SolverOptions options;
  options.budgetBytes = budget;
  if (solver == "exact")
    options.timeLimitSeconds = exactSeconds;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  std::optional<SolverSpec> spec = SolverSpec::parse(solver, error);
  std::optional<SolverResult> result;
  if (spec)
    result = solve(problem, *spec, options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!result) {
    llvm::errs() << "remat-bench-solvers: " << error << "\n";
    std::exit(1);
  }
  return {std::move(*result), seconds};
}

static std::string percentOver(double cost, double baseCost) {
  return llvm::formatv("{0:+0.00}%", baseCost > 0
                                         ? 100.0 * (cost - baseCost) / baseCost
                                         : 0.0)
      .str();
}

static void printCell(const SolverResult &result, double baseCost,
                      double seconds) {
  if (result.status == SolveStatus::NotApplicable) {
    llvm::outs() << " n/a |";
    return;
  }
  llvm::outs() << " " << percentOver(result.simulation.cost, baseCost);
  if (result.status == SolveStatus::Optimal)
    llvm::outs() << " optimal";
  else if (result.status != SolveStatus::Feasible)
    llvm::outs() << " (over)";
  else if (result.lowerBoundCost) {
    // The MILP gap: how far above the proven bound the schedule may be, as a
    // fraction of the schedule's whole cost.
    double cost = result.simulation.cost;
    double gap = cost > 0 ? (cost - *result.lowerBoundCost) / cost : 0.0;
    llvm::outs() << " (bound " << percentOver(*result.lowerBoundCost, baseCost)
                 << llvm::format(", gap %.2f%%)", 100.0 * gap);
  }
  llvm::outs() << llvm::format(", %.3fs |", seconds);
}

/// The problem with every byte count scaled by `factor` (a batch change).
static RematProblem scaleBytes(const RematProblem &problem, double factor) {
  RematProblem scaled = problem;
  for (RematValue &value : scaled.values)
    value.bytes = int64_t(std::ceil(double(value.bytes) * factor));
  for (RematNode &node : scaled.nodes)
    node.workspaceBytes =
        int64_t(std::ceil(double(node.workspaceBytes) * factor));
  scaled.argumentBytes =
      int64_t(std::ceil(double(problem.argumentBytes) * factor));
  return scaled;
}

/// The largest batch (up to 4096) whose peak fits --memory under `solver`,
/// fitting taken as monotone in the batch.
static int64_t findMaxBatch(const RematProblem &problem,
                            const std::string &solver) {
  auto fits = [&](int64_t batch) {
    RematProblem scaled =
        scaleBytes(problem, double(batch) / double(graphBatch));
    auto [result, seconds] = timeSolve(scaled, solver, int64_t(memoryBytes));
    return result.status == SolveStatus::Feasible ||
           result.status == SolveStatus::Optimal;
  };
  int64_t good = 0, bad = 4097;
  while (bad - good > 1) {
    int64_t middle = good + (bad - good) / 2;
    (fits(middle) ? good : bad) = middle;
  }
  return good;
}

/// The problem of a public graph, or nothing (with a message) when it
/// cannot be read.
static std::optional<RematProblem> loadGraphProblem(const std::string &path,
                                                    MLIRContext &context) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    llvm::errs() << "cannot read " << path << "\n";
    return std::nullopt;
  }
  OwningOpRef<ModuleOp> module =
      llvm::StringRef(path).ends_with(".mlir")
          ? parseSourceString<ModuleOp>((*buffer)->getBuffer(), &context)
          : importGraphJson(**buffer, &context);
  if (!module)
    return std::nullopt;
  auto functions = llvm::make_filter_range(
      module->getOps<FunctionOpInterface>(),
      [](FunctionOpInterface function) { return !function.isExternal(); });
  if (functions.empty()) {
    llvm::errs() << path << ": no function with a body\n";
    return std::nullopt;
  }
  FunctionOpInterface function = *functions.begin();
  CostModel costModel(*findDeviceProfile("h200"));
  FailureOr<ExtractedProblem> extracted =
      extractRematProblem(function, costModel);
  if (failed(extracted))
    return std::nullopt;
  return std::move(extracted->problem);
}

static void benchMaxBatch(const std::string &path, MLIRContext &context);

/// The literature's budgets: from the peak to the floor in quarters, and
/// Moccasin's 0.9 and 0.8 of the peak.
static std::vector<std::pair<std::string, int64_t>>
getGraphBudgets(int64_t floor, int64_t peak) {
  std::vector<std::pair<std::string, int64_t>> budgets;
  for (double fraction : {1.0, 0.75, 0.5, 0.25, 0.0})
    budgets.push_back({llvm::formatv("floor+{0}%", int(fraction * 100)).str(),
                       floor + int64_t(fraction * (peak - floor))});
  for (double fraction : {0.9, 0.8})
    if (fraction * peak >= floor)
      budgets.push_back({llvm::formatv("{0} x peak", fraction).str(),
                         int64_t(fraction * peak)});
  return budgets;
}

/// A training step's budgets: the peak, then tenths of it down to the
/// smallest peak `auto` reaches (asked for the floor), and that peak.
static std::vector<std::pair<std::string, int64_t>>
getStepBudgets(const RematProblem &problem, int64_t peak) {
  auto [reached, seconds] =
      timeSolve(problem, "auto", problem.getPeakLowerBound());
  int64_t smallest =
      reached.hasSchedule() ? reached.simulation.peakBytes : peak;
  std::vector<std::pair<std::string, int64_t>> budgets;
  for (int tenths = 10; tenths >= 1; --tenths) {
    int64_t budget = peak / 10 * tenths;
    if (budget <= smallest)
      break;
    budgets.push_back({llvm::formatv("{0:F1} x peak", tenths / 10.0).str(),
                       tenths == 10 ? peak : budget});
  }
  budgets.push_back({"smallest reached", smallest});
  return budgets;
}

static void benchGraph(const std::string &path, MLIRContext &context) {
  std::optional<RematProblem> loaded = loadGraphProblem(path, context);
  if (!loaded)
    return;
  const RematProblem &problem = *loaded;
  Simulation base = simulate(problem, getStartingSchedule(problem));
  int64_t floor = problem.getPeakLowerBound();
  std::vector<std::pair<std::string, int64_t>> budgets =
      llvm::StringRef(path).ends_with(".mlir")
          ? getStepBudgets(problem, base.peakBytes)
          : getGraphBudgets(floor, base.peakBytes);

  std::vector<std::string> names = getSolvers();
  llvm::outs() << "\n### " << llvm::sys::path::filename(path) << "\n\n"
               << problem.nodes.size() << " nodes, peak " << base.peakBytes
               << ", floor " << floor << " ("
               << llvm::format("%.2f", double(floor) / base.peakBytes)
               << " of the peak)\n\n| budget | bytes |";
  for (const std::string &name : names)
    llvm::outs() << " " << name << " |";
  llvm::outs() << "\n|---|---:|";
  for (size_t i = 0; i < names.size(); ++i)
    llvm::outs() << "---:|";
  llvm::outs() << "\n";
  for (auto &[label, budget] : budgets) {
    llvm::outs() << "| " << label << " | " << budget << " |";
    for (const std::string &name : names) {
      auto [result, seconds] = timeSolve(problem, name, budget);
      printCell(result, base.cost, seconds);
    }
    llvm::outs() << "\n";
    llvm::outs().flush();
  }
}

/// What kind of generated graph the options ask for, in words.
static std::string getGeneratedKind() {
  if (chainOnly)
    return "chain";
  std::string kind = "training";
  if (residualEvery > 0)
    kind += llvm::formatv(", residual every {0}", int64_t(residualEvery)).str();
  if (skipProbability != 0.2)
    kind += llvm::formatv(", skips {0}",
                          llvm::format("%g", double(skipProbability)))
                .str();
  return kind;
}

static void benchGenerated(int64_t nodes) {
  TrainingGraphOptions options;
  // About two nodes per layer (forward and backward), plus the loss; a
  // residual edge adds no node.
  options.layers = std::max<int64_t>(1, (nodes - 1) / 2);
  options.seed = 2026;
  options.skipProbability = chainOnly ? 0.0 : double(skipProbability);
  options.residualEvery = chainOnly ? 0 : int64_t(residualEvery);
  RematProblem problem = generateTrainingGraph(options);
  Simulation base = simulate(problem, getStartingSchedule(problem));
  int64_t floor = problem.getPeakLowerBound();
  std::vector<std::pair<std::string, int64_t>> budgets = {
      {"50% of the peak", std::max(floor, base.peakBytes / 2)},
      {"midway to the floor", floor + (base.peakBytes - floor) / 2}};
  std::vector<std::string> names;
  if (solvers.empty())
    names = {"heuristic", "auto"};
  else
    names.assign(solvers.begin(), solvers.end());
  for (auto &[label, budget] : budgets)
    for (const std::string &name : names) {
      auto [result, seconds] = timeSolve(problem, name, budget);
      llvm::outs() << "| " << problem.nodes.size() << " | "
                   << getGeneratedKind() << " | " << base.peakBytes << " | "
                   << label << ": " << budget << " | " << name << " | "
                   << stringifySolveStatus(result.status);
      if (result.status == SolveStatus::NotApplicable)
        llvm::outs() << ": " << result.message;
      else if (result.solver != name)
        llvm::outs() << " (" << result.solver << ")";
      llvm::outs() << " |";
      if (result.hasSchedule())
        llvm::outs() << llvm::format(
            " %+.1f%% |", 100.0 * (result.simulation.cost - base.cost) /
                              base.cost);
      else
        llvm::outs() << " - |";
      llvm::outs() << llvm::format(" %.2f |\n", seconds);
      llvm::outs().flush();
    }
}

void benchMaxBatch(const std::string &path, MLIRContext &context) {
  std::optional<RematProblem> loaded = loadGraphProblem(path, context);
  if (!loaded)
    return;
  llvm::outs() << "\n### Largest batch in " << memoryBytes
               << " bytes: " << llvm::sys::path::filename(path) << "\n\n"
               << "| solver | largest batch | seconds |\n|---|---:|---:|\n";
  for (const std::string &name : getSolvers()) {
    auto start = std::chrono::steady_clock::now();
    int64_t batch = findMaxBatch(*loaded, name);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    llvm::outs() << "| " << name << " | " << batch
                 << llvm::format(" | %.1f |\n", seconds);
  }
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(getToolCategory());
  cl::ParseCommandLineOptions(argc, argv, "remat solver benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  for (const std::string &path : graphs)
    benchGraph(path, context);
  if (!maxBatchGraph.empty())
    benchMaxBatch(maxBatchGraph, context);
  if (!generate.empty()) {
    llvm::outs() << "\n| nodes | graph | peak | budget | solver | status | "
                    "extra compute | seconds |\n"
                    "|---:|---|---:|---|---|---|---:|---:|\n";
    for (int64_t nodes : generate)
      benchGenerated(nodes);
  }
  return 0;
}
