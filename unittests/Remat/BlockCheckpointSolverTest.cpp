//===- BlockCheckpointSolverTest.cpp - checkpoints at block outputs -------===//
//
// The blocks come from module paths in the node names; block outputs are
// kept, block insides recomputed, the rest kept; schedules are valid on
// random training graphs with state updated in place and views.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"
#include "remat/Remat/TrainingGraphs.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

/// Names the forward nodes of a generated graph as `perBlock` nodes per
/// block (`blocks.K.opI`), the first and last forward node outside any
/// block (`embed`, `head`).
void nameBlocks(RematProblem &problem, int perBlock) {
  std::vector<NodeId> forward;
  for (size_t id = 0; id < problem.nodes.size(); ++id)
    if (problem.nodes[id].phase == NodePhase::Forward)
      forward.push_back(id);
  for (size_t i = 0; i < forward.size(); ++i) {
    std::string &name = problem.nodes[forward[i]].name;
    if (i == 0)
      name = "embed";
    else if (i + 1 == forward.size())
      name = "head";
    else
      name = "blocks." + std::to_string((i - 1) / perBlock) + ".op" +
             std::to_string(i);
  }
}

RematProblem makeChain(int64_t layers) {
  TrainingGraphOptions graph;
  graph.layers = layers;
  graph.skipProbability = 0.0;
  graph.minBytes = graph.maxBytes = 1000;
  // Weights updated in place: no weight gradients live to the end.
  graph.updatesInPlace = true;
  return generateTrainingGraph(graph);
}

TEST(BlockCheckpoints, KeepsBlockOutputsAndRecomputesInsides) {
  // Forward: embed (layer 0), blocks.0 (layers 1-3), blocks.1 (4-6),
  // blocks.2 (7-9), head (the loss).
  RematProblem problem = makeChain(10);
  nameBlocks(problem, 3);
  SolverOptions options;
  options.budgetBytes = int64_t(1) << 40;
  SolverResult result = solveBlockCheckpoints(problem, options);
  ASSERT_EQ(result.status, SolveStatus::Feasible) << result.message;
  EXPECT_EQ(result.message, "3 blocks");
  for (size_t id = 0; id < problem.nodes.size(); ++id) {
    const RematNode &node = problem.nodes[id];
    if (node.phase != NodePhase::Forward)
      continue;
    llvm::StringRef name = node.name;
    // The last op of each block (op3, op6, op9) is its output.
    bool inside = name.starts_with("blocks.") && !name.ends_with("op3") &&
                  !name.ends_with("op6") && !name.ends_with("op9");
    EXPECT_EQ(result.simulation.runs[id], inside ? 2 : 1) << node.name;
  }
  // Below the step's own peak, at more compute.
  Simulation given = simulate(problem, getStartingSchedule(problem));
  EXPECT_LT(result.simulation.peakBytes, given.peakBytes);
  EXPECT_GT(result.simulation.cost, given.cost);
}

TEST(BlockCheckpoints, NeedsTwoBlocksInTheNames) {
  RematProblem problem = makeChain(8);
  SolverOptions options;
  options.budgetBytes = int64_t(1) << 40;
  // Generated names (f0, f1, ...) have no module paths.
  SolverResult result = solveBlockCheckpoints(problem, options);
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
  EXPECT_NE(result.message.find("fewer than two top-level blocks"),
            std::string::npos);
  // A numeric suffix that only tells names apart (relu.2) is no block.
  int i = 0;
  for (RematNode &node : problem.nodes)
    if (node.phase == NodePhase::Forward)
      node.name = "relu." + std::to_string(++i);
  EXPECT_EQ(solveBlockCheckpoints(problem, options).status,
            SolveStatus::NotApplicable);
}

TEST(BlockCheckpoints, ValidOnTrainingGraphsWithStateAndViews) {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 4 + seed % 17;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.25;
    graph.updatesInPlace = seed % 2 == 0;
    graph.viewProbability = 0.3;
    graph.lateReadProbability = 0.2;
    RematProblem problem = generateTrainingGraph(graph);
    nameBlocks(problem, 1 + seed % 4);
    ASSERT_EQ(problem.verify(), "");
    int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
    for (int64_t budget : {peak, problem.getPeakLowerBound()}) {
      SolverOptions options;
      options.budgetBytes = budget;
      options.autoLpBound = false;
      for (bool viaAuto : {false, true}) {
        SolverResult result = viaAuto ? solveAuto(problem, options)
                                      : solveBlockCheckpoints(problem, options);
        if (result.status == SolveStatus::NotApplicable)
          continue;
        ASSERT_TRUE(result.simulation.valid)
            << "seed " << seed << ": " << result.simulation.error;
        EXPECT_EQ(result.status == SolveStatus::Feasible ||
                      result.status == SolveStatus::Optimal,
                  result.simulation.peakBytes <= budget)
            << "seed " << seed;
      }
    }
  }
}

} // namespace
