//===- SolverTestSupport.cpp - what the solver tests share ----------------===//

#include "SolverTestSupport.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

bool test::claimsFit(const SolverResult &result) {
  return result.status == SolveStatus::Feasible ||
         result.status == SolveStatus::Optimal;
}

void test::checkResult(const RematProblem &problem,
                          const SolverResult &result, int64_t budget,
                          const std::string &what) {
  ASSERT_TRUE(result.simulation.valid)
      << what << ": " << result.simulation.error << result.message;
  if (claimsFit(result))
    ASSERT_LE(result.simulation.peakBytes, budget) << what;
  else
    ASSERT_GT(result.simulation.peakBytes, budget) << what;
  ASSERT_GE(result.simulation.peakBytes, problem.getPeakLowerBound()) << what;
}

int64_t test::getBudgetBetween(const RematProblem &problem, double fraction) {
  int64_t peak = simulate(problem, getStartingSchedule(problem)).peakBytes;
  int64_t floor = problem.getPeakLowerBound();
  return floor + int64_t(fraction * double(peak - floor));
}

std::optional<SolverResult> test::solveAndCheck(const RematProblem &problem,
                                                const std::string &name,
                                                const SolverOptions &options,
                                                const std::string &what) {
  std::string error;
  std::optional<SolverSpec> spec = SolverSpec::parse(name, error);
  EXPECT_TRUE(spec) << error;
  if (!spec)
    return std::nullopt;
  SolverResult result = solve(problem, *spec, options);
  if (result.status == SolveStatus::NotApplicable)
    return std::nullopt;
  checkResult(problem, result, options.budgetBytes, what);
  return result;
}

RematProblem test::makeRandomDag(std::mt19937_64 &rng, int nodes) {
  RematProblem problem;
  std::uniform_int_distribution<int64_t> bytes(1, 1000), cost(0, 20);
  problem.argumentBytes = bytes(rng);
  for (int i = 0; i < nodes; ++i) {
    std::vector<ValueId> operands;
    if (i > 0) {
      std::uniform_int_distribution<int> pick(0, i - 1), count(1, 3);
      for (int k = count(rng); k > 0; --k)
        operands.push_back(problem.nodes[pick(rng)].results.front());
    }
    problem.addNode("n" + std::to_string(i), double(cost(rng)), {bytes(rng)},
                    operands);
  }
  problem.values.back().isOutput = true;
  return problem;
}
