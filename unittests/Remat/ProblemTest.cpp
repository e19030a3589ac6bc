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

namespace {
/// a reads state w; b reads a; u writes w (after reading b); c reads a.
RematProblem makeStateProblem() {
  RematProblem problem;
  problem.argumentBytes = 100;
  problem.stateNames = {"w"};
  problem.addNode("a", 1.0, {100});
  problem.nodes[0].stateReads = {0};
  problem.addNode("b", 1.0, {100}, {0});
  problem.addNode("u", 1.0, {0}, {1});
  problem.nodes[2].stateReads = {0};
  problem.nodes[2].stateWrites = {0};
  problem.nodes[2].recomputable = false;
  problem.addNode("c", 1.0, {100}, {0});
  problem.values[2].isOutput = true;
  problem.values[3].isOutput = true;
  return problem;
}
} // namespace

TEST(Problem, StateIsWrittenOnceAfterItsReads) {
  RematProblem problem = makeStateProblem();
  EXPECT_EQ(problem.verify(), "");
  EXPECT_EQ(problem.getStateDeadlines(),
            (std::vector<int64_t>{2, INT64_MAX, 2, INT64_MAX}));
  problem.nodes[3].stateReads = {0};
  EXPECT_NE(problem.verify().find("reads state 'w' after its update"),
            std::string::npos);
  problem = makeStateProblem();
  problem.nodes[2].recomputable = true;
  EXPECT_NE(problem.verify().find("may be recomputed"), std::string::npos);
}

TEST(Simulate, StateIsNotReadAfterItsUpdate) {
  RematProblem problem = makeStateProblem();
  // Recomputing a before u is fine; after u it reads the new w.
  Simulation before = simulate(problem, Schedule{{0, 1, 0, 2, 3}});
  EXPECT_TRUE(before.valid) << before.error;
  Simulation after = simulate(problem, Schedule{{0, 1, 2, 0, 3}});
  EXPECT_FALSE(after.valid);
  EXPECT_NE(after.error.find("reads 'w' after step 2 wrote its new value"),
            std::string::npos)
      << after.error;
  // The update's own value takes no bytes: 100 (args) + a + b at step 1.
  EXPECT_EQ(before.peakBytes, 300);
}

TEST(Simulate, ViewsShareTheirOwnersBytes) {
  RematProblem problem;
  problem.argumentBytes = 0;
  problem.addNode("a", 1.0, {100});
  problem.addNode("v", 0.0, {0}, {0});
  problem.values[1].viewOf = 0;
  problem.addNode("b", 1.0, {50});
  // c reads the view, and so the owner's bytes.
  problem.addNode("c", 1.0, {10}, {1, 0, 2});
  problem.values[3].isOutput = true;
  ASSERT_EQ(problem.verify(), "");
  Simulation simulation = simulate(problem, getStartingSchedule(problem));
  ASSERT_TRUE(simulation.valid) << simulation.error;
  EXPECT_EQ(simulation.liveBytes, (std::vector<int64_t>{100, 100, 150, 160}));
  // Recomputing a without the view leaves c reading a view of the first a.
  Simulation stale = simulate(problem, Schedule{{0, 1, 2, 0, 3}});
  EXPECT_FALSE(stale.valid);
  EXPECT_NE(stale.error.find("view made from an earlier instance of 'a'"),
            std::string::npos)
      << stale.error;
  Simulation remade = simulate(problem, Schedule{{0, 1, 2, 0, 1, 3}});
  EXPECT_TRUE(remade.valid) << remade.error;
}
