//===- BlockSolverTest.cpp - properties of the blocks solver --------------===//
//
// The blocks solver finds block boundaries where cut vertices do not exist
// (a mask read by every block of a transformer-like step), beats `chain`
// where its per-block options pay, and gives valid schedules on random
// training graphs with marks, state updated in place and views.
//
//===----------------------------------------------------------------------===//

#include "SolverTestSupport.h"

#include "remat/Remat/Solvers.h"
#include "remat/Remat/TrainingGraphs.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir::remat;
using namespace mlir::remat::test;

namespace {

/// A transformer-like training step: an embedding, optionally a mask that
/// every layer's attention scores read, and per layer a pre-norm attention
/// and MLP on a residual stream (the stream is read by the norm and by the
/// residual add: two branches). Scores and the MLP's hidden values are large
/// and cheap or large and expensive; the backward reads each forward node's
/// operands and a chain of gradients.
RematProblem transformerLike(int layers, bool mask) {
  RematProblem problem;
  problem.argumentBytes = 1000;
  std::vector<NodeId> forward;
  auto add = [&](const std::string &name, double cost, int64_t bytes,
                 std::vector<ValueId> operands) {
    NodeId id = problem.addNode(name, cost, {bytes}, std::move(operands));
    problem.nodes[id].phase = NodePhase::Forward;
    forward.push_back(id);
    return problem.nodes[id].results[0];
  };
  ValueId x = add("embed", 2.0, 100, {});
  ValueId maskValue = mask ? add("mask", 0.5, 40, {}) : -1;
  for (int layer = 0; layer < layers; ++layer) {
    std::string prefix = "blocks." + std::to_string(layer) + ".";
    ValueId ln1 = add(prefix + "ln1", 1.0, 100, {x});
    ValueId q = add(prefix + "qkv", 30.0, 300, {ln1});
    std::vector<ValueId> scoreOperands = {q};
    if (mask)
      scoreOperands.push_back(maskValue);
    ValueId scores = add(prefix + "scores", 10.0, 800, scoreOperands);
    ValueId probs = add(prefix + "softmax", 2.0, 800, {scores});
    ValueId attn = add(prefix + "attn", 10.0, 100, {probs, q});
    ValueId x1 = add(prefix + "add1", 0.5, 100, {x, attn});
    ValueId ln2 = add(prefix + "ln2", 1.0, 100, {x1});
    ValueId hidden = add(prefix + "fc1", 40.0, 400, {ln2});
    ValueId gelu = add(prefix + "gelu", 1.0, 400, {hidden});
    ValueId out = add(prefix + "fc2", 40.0, 100, {gelu});
    x = add(prefix + "add2", 0.5, 100, {x1, out});
  }
  ValueId loss = add("loss", 1.0, 4, {x});
  ValueId grad = loss;
  for (size_t k = forward.size(); k-- > 0;) {
    const RematNode &node = problem.nodes[forward[k]];
    std::vector<ValueId> operands = {grad};
    for (ValueId operand : node.operands)
      operands.push_back(operand);
    operands.push_back(node.results[0]);
    int64_t bytes = problem.values[node.results[0]].bytes;
    NodeId id = problem.addNode("d_" + node.name, 2.0 * node.cost, {bytes},
                                operands);
    problem.nodes[id].phase = NodePhase::Backward;
    grad = problem.nodes[id].results[0];
  }
  problem.values[grad].isOutput = true;
  return problem;
}

int foundBoundaries(const SolverResult &result) {
  size_t at = result.message.find(" block boundaries (");
  if (at == std::string::npos)
    return -1;
  return std::stoi(result.message.substr(at + 19));
}

TEST(BlockSolver, FindsBoundariesWhereAMaskCrossesEveryCut) {
  RematProblem problem = transformerLike(8, /*mask=*/true);
  ASSERT_EQ(problem.verify(), "");
  int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
  int64_t floor = problem.getPeakLowerBound();
  SolverOptions options;
  options.budgetBytes = floor + (peak - floor) / 3;
  // The mask crosses every position after the embedding: `chain` has that
  // one cut vertex only, and cannot fit.
  EXPECT_FALSE(claimsFit(solveChain(problem, options)));
  SolverResult blocks = solveBlocks(problem, options);
  ASSERT_TRUE(blocks.hasSchedule()) << blocks.message;
  EXPECT_EQ(blocks.status, SolveStatus::Feasible) << blocks.message;
  EXPECT_LE(blocks.simulation.peakBytes, options.budgetBytes);
  // At least the two residual adds of every layer.
  EXPECT_GE(foundBoundaries(blocks), 2 * 8) << blocks.message;
  EXPECT_GT(blocks.simulation.cost, problem.getTotalCost());
}

TEST(BlockSolver, CheaperThanChainOnATransformerLikeStep) {
  RematProblem problem = transformerLike(8, /*mask=*/false);
  int cheaper = 0;
  for (double fraction : {0.15, 0.3, 0.45, 0.6, 0.75, 0.9}) {
    SolverOptions options;
    options.budgetBytes = getBudgetBetween(problem, fraction);
    SolverResult chain = solveChain(problem, options);
    SolverResult blocks = solveBlocks(problem, options);
    ASSERT_TRUE(blocks.hasSchedule()) << blocks.message;
    if (!claimsFit(chain))
      continue;
    // Every choice of chain's is a choice of blocks' (dropped blocks between
    // kept cuts): where chain fits, blocks fits at no higher cost.
    ASSERT_TRUE(claimsFit(blocks)) << fraction << ": " << blocks.message;
    EXPECT_LE(blocks.simulation.cost, chain.simulation.cost * (1 + 1e-9))
        << fraction;
    cheaper += blocks.simulation.cost < chain.simulation.cost * (1 - 1e-3);
  }
  // Keeping whole blocks, or only the expensive values of a block, pays.
  EXPECT_GE(cheaper, 2);
}

TEST(BlockSolver, RandomTrainingGraphsGiveValidSchedules) {
  int feasible = 0, applicable = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 2 + seed % 17;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.25;
    graph.updatesInPlace = seed % 2 == 0;
    graph.viewProbability = seed % 4 < 2 ? 0.0 : 0.4;
    graph.lateReadProbability = graph.updatesInPlace ? 0.3 : 0.0;
    RematProblem problem = generateTrainingGraph(graph);
    ASSERT_EQ(problem.verify(), "") << "seed " << seed;
    if (seed % 5 == 0)
      problem.nodes[seed % graph.layers].policy = NodePolicy::Recompute;
    if (seed % 7 == 0)
      problem.nodes[(seed + 1) % graph.layers].policy = NodePolicy::Keep;
    for (double fraction : {0.0, 0.2, 0.5, 0.8, 1.0}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      options.workLimit = seed % 3 == 0 ? 20000 : 0;
      SolverResult result = solveBlocks(problem, options);
      if (result.status == SolveStatus::NotApplicable) {
        EXPECT_FALSE(result.message.empty());
        continue;
      }
      ++applicable;
      checkResult(problem, result, options.budgetBytes,
                  "seed " + std::to_string(seed));
      if (HasFatalFailure())
        return;
      EXPECT_NE(result.status, SolveStatus::Optimal);
      feasible += claimsFit(result);
      // Deterministic: the same problem and options give the same schedule.
      if (seed % 10 == 0) {
        EXPECT_EQ(solveBlocks(problem, options).schedule.steps,
                  result.schedule.steps)
            << "seed " << seed;
      }
    }
  }
  EXPECT_GT(applicable, 400);
  EXPECT_GT(feasible, 300);
}

TEST(BlockSolver, NotApplicableWithoutPhases) {
  RematProblem problem;
  NodeId a = problem.addNode("a", 1.0, {8});
  problem.addNode("b", 1.0, {8}, {problem.nodes[a].results[0]});
  SolverOptions options;
  options.budgetBytes = 100;
  SolverResult result = solveBlocks(problem, options);
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
  EXPECT_FALSE(result.message.empty());
}

TEST(BlockSolver, ParsesAndRunsThroughSolve) {
  std::string error;
  std::optional<SolverSpec> spec = SolverSpec::parse("blocks", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->getKind(), SolverKind::Blocks);
  EXPECT_EQ(spec->str(), "blocks");
  RematProblem problem = transformerLike(3, /*mask=*/true);
  SolverOptions options;
  options.budgetBytes = simulate(problem, getStartingSchedule(problem)).peakBytes;
  SolverResult result = solve(problem, *spec, options);
  EXPECT_EQ(result.solver, "blocks");
  EXPECT_TRUE(claimsFit(result)) << result.message;
}

} // namespace

namespace {

/// A large training graph: the measurements are bounded by the work limit,
/// so the solve stays near-linear (boundaries are thinned to fit).
RematProblem largeGraph(int64_t layers) {
  TrainingGraphOptions graph;
  graph.layers = layers;
  graph.seed = 2026;
  graph.skipProbability = 0.1;
  return generateTrainingGraph(graph);
}

void solveLarge(int64_t layers) {
  RematProblem problem = largeGraph(layers);
  int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
  int64_t floor = problem.getPeakLowerBound();
  SolverOptions options;
  options.budgetBytes = floor + (peak - floor) / 2;
  SolverResult result = solveBlocks(problem, options);
  ASSERT_TRUE(result.hasSchedule()) << result.message;
  EXPECT_TRUE(claimsFit(result)) << result.message;
}

TEST(BlockSolver, LargeGraphsStayWithinTheirWork) { solveLarge(5000); }

TEST(BlockSolver, SaysNotApplicableWhereTheWorkAffordsNoBlocks) {
  // About 100k nodes: not one block measurement per boundary fits the
  // default work, and the solver says so rather than running long.
  RematProblem problem = largeGraph(33000);
  SolverOptions options;
  options.budgetBytes = problem.getPeakLowerBound() * 2;
  SolverResult result = solveBlocks(problem, options);
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
  EXPECT_NE(result.message.find("too large"), std::string::npos)
      << result.message;
}

} // namespace
