//===- SearchSolverTest.cpp - the search solver ---------------------------===//
//
// On random training graphs (marks, state updated in place, views, reads of
// activations whose weights are updated by then) and on random DAGs without
// phases, the search's schedules are valid by simulate() and within the
// budget exactly when it says feasible, also seeded as `auto` seeds it and
// where the packed arena must fit; it reorders where the starting order
// cannot meet a budget, recomputes where no order can, is deterministic and
// bounded on huge graphs.
//
//===----------------------------------------------------------------------===//

#include "SolverTestSupport.h"

#include "remat/Remat/Solvers.h"
#include "remat/Remat/TrainingGraphs.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::remat;
using namespace mlir::remat::test;

namespace {

TEST(SearchSolver, TrainingGraphsWithStateAndViewsGiveValidSchedules) {
  int feasible = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 2 + seed % 17;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.25;
    graph.updatesInPlace = seed % 2 == 0;
    graph.viewProbability = seed % 3 == 0 ? 0.4 : 0.0;
    graph.lateReadProbability = seed % 4 == 0 ? 0.3 : 0.0;
    RematProblem problem = generateTrainingGraph(graph);
    if (seed % 5 == 0)
      problem.nodes[seed % graph.layers].policy = NodePolicy::Recompute;
    if (seed % 7 == 0)
      problem.nodes[(seed / 7) % graph.layers].policy = NodePolicy::Keep;
    ASSERT_EQ(problem.verify(), "") << "seed " << seed;
    for (double fraction : {0.0, 0.3, 0.7, 1.0}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      options.autoLpBound = false;
      std::string what = "seed " + std::to_string(seed) + " at " +
                         std::to_string(fraction);
      SolverResult search = solveSearch(problem, options);
      checkResult(problem, search, options.budgetBytes, "search " + what);
      if (HasFatalFailure())
        return;
      feasible += claimsFit(search);
      // Seeded by another solver's schedule, as auto seeds it.
      SolverResult heuristic = solveHeuristic(problem, options);
      SolverResult seeded =
          solveSearch(problem, options, &heuristic.schedule);
      checkResult(problem, seeded, options.budgetBytes, "seeded search " + what);
      if (HasFatalFailure())
        return;
      // Never worse than its seed: fitting when it fits, then no costlier.
      if (claimsFit(heuristic)) {
        ASSERT_TRUE(claimsFit(seeded)) << what;
        ASSERT_LE(seeded.simulation.cost, heuristic.simulation.cost) << what;
      }
      // A kept node, like one that may not be recomputed, runs once.
      for (size_t id = 0; id < problem.nodes.size(); ++id) {
        if (problem.nodes[id].policy == NodePolicy::Keep ||
            !problem.nodes[id].recomputable) {
          ASSERT_EQ(search.simulation.runs[id], 1) << what << " node " << id;
        }
      }
    }
  }
  EXPECT_GT(feasible, 200);
}

TEST(SearchSolver, RandomDagsGiveValidSchedules) {
  std::mt19937_64 rng(7);
  int feasible = 0;
  for (int instance = 0; instance < 600; ++instance) {
    RematProblem problem = makeRandomDag(rng, 2 + instance % 60);
    for (double fraction : {0.0, 0.5}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      // Half of them as the pass asks where the packed arena must fit.
      options.fitArena = instance % 2 == 0;
      SolverResult result = solveSearch(problem, options);
      checkResult(problem, result, options.budgetBytes,
                  "instance " + std::to_string(instance));
      if (HasFatalFailure())
        return;
      feasible += claimsFit(result);
    }
  }
  EXPECT_GT(feasible, 600);
}

/// s feeds `width` large values, each read by a small one, which a sink
/// reads: in the starting order every large value is live at once.
RematProblem fan(int width, bool recomputable) {
  RematProblem problem;
  NodeId source = problem.addNode("s", 1.0, {10});
  std::vector<NodeId> large;
  for (int i = 0; i < width; ++i) {
    large.push_back(problem.addNode("a" + std::to_string(i), 4.0, {100},
                                    {problem.nodes[source].results[0]}));
    problem.nodes[large.back()].recomputable = recomputable;
  }
  std::vector<ValueId> small;
  for (int i = 0; i < width; ++i)
    small.push_back(problem.nodes[problem.addNode(
                                      "c" + std::to_string(i), 1.0, {10},
                                      {problem.nodes[large[i]].results[0]})]
                        .results[0]);
  NodeId sink = problem.addNode("t", 1.0, {10}, small);
  problem.values[problem.nodes[sink].results[0]].isOutput = true;
  return problem;
}

TEST(SearchSolver, ReorderingMeetsABudgetTheHeuristicMisses) {
  // The large values may not be recomputed: in the starting order nothing
  // can leave, and only another order fits.
  RematProblem problem = fan(6, /*recomputable=*/false);
  ASSERT_EQ(problem.verify(), "");
  EXPECT_EQ(simulate(problem, getStartingSchedule(problem)).peakBytes, 610);
  SolverOptions options;
  options.budgetBytes = 200;
  SolverResult heuristic = solveHeuristic(problem, options);
  EXPECT_EQ(heuristic.status, SolveStatus::Infeasible);
  SolverResult search = solveSearch(problem, options);
  ASSERT_EQ(search.status, SolveStatus::Feasible) << search.message;
  EXPECT_LE(search.simulation.peakBytes, 200);
  EXPECT_EQ(search.simulation.cost, problem.getTotalCost());
  options.autoLpBound = false;
  SolverResult best = solveAuto(problem, options);
  EXPECT_TRUE(claimsFit(best));
  EXPECT_EQ(best.simulation.cost, problem.getTotalCost());
}

TEST(SearchSolver, CheaperThanTheHeuristicWhereItRecomputes) {
  // Recomputable: the heuristic fits by recomputing, the search by
  // reordering alone.
  RematProblem problem = fan(6, /*recomputable=*/true);
  SolverOptions options;
  options.budgetBytes = 200;
  SolverResult heuristic = solveHeuristic(problem, options);
  SolverResult search = solveSearch(problem, options);
  ASSERT_TRUE(claimsFit(search));
  ASSERT_TRUE(claimsFit(heuristic));
  EXPECT_LT(search.simulation.cost, heuristic.simulation.cost);
}

TEST(SearchSolver, RecomputesWhereReorderingIsNotEnough) {
  // A chain whose every value the last node reads: no order helps, only
  // recomputation (of the cheap middle values, just before the end).
  RematProblem problem;
  std::vector<ValueId> all;
  NodeId previous = problem.addNode("x0", 1.0, {100});
  all.push_back(problem.nodes[previous].results[0]);
  for (int i = 1; i < 6; ++i) {
    previous = problem.addNode("x" + std::to_string(i), 1.0, {100},
                               {problem.nodes[previous].results[0]});
    all.push_back(problem.nodes[previous].results[0]);
  }
  // Each value is read a second time, late, one by one.
  ValueId running = all.back();
  for (int i = 0; i < 5; ++i)
    running = problem.nodes[problem.addNode("y" + std::to_string(i), 1.0,
                                            {10}, {running, all[i]})]
                  .results[0];
  problem.values[running].isOutput = true;
  ASSERT_EQ(problem.verify(), "");
  int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
  SolverOptions options;
  options.budgetBytes = peak - 150;
  SolverResult search = solveSearch(problem, options);
  ASSERT_TRUE(claimsFit(search)) << search.simulation.peakBytes << " of " << peak;
  EXPECT_GT(search.simulation.cost, problem.getTotalCost());
}

TEST(SearchSolver, DeterministicForAWorkLimit) {
  std::mt19937_64 rng(3);
  RematProblem problem = makeRandomDag(rng, 80);
  int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
  SolverOptions options;
  options.budgetBytes = problem.getPeakLowerBound() +
                        (peak - problem.getPeakLowerBound()) / 3;
  for (int64_t limit : {int64_t(0), int64_t(20000)}) {
    options.workLimit = limit;
    SolverResult a = solveSearch(problem, options);
    SolverResult b = solveSearch(problem, options);
    EXPECT_EQ(a.schedule.steps, b.schedule.steps) << limit;
  }
}

TEST(SearchSolver, BoundedOnHugeGraphs) {
  TrainingGraphOptions graph;
  graph.layers = 6000;
  RematProblem problem = generateTrainingGraph(graph);
  SolverOptions options;
  options.budgetBytes = problem.getPeakLowerBound() * 2;
  SolverResult result = solveSearch(problem, options);
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
  EXPECT_NE(result.message.find("10000 nodes"), std::string::npos)
      << result.message;
}

TEST(SearchSolver, SpecParses) {
  std::string error;
  std::optional<SolverSpec> spec = SolverSpec::parse("search", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->getKind(), SolverKind::Search);
  EXPECT_EQ(spec->str(), "search");
  EXPECT_FALSE(SolverSpec::parse("searches", error));
  EXPECT_NE(error.find("search"), std::string::npos);
}

} // namespace
