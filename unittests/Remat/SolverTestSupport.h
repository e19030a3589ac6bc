//===- SolverTestSupport.h - what the solver tests share --------*- C++ -*-===//
//
// Random problems and the check every solver's result must pass.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_REMAT_SOLVERTESTSUPPORT_H
#define REMAT_UNITTESTS_REMAT_SOLVERTESTSUPPORT_H

#include "remat/Remat/Problem.h"
#include "remat/Remat/Solvers.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>

namespace mlir::remat::test {

/// Whether the solver says its schedule meets the budget.
bool claimsFit(const SolverResult &result);

/// Checks one solver's result (gtest assertions, fatal, naming `what`):
/// valid by simulate(), within `budget` exactly when it claims to fit, and
/// never below the problem's floor.
void checkResult(const RematProblem &problem, const SolverResult &result,
                 int64_t budget, const std::string &what);

/// The budget `fraction` of the way from the problem's floor (its peak lower
/// bound) to the peak of its starting schedule.
int64_t getBudgetBetween(const RematProblem &problem, double fraction);

/// Runs the solver `name` (a SolverSpec spelling) at `options` and checks
/// its result (checkResult, naming `what`); std::nullopt where the solver
/// does not apply. A fatal failure is the caller's to test
/// (HasFatalFailure).
std::optional<SolverResult> solveAndCheck(const RematProblem &problem,
                                          const std::string &name,
                                          const SolverOptions &options,
                                          const std::string &what);

/// A random DAG without phases: each node reads one to three earlier nodes'
/// results; the last node's result is the output.
RematProblem makeRandomDag(std::mt19937_64 &rng, int nodes);

} // namespace mlir::remat::test

#endif // REMAT_UNITTESTS_REMAT_SOLVERTESTSUPPORT_H
