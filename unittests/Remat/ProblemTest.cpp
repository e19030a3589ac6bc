//===- ProblemTest.cpp - unit tests of problems, schedules, simulate() ----===//

#include "remat/Remat/Problem.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

/// a -> b -> c, with c also reading a; c is the output. 100 bytes each,
/// 1000 bytes of arguments.
RematProblem makeChain() {
  RematProblem problem;
  problem.argumentBytes = 1000;
  problem.addNode("a", 1.0, {100});
  problem.addNode("b", 2.0, {100}, {0});
  problem.addNode("c", 4.0, {100}, {1, 0});
  problem.values[2].isOutput = true;
  return problem;
}

TEST(Problem, VerifiesTopologicalOrder) {
  RematProblem problem = makeChain();
  EXPECT_EQ(problem.verify(), "");
  problem.nodes[0].operands.push_back(2);
  EXPECT_NE(problem.verify().find("defined later"), std::string::npos);
}

TEST(Problem, LowerBoundIsTheLargestWorkingSet) {
  RematProblem problem = makeChain();
  // c reads a and b and defines c: 300 bytes.
  EXPECT_EQ(problem.getPeakLowerBound(), 1300);
  EXPECT_DOUBLE_EQ(problem.getTotalCost(), 7.0);
}

TEST(Simulate, StartingOrder) {
  RematProblem problem = makeChain();
  Simulation simulation = simulate(problem, getStartingSchedule(problem));
  ASSERT_TRUE(simulation.valid) << simulation.error;
  EXPECT_EQ(simulation.liveBytes, (std::vector<int64_t>{1100, 1200, 1300}));
  EXPECT_EQ(simulation.peakBytes, 1300);
  EXPECT_DOUBLE_EQ(simulation.cost, 7.0);
}

TEST(Simulate, RecomputationReadsTheLatestInstance) {
  RematProblem problem = makeChain();
  // a, b, a again, c: c reads the second a, so the first dies after b.
  Simulation simulation = simulate(problem, Schedule{{0, 1, 0, 2}});
  ASSERT_TRUE(simulation.valid) << simulation.error;
  EXPECT_EQ(simulation.liveBytes,
            (std::vector<int64_t>{1100, 1200, 1200, 1300}));
  EXPECT_DOUBLE_EQ(simulation.cost, 8.0);
  EXPECT_EQ(simulation.runs, (std::vector<int32_t>{2, 1, 1}));
}

TEST(Simulate, OutputsAreTheFirstInstance) {
  RematProblem problem;
  problem.addNode("x", 1.0, {50});
  problem.addNode("y", 1.0, {10}, {0});
  problem.values[0].isOutput = true;
  // x twice: the first x is returned and lives to the end.
  Simulation simulation = simulate(problem, Schedule{{0, 0, 1}});
  ASSERT_TRUE(simulation.valid) << simulation.error;
  EXPECT_EQ(simulation.liveBytes, (std::vector<int64_t>{50, 100, 110}));
}

TEST(Simulate, RejectsInvalidSchedules) {
  RematProblem problem = makeChain();
  EXPECT_NE(simulate(problem, Schedule{{1, 0, 2}}).error.find("before 'a'"),
            std::string::npos);
  EXPECT_NE(simulate(problem, Schedule{{0, 1}}).error.find("'c' never runs"),
            std::string::npos);
  EXPECT_NE(simulate(problem, Schedule{{0, 7}}).error.find("unknown node"),
            std::string::npos);
  problem.nodes[0].recomputable = false;
  EXPECT_NE(simulate(problem, Schedule{{0, 1, 0, 2}})
                .error.find("may not be recomputed"),
            std::string::npos);
}

TEST(Simulate, LiveBytesBeyondInt64AreAnError) {
  // a, b and c (6.2e18 bytes each) all live while c runs.
  constexpr int64_t kHuge = 6'200'000'000'000'000'000;
  RematProblem problem;
  problem.addNode("a", 1.0, {kHuge});
  problem.addNode("b", 1.0, {kHuge}, {0});
  problem.addNode("c", 1.0, {kHuge}, {1, 0});
  problem.values[2].isOutput = true;
  Simulation simulation = simulate(problem, getStartingSchedule(problem));
  EXPECT_FALSE(simulation.valid);
  EXPECT_EQ(simulation.overflowStep, 1);
  EXPECT_EQ(simulation.error,
            "the bytes live at step 1 ('b') exceed the int64 range");
  EXPECT_EQ(problem.findByteOverflow(), 1);
  EXPECT_EQ(problem.getPeakLowerBound(), INT64_MAX);
}

TEST(Problem, ByteTotalCountsArgumentsAlignmentAndWorkspace) {
  RematProblem problem = makeChain();
  EXPECT_EQ(problem.findByteOverflow(), std::nullopt);
  problem.nodes[1].workspaceBytes = INT64_MAX - 1300;
  EXPECT_EQ(problem.findByteOverflow(), std::nullopt);
  problem.values[2].alignment = 256;
  EXPECT_EQ(problem.findByteOverflow(), 2);
  problem.argumentBytes = INT64_MAX;
  EXPECT_EQ(problem.findByteOverflow(), 0);
}

} // namespace
