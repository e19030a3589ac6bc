//===- ScheduleBuilderTest.cpp - the schedule builder's victim heap -------===//
//
// The builder finds each eviction's victim in a heap with lazy invalidation;
// with setCheckVictims it also scans every resident value for the victim,
// as the builder did before the heap, and counts disagreements. Over random
// training-like graphs (skips, residual edges, state updated in place,
// views, late reads) and random DAGs, every score and both recomputation
// modes, at budgets from the floor to the peak, they always agree.
//
//===----------------------------------------------------------------------===//

#include "SolverTestSupport.h"

#include "ScheduleBuilder.h"

#include "remat/Remat/TrainingGraphs.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::remat;
using namespace mlir::remat::test;

namespace {

const EvictionScore kScores[] = {EvictionScore::CostPerByteDistance,
                                 EvictionScore::ChainCostPerByteDistance,
                                 EvictionScore::CostPerByte,
                                 EvictionScore::ByteDistance};

/// Builds `problem` under each score, mode and a few budgets, checking the
/// heap against the scan; returns the evictions checked (schedule steps
/// beyond the starting order, as a rough count).
int64_t checkHeapAgainstScan(const RematProblem &problem,
                             const std::string &what) {
  int64_t recomputed = 0;
  for (double fraction : {0.0, 0.25, 0.6}) {
    int64_t budget = getBudgetBetween(problem, fraction);
    for (EvictionScore score : kScores)
      for (bool hold : {true, false}) {
        ScheduleBuilder builder(problem);
        builder.setBudget(budget, score);
        builder.setHoldOperands(hold);
        builder.setCheckVictims(true);
        Schedule schedule = builder.build();
        EXPECT_EQ(builder.getVictimMismatches(), 0)
            << what << " budget " << budget << " score " << int(score)
            << " hold " << hold;
        if (builder.aborted())
          continue;
        Simulation simulation = simulate(problem, schedule);
        EXPECT_TRUE(simulation.valid) << what << ": " << simulation.error;
        recomputed += int64_t(schedule.steps.size()) -
                      int64_t(problem.nodes.size());
      }
  }
  return recomputed;
}

TEST(ScheduleBuilder, HeapPicksTheScannedVictimOnTrainingGraphs) {
  int64_t recomputed = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 3 + seed % 29;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.25;
    graph.residualEvery = seed % 4 == 0 ? 0 : 1 + seed % 5;
    graph.updatesInPlace = seed % 2 == 0;
    graph.viewProbability = seed % 3 == 1 ? 0.4 : 0.0;
    graph.lateReadProbability = seed % 5 == 2 ? 0.3 : 0.0;
    RematProblem problem = generateTrainingGraph(graph);
    ASSERT_EQ(problem.verify(), "") << "seed " << seed;
    if (seed % 7 == 0)
      problem.nodes[seed % graph.layers].policy = NodePolicy::Keep;
    recomputed += checkHeapAgainstScan(problem, "seed " + std::to_string(seed));
    if (HasFailure())
      return;
  }
  // The budgets made the builds evict and recompute.
  EXPECT_GT(recomputed, 1000);
}

TEST(ScheduleBuilder, HeapPicksTheScannedVictimOnRandomDags) {
  std::mt19937_64 rng(7);
  for (int instance = 0; instance < 150; ++instance) {
    RematProblem problem = makeRandomDag(rng, 5 + instance % 60);
    ASSERT_EQ(problem.verify(), "");
    checkHeapAgainstScan(problem, "instance " + std::to_string(instance));
    if (HasFailure())
      return;
  }
}

} // namespace
