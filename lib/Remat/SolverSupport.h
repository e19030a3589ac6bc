//===- SolverSupport.h - pieces shared by the solvers -----------*- C++ -*-===//
//
// Internal to lib/Remat: measuring a schedule into a result, the forward
// part of a step and its cut vertices, and schedules that drop given values
// and recompute them on demand (the checkpoint-style solvers' space).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REMAT_SOLVERSUPPORT_H
#define REMAT_LIB_REMAT_SOLVERSUPPORT_H

#include "remat/Remat/Solvers.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

/// Measures `schedule` and sets the status against the budget.
SolverResult finish(const RematProblem &problem, std::string solver,
                    Schedule schedule, const SolverOptions &options,
                    std::string message = "");

SolverResult notApplicable(std::string solver, std::string why);

/// Whether `result` meets its target (feasible or optimal).
bool meetsTarget(const SolverResult &result);

/// Whether `a` is a better result than `b`, the one rule every solver and
/// `auto` choose by: a schedule before none, within the budget before not,
/// then cheaper, then a smaller peak (false on a tie: the first stays).
bool isBetterResult(const SolverResult &a, const SolverResult &b);

/// `seconds` after `start`, or no deadline for a limit that is not positive
/// or too far away for the clock (its nanoseconds would overflow: beyond a
/// few centuries, i.e. no limit in practice). Every solver's time limit.
std::optional<std::chrono::steady_clock::time_point>
getDeadline(std::chrono::steady_clock::time_point start, double seconds);

/// Arguments plus the arena a valid simulation's buffers pack into, as the
/// memory planner packs them (saturated at INT64_MAX).
int64_t getPackedBytes(const RematProblem &problem,
                       const Simulation &simulation);

/// The packed bytes of `result`'s schedule (getPackedBytes), measured once
/// and kept in the result; completes a brief simulation first.
int64_t getPackedBytes(const RematProblem &problem, SolverResult &result);

/// Simulates in full a result whose simulation is brief (kept from an
/// earlier solve); leaves any other as it is.
void completeSimulation(const RematProblem &problem, SolverResult &result);

/// The largest live bytes of `simulation` over steps [begin, end), clamped
/// to its steps (0 over none). The checkpoint solvers' windows tile the
/// schedule, so scanning each is linear in all.
int64_t getMaxLiveBytes(const Simulation &simulation, int64_t begin,
                        int64_t end);

/// The values the marks say to drop: results of `recompute` nodes.
std::vector<bool> getMarkedDiscards(const RematProblem &problem);

struct ScheduleIndex;

/// The schedule index of `problem` that `options.fixedSchedules` keeps,
/// else a new one.
std::shared_ptr<const ScheduleIndex>
getScheduleIndex(const RematProblem &problem, const SolverOptions &options);

/// The schedule that drops `discarded` values after their last use in
/// their phase and recomputes them where read; `index`, where given, is
/// the problem's, shared with other builds.
Schedule buildWithDiscards(const RematProblem &problem,
                           const std::vector<bool> &discarded,
                           std::shared_ptr<const ScheduleIndex> index = {});

/// The forward nodes (remat.phase), in order.
std::vector<NodeId> getForwardNodes(const RematProblem &problem);

/// Forward nodes after which no forward value defined at or before them is
/// read by a forward node after them: the places a forward chain can be cut.
std::vector<NodeId> getCutVertices(const RematProblem &problem,
                                   const std::vector<NodeId> &forward);

} // namespace mlir::remat

#endif // REMAT_LIB_REMAT_SOLVERSUPPORT_H
