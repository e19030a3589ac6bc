//===- ExactSolverTest.cpp - properties of the exact solver ---------------===//
//
// On small random training graphs, at budgets from the lower bound to the
// peak: the exact solver's schedules are valid and within the budget when it
// says so, never cost more than the heuristic it starts from, never less
// than the lower bound it proves, and, where it proves optimality at two
// budgets, never cost more at the larger one. Skipped in builds without CBC.
//
//===----------------------------------------------------------------------===//

#include "SolverTestSupport.h"

#include "remat/Remat/Solvers.h"
#include "remat/Remat/TrainingGraphs.h"

#include "gtest/gtest.h"

#include <optional>

using namespace mlir::remat;
using namespace mlir::remat::test;

namespace {

TEST(ExactSolver, ValidBoundedAndMonotone) {
  if (!isExactSolverAvailable())
    GTEST_SKIP() << "built without CBC";
  int proven = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 2 + seed % 4;
    graph.seed = seed;
    graph.skipProbability = (seed % 2) * 0.3;
    RematProblem problem = generateTrainingGraph(graph);
    std::optional<double> previousOptimum;
    for (double fraction : {0.25, 0.6, 1.0}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      options.workLimit = 5000;
      SolverResult exact = solveExact(problem, options);
      SolverResult heuristic = solveHeuristic(problem, options);
      ASSERT_TRUE(exact.simulation.valid) << "seed " << seed;
      bool fits = claimsFit(exact);
      if (fits) {
        EXPECT_LE(exact.simulation.peakBytes, options.budgetBytes);
      }
      if (heuristic.status == SolveStatus::Feasible) {
        ASSERT_TRUE(fits) << "seed " << seed;
        EXPECT_LE(exact.simulation.cost, heuristic.simulation.cost);
      }
      if (exact.lowerBoundCost) {
        EXPECT_GE(exact.simulation.cost, *exact.lowerBoundCost - 1e-6);
      }
      if (exact.status != SolveStatus::Optimal) {
        previousOptimum.reset();
        continue;
      }
      ++proven;
      EXPECT_DOUBLE_EQ(*exact.lowerBoundCost, exact.simulation.cost);
      if (previousOptimum) {
        EXPECT_LE(exact.simulation.cost, *previousOptimum + 1e-6)
            << "seed " << seed << ": a larger budget cost more";
      }
      previousOptimum = exact.simulation.cost;
    }
  }
  EXPECT_GT(proven, 12) << "CBC proved too few of the small instances";
}

TEST(ExactSolver, FindsTheOptimumOfAChainByHand) {
  if (!isExactSolverAvailable())
    GTEST_SKIP() << "built without CBC";
  // a -> b -> c forward, then c' reads c and b, b' reads b' input and a:
  // keeping everything peaks at a + b + c + gradients; at a budget one
  // value short, the cheapest fix recomputes a (cost 1) rather than b (2).
  RematProblem problem;
  NodeId a = problem.addNode("a", 1.0, {100});
  NodeId b = problem.addNode("b", 2.0, {100}, {problem.nodes[a].results[0]});
  NodeId c = problem.addNode("c", 4.0, {100}, {problem.nodes[b].results[0]});
  NodeId gc = problem.addNode("c.grad", 1.0, {10},
                              {problem.nodes[c].results[0],
                               problem.nodes[b].results[0]});
  NodeId gb = problem.addNode("b.grad", 1.0, {10},
                              {problem.nodes[gc].results[0],
                               problem.nodes[a].results[0]});
  problem.values[problem.nodes[gb].results[0]].isOutput = true;
  for (NodeId node : {a, b, c})
    problem.nodes[node].phase = NodePhase::Forward;
  for (NodeId node : {gc, gb})
    problem.nodes[node].phase = NodePhase::Backward;
  ASSERT_EQ(problem.verify(), "");
  SolverOptions options;
  options.budgetBytes =
      simulate(problem, getStartingSchedule(problem)).peakBytes - 50;
  SolverResult exact = solveExact(problem, options);
  EXPECT_EQ(exact.status, SolveStatus::Optimal);
  EXPECT_DOUBLE_EQ(exact.simulation.cost, problem.getTotalCost() + 1.0);
}

} // namespace
