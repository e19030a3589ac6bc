//===- SolversTest.cpp - property tests of the solvers --------------------===//
//
// On hundreds of random training-like DAGs and thousands of random DAGs
// without phases, at budgets between the lower bound and the starting peak,
// every solver's schedule is valid by simulate(), and within the budget
// exactly when the solver says feasible.
//
//===----------------------------------------------------------------------===//

#include "SolverTestSupport.h"

#include "remat/Remat/Solvers.h"
#include "remat/Remat/TrainingGraphs.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <limits>
#include <random>

using namespace mlir::remat;
using namespace mlir::remat::test;

namespace {

/// Parses `name` and runs that solver; std::nullopt and `error` for a bad
/// name.
std::optional<SolverResult> solveByName(const RematProblem &problem,
                                        llvm::StringRef name,
                                        const SolverOptions &options,
                                        std::string &error) {
  std::optional<SolverSpec> spec = SolverSpec::parse(name, error);
  if (!spec)
    return std::nullopt;
  return solve(problem, *spec, options);
}

const char *kSolvers[] = {"none",  "segments=2", "segments=3", "sqrt",
                          "marks", "chain",      "heuristic", "auto"};

TEST(Solvers, RandomTrainingGraphsGiveValidSchedules) {
  int feasibleHeuristic = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 2 + seed % 23;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.25;
    RematProblem problem = generateTrainingGraph(graph);
    ASSERT_EQ(problem.verify(), "");
    // Mark a few nodes to exercise the marks.
    if (seed % 5 == 0)
      problem.nodes[seed % graph.layers].policy = NodePolicy::Recompute;
    for (double fraction : {0.0, 0.5, 0.9, 1.0}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      // CBC takes about 0.1 s per bound: one graph in 20 gets it.
      options.autoLpBound = seed % 20 == 0;
      for (const char *name : kSolvers) {
        std::optional<SolverResult> result = solveAndCheck(
            problem, name, options, name + (" seed " + std::to_string(seed)));
        if (HasFatalFailure())
          return;
        if (result && std::string(name) == "heuristic" &&
            result->status == SolveStatus::Feasible)
          ++feasibleHeuristic;
      }
    }
  }
  // The heuristic meets most of these budgets.
  EXPECT_GT(feasibleHeuristic, 1000);
}

TEST(Solvers, StateUpdatedInPlaceAndViewsGiveValidSchedules) {
  // Weights updated right after their gradients, and views: every schedule
  // keeps each update after every read of the old weight (recomputations
  // included) and reads views of the latest instance of their owner, which
  // simulate() checks; the exact solver too, where CBC is built in.
  int feasible = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 2 + seed % 13;
    graph.seed = seed;
    graph.skipProbability = (seed % 3) * 0.25;
    graph.updatesInPlace = true;
    graph.viewProbability = 0.4;
    graph.lateReadProbability = 0.3;
    RematProblem problem = generateTrainingGraph(graph);
    ASSERT_EQ(problem.verify(), "") << "seed " << seed;
    for (double fraction : {0.0, 0.3, 0.7}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      options.autoLpBound = false;
      options.workLimit = 20000;
      std::vector<std::string> names(std::begin(kSolvers), std::end(kSolvers));
      if (isExactSolverAvailable() && seed % 10 == 0 && graph.layers <= 6)
        names.push_back("exact");
      for (const std::string &name : names) {
        std::optional<SolverResult> result = solveAndCheck(
            problem, name, options, name + " seed " + std::to_string(seed));
        if (HasFatalFailure())
          return;
        feasible += result && claimsFit(*result);
      }
    }
  }
  EXPECT_GT(feasible, 500);
}

TEST(Solvers, ResidualTrainingGraphsGiveValidSchedules) {
  // Residual edges every few layers (with their gradients in the backward
  // pass), alone and with skips, state updated in place and views.
  int feasible = 0;
  for (uint64_t seed = 1; seed <= 90; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 4 + seed % 37;
    graph.seed = seed;
    graph.residualEvery = 1 + seed % 6;
    graph.skipProbability = (seed % 3) * 0.2;
    graph.updatesInPlace = seed % 2 == 0;
    graph.viewProbability = seed % 4 == 1 ? 0.3 : 0.0;
    RematProblem problem = generateTrainingGraph(graph);
    ASSERT_EQ(problem.verify(), "") << "seed " << seed;
    // Layer i (a multiple of residualEvery) reads layer i - residualEvery's
    // output; that layer's backward node reads the gradient layer i's makes.
    int64_t residualReads = 0, residualGradients = 0;
    for (const RematNode &node : problem.nodes) {
      if (node.phase == NodePhase::Forward && node.name[0] == 'f') {
        int64_t layer = std::stoll(node.name.substr(1));
        bool expected = layer >= graph.residualEvery &&
                        layer % graph.residualEvery == 0;
        std::string source = "f" + std::to_string(layer - graph.residualEvery);
        bool found = llvm::any_of(node.operands, [&](ValueId operand) {
          return problem.nodes[problem.values[operand].producer].name ==
                 source;
        });
        if (expected) {
          EXPECT_TRUE(found) << "seed " << seed << " layer " << layer;
          ++residualReads;
        }
      }
      if (node.phase == NodePhase::Backward && node.results.size() == 3) {
        ++residualGradients;
        // Read by exactly one later backward node.
        int readers = 0;
        for (const RematNode &other : problem.nodes)
          readers += llvm::count(other.operands, node.results[2]);
        EXPECT_EQ(readers, 1) << "seed " << seed << " " << node.name;
      }
    }
    EXPECT_EQ(residualReads, residualGradients) << "seed " << seed;
    EXPECT_EQ(residualReads, (graph.layers - 1) / graph.residualEvery)
        << "seed " << seed;
    for (double fraction : {0.0, 0.4, 0.8}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      options.autoLpBound = seed % 30 == 0;
      for (const char *name : kSolvers) {
        std::optional<SolverResult> result = solveAndCheck(
            problem, name, options, name + (" seed " + std::to_string(seed)));
        if (HasFatalFailure())
          return;
        feasible += result && claimsFit(*result);
      }
    }
  }
  EXPECT_GT(feasible, 400);
}

TEST(Solvers, ALargeResidualGraphFitsHalfItsPeak) {
  // A ResNet-like shape, small: the heuristic meets 50% of the peak of a
  // training graph with a residual edge every four layers.
  for (double skips : {0.0, 0.2}) {
    TrainingGraphOptions graph;
    graph.layers = 3000;
    graph.residualEvery = 4;
    graph.skipProbability = skips;
    graph.seed = 2026;
    RematProblem problem = generateTrainingGraph(graph);
    int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
    SolverOptions options;
    options.budgetBytes = std::max(problem.getPeakLowerBound(), peak / 2);
    SolverResult result = solveHeuristic(problem, options);
    checkResult(problem, result, options.budgetBytes,
                "heuristic, skips " + std::to_string(skips));
    EXPECT_EQ(result.status, SolveStatus::Feasible) << "skips " << skips;
  }
}

TEST(Solvers, SmallestPeakCoversEveryCandidate) {
  // Below the floor no budget is met: each solver's smallest peak is at
  // most its own, the heuristic's covers its eight builds, and auto's is at
  // most that of every solver it runs.
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 3 + seed % 17;
    graph.seed = seed;
    graph.residualEvery = seed % 3 == 0 ? 0 : 2 + seed % 3;
    RematProblem problem = generateTrainingGraph(graph);
    int64_t floor = problem.getPeakLowerBound();
    int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
    for (int64_t budget : {floor - 1, floor + (peak - floor) / 3}) {
      SolverOptions options;
      options.budgetBytes = budget;
      options.autoLpBound = false;
      SolverResult best = solveAuto(problem, options);
      ASSERT_TRUE(best.smallestPeakBytes) << "seed " << seed;
      EXPECT_LE(*best.smallestPeakBytes, best.simulation.peakBytes);
      EXPECT_GE(*best.smallestPeakBytes, floor);
      for (const char *name : kSolvers) {
        std::string error;
        std::optional<SolverResult> result =
            solveByName(problem, name, options, error);
        ASSERT_TRUE(result) << error;
        if (!result->hasSchedule()) {
          EXPECT_FALSE(result->smallestPeakBytes) << name;
          continue;
        }
        ASSERT_TRUE(result->smallestPeakBytes) << name;
        EXPECT_LE(*result->smallestPeakBytes, result->simulation.peakBytes)
            << name << " seed " << seed;
        EXPECT_LE(*best.smallestPeakBytes, *result->smallestPeakBytes)
            << name << " seed " << seed;
      }
    }
  }
}

TEST(Solvers, RandomDagsGiveValidSchedules) {
  std::mt19937_64 rng(42);
  for (int instance = 0; instance < 2000; ++instance) {
    RematProblem problem = makeRandomDag(rng, 2 + instance % 40);
    ASSERT_EQ(problem.verify(), "");
    int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
    int64_t floor = problem.getPeakLowerBound();
    SolverOptions options;
    options.budgetBytes = floor + (peak - floor) / 2;
    // CBC takes about 0.1 s per bound: one instance in 20 gets it.
    options.autoLpBound = instance % 20 == 0;
    for (const char *name : {"heuristic", "auto", "segments=2"}) {
      std::string error;
      std::optional<SolverResult> result = solveByName(problem, name, options, error);
      ASSERT_TRUE(result) << error;
      if (result->status == SolveStatus::NotApplicable)
        continue;
      ASSERT_TRUE(result->simulation.valid)
          << name << " instance " << instance << ": "
          << result->simulation.error;
      ASSERT_EQ(claimsFit(*result),
                result->simulation.peakBytes <= options.budgetBytes)
          << name << " instance " << instance;
      if (result->lowerBoundCost) {
        ASSERT_LE(*result->lowerBoundCost,
                  result->simulation.cost * (1 + 1e-9))
            << name << " instance " << instance;
      }
    }
  }
}

TEST(Solvers, NoneKeepsTheStartingOrder) {
  RematProblem problem = generateTrainingGraph({});
  SolverOptions options;
  options.budgetBytes = int64_t(1) << 40;
  SolverResult result = solveNone(problem, options);
  EXPECT_EQ(result.schedule.steps, getStartingSchedule(problem).steps);
  EXPECT_EQ(result.status, SolveStatus::Feasible);
}

TEST(Solvers, SegmentsNeedPhasesAndCuts) {
  RematProblem problem = generateTrainingGraph({});
  for (RematNode &node : problem.nodes)
    node.phase = NodePhase::Unknown;
  SolverOptions options;
  SolverResult result = solveSegments(problem, 2, options);
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
  EXPECT_NE(result.message.find("no forward and backward phases"),
            std::string::npos);
}

TEST(Solvers, CheckpointingLowersThePeakOfAChain) {
  TrainingGraphOptions graph;
  graph.layers = 16;
  graph.skipProbability = 0.0;
  graph.minBytes = graph.maxBytes = 100000;
  RematProblem problem = generateTrainingGraph(graph);
  SolverOptions options;
  options.budgetBytes = int64_t(1) << 40;
  int64_t peak = solveNone(problem, options).simulation.peakBytes;
  SolverResult sqrt = solveSqrt(problem, options);
  ASSERT_TRUE(sqrt.hasSchedule());
  EXPECT_LT(sqrt.simulation.peakBytes, peak);
  EXPECT_GT(sqrt.simulation.cost, problem.getTotalCost());
  // The heuristic reaches the sqrt peak too, at about the same cost, and
  // auto takes the cheaper of the two.
  options.budgetBytes = sqrt.simulation.peakBytes;
  SolverResult heuristic = solveHeuristic(problem, options);
  EXPECT_EQ(heuristic.status, SolveStatus::Feasible);
  EXPECT_LE(heuristic.simulation.cost, 1.05 * sqrt.simulation.cost);
  SolverResult best = solveAuto(problem, options);
  EXPECT_EQ(best.status, SolveStatus::Feasible);
  EXPECT_LE(best.simulation.cost, sqrt.simulation.cost);
  EXPECT_LE(best.simulation.cost, heuristic.simulation.cost);
}

TEST(Solvers, DeterministicForAWorkLimit) {
  TrainingGraphOptions graph;
  graph.layers = 40;
  graph.seed = 9;
  RematProblem problem = generateTrainingGraph(graph);
  SolverOptions options;
  options.budgetBytes = problem.getPeakLowerBound() * 3 / 2;
  options.workLimit = 5000;
  for (const char *name : kSolvers) {
    std::string error;
    std::optional<SolverResult> a = solveByName(problem, name, options, error);
    std::optional<SolverResult> b = solveByName(problem, name, options, error);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->schedule.steps, b->schedule.steps) << name;
  }
}

TEST(Solvers, AutoIsTheSameOnOneThreadOrMany) {
  // auto runs its solvers (and the heuristic its builds) at the same time
  // and folds them as they finish: ties go to the earlier one, so the
  // choice is the sequential one.
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 10 + seed * 5;
    graph.seed = seed;
    graph.residualEvery = 1 + seed % 4;
    RematProblem problem = generateTrainingGraph(graph);
    for (double fraction : {0.0, 0.3, 0.7}) {
      SolverOptions options;
      options.budgetBytes = getBudgetBetween(problem, fraction);
      options.autoLpBound = false;
      options.fitArena = seed % 2 == 0;
      options.parallel = false;
      SolverResult sequential = solveAuto(problem, options);
      SolverResult heuristic = solveHeuristic(problem, options);
      options.parallel = true;
      SolverResult parallel = solveAuto(problem, options);
      // The heuristic's eight builds run at the same time too.
      SolverResult heuristicParallel = solveHeuristic(problem, options);
      EXPECT_EQ(heuristic.schedule.steps, heuristicParallel.schedule.steps)
          << "seed " << seed;
      EXPECT_EQ(heuristic.smallestPeakBytes,
                heuristicParallel.smallestPeakBytes);
      EXPECT_EQ(sequential.solver, parallel.solver) << "seed " << seed;
      EXPECT_EQ(sequential.schedule.steps, parallel.schedule.steps)
          << "seed " << seed;
      EXPECT_EQ(sequential.smallestPeakBytes, parallel.smallestPeakBytes);
      EXPECT_EQ(bool(sequential.packingAlternative),
                bool(parallel.packingAlternative));
      if (sequential.packingAlternative && parallel.packingAlternative) {
        EXPECT_EQ(sequential.packingAlternative->schedule.steps,
                  parallel.packingAlternative->schedule.steps);
      }
    }
  }
}

TEST(Solvers, SolverSpecsParseOnce) {
  std::string error;
  EXPECT_FALSE(SolverSpec::parse("greedy", error));
  EXPECT_NE(error.find("unknown solver 'greedy'"), std::string::npos);
  EXPECT_FALSE(SolverSpec::parse("segments=0", error));
  EXPECT_NE(error.find("positive whole number"), std::string::npos);
  EXPECT_FALSE(SolverSpec::parse("segments=x", error));
  EXPECT_FALSE(SolverSpec::parse("", error));
  for (const char *name : {"none", "segments=3", "sqrt", "marks",
                           "block-checkpoints", "chain", "blocks", "heuristic",
                           "auto"}) {
    std::optional<SolverSpec> spec = SolverSpec::parse(name, error);
    ASSERT_TRUE(spec) << name << ": " << error;
    EXPECT_EQ(spec->str(), name);
  }
  EXPECT_EQ(SolverSpec::parse("segments=3", error)->getSegments(), 3);
  EXPECT_EQ(SolverSpec::parse("exact", error).has_value(),
            isExactSolverAvailable());
}

TEST(Solvers, ByteTotalsBeyondInt64AreAnError) {
  constexpr int64_t kHuge = 6'200'000'000'000'000'000;
  RematProblem problem;
  problem.addNode("a", 1.0, {kHuge});
  problem.addNode("b", 1.0, {kHuge}, {0});
  problem.addNode("c", 1.0, {kHuge}, {1});
  problem.values[2].isOutput = true;
  SolverOptions options;
  options.budgetBytes = 7'000'000'000'000'000'000;
  SolverResult result =
      solve(problem, SolverSpec(SolverKind::Heuristic), options);
  EXPECT_FALSE(result.hasSchedule());
  EXPECT_EQ(result.status, SolveStatus::NotApplicable);
  EXPECT_EQ(result.message, "the step's bytes (arguments, every value and "
                            "workspace) exceed the int64 range at 'b'");
}

TEST(Solvers, HugeTimeLimitsAreNoLimit) {
  // 1e10 s overflows the clock's nanoseconds; it and infinity mean no limit.
  RematProblem problem = generateTrainingGraph({});
  int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
  int64_t floor = problem.getPeakLowerBound();
  SolverOptions options;
  options.budgetBytes = floor + (peak - floor) / 2;
  SolverResult unlimited = solveHeuristic(problem, options);
  ASSERT_TRUE(unlimited.hasSchedule());
  for (double limit : {1e10, 1e300, std::numeric_limits<double>::infinity()}) {
    options.timeLimitSeconds = limit;
    SolverResult result = solveHeuristic(problem, options);
    EXPECT_FALSE(result.timedOut) << limit;
    EXPECT_EQ(result.status, unlimited.status) << limit;
    EXPECT_EQ(result.schedule.steps, unlimited.schedule.steps) << limit;
  }
}

} // namespace

TEST(Solvers, FixedSchedulesGiveTheSameResultAtEveryTarget) {
  // Solving one problem at several targets with the budget-independent
  // schedules kept gives what solving afresh gives, and builds each of them
  // once.
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    TrainingGraphOptions graph;
    graph.layers = 6 + seed % 11;
    graph.seed = seed;
    graph.residualEvery = seed % 3 == 0 ? 0 : 2 + seed % 3;
    RematProblem problem = generateTrainingGraph(graph);
    int64_t floor = problem.getPeakLowerBound();
    int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
    SolverOptions kept;
    kept.autoLpBound = false;
    kept.fitArena = seed % 2 == 0;
    kept.fixedSchedules = std::make_shared<FixedSchedules>(problem);
    for (int64_t budget :
         {peak, floor + (peak - floor) / 2, floor + (peak - floor) / 4, floor,
          floor - 1}) {
      SolverOptions fresh;
      fresh.autoLpBound = false;
      fresh.fitArena = kept.fitArena;
      fresh.budgetBytes = kept.budgetBytes = budget;
      SolverResult expected = solveAuto(problem, fresh);
      SolverResult result = solveAuto(problem, kept);
      EXPECT_EQ(result.solver, expected.solver) << "seed " << seed;
      EXPECT_EQ(result.status, expected.status) << "seed " << seed;
      EXPECT_EQ(result.schedule.steps, expected.schedule.steps)
          << "seed " << seed;
      EXPECT_EQ(result.smallestPeakBytes, expected.smallestPeakBytes)
          << "seed " << seed;
      // The kept schedule chosen is simulated in full, not briefly.
      EXPECT_FALSE(result.briefSimulation) << "seed " << seed;
      EXPECT_EQ(result.simulation.liveBytes, expected.simulation.liveBytes)
          << "seed " << seed;
      ASSERT_EQ(bool(result.packingAlternative),
                bool(expected.packingAlternative))
          << "seed " << seed;
      if (result.packingAlternative) {
        EXPECT_FALSE(result.packingAlternative->briefSimulation);
        EXPECT_EQ(result.packingAlternative->schedule.steps,
                  expected.packingAlternative->schedule.steps)
            << "seed " << seed;
        EXPECT_EQ(result.packingAlternative->simulation.liveBytes,
                  expected.packingAlternative->simulation.liveBytes)
            << "seed " << seed;
      }
    }
    int builds = 0;
    auto solveOnce = [&] {
      ++builds;
      return solveSqrt(problem, kept);
    };
    kept.fixedSchedules->get(problem, "sqrt", kept, solveOnce);
    EXPECT_EQ(builds, 0) << "sqrt was kept from the first solve";
    RematProblem other = problem;
    kept.fixedSchedules->get(other, "sqrt", kept, solveOnce);
    EXPECT_EQ(builds, 1) << "another problem is solved, not looked up";
  }
}
