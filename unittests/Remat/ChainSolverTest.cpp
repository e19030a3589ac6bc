//===- ChainSolverTest.cpp - properties of the chain solver ---------------===//
//
// On random chains of blocks (training graphs without skips, and with skips
// inside blocks), at budgets from the lower bound to the peak: the chain
// solver's schedules are valid, within the budget when it says so, never
// cost more than segments=K or sqrt where those fit (their checkpoints are
// in its space), and never cost more at a larger budget.
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

TEST(ChainSolver, OptimalOverCheckpointChoices) {
  int optimal = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 3 + seed % 20;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.15;
    RematProblem problem = generateTrainingGraph(graph);
    std::optional<double> previous;
    for (double fraction : {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      SolverResult chain = solveChain(problem, options);
      if (chain.status == SolveStatus::NotApplicable)
        break;
      ASSERT_TRUE(chain.simulation.valid) << "seed " << seed;
      if (claimsFit(chain)) {
        EXPECT_LE(chain.simulation.peakBytes, options.budgetBytes);
      }
      for (int64_t k : {2, 3, 4, 6}) {
        SolverResult segments = solveSegments(problem, k, options);
        if (!claimsFit(segments))
          continue;
        ASSERT_TRUE(claimsFit(chain))
            << "seed " << seed << ": segments=" << k << " fits, chain not";
        EXPECT_LE(chain.simulation.cost, segments.simulation.cost + 1e-9)
            << "seed " << seed << " segments=" << k;
      }
      if (!claimsFit(chain))
        continue;
      ++optimal;
      if (previous) {
        EXPECT_LE(chain.simulation.cost, *previous + 1e-9)
            << "seed " << seed << ": a larger budget cost more";
      }
      previous = chain.simulation.cost;
    }
  }
  EXPECT_GT(optimal, 100);
}

TEST(ChainSolver, NotApplicableWithoutPhases) {
  RematProblem problem;
  NodeId a = problem.addNode("a", 1.0, {8});
  problem.addNode("b", 1.0, {8}, {problem.nodes[a].results[0]});
  SolverOptions options;
  options.budgetBytes = 100;
  SolverResult result = solveChain(problem, options);
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
}

} // namespace
