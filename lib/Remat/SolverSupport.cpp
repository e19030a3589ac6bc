//===- SolverSupport.cpp - pieces shared by the solvers -------------------===//

#include "SolverSupport.h"

#include "ScheduleBuilder.h"

#include "remat/Remat/OffsetPacker.h"

#include <algorithm>
#include <limits>

using namespace mlir::remat;
using Clock = std::chrono::steady_clock;

bool mlir::remat::meetsTarget(const SolverResult &result) {
  return result.status == SolveStatus::Feasible ||
         result.status == SolveStatus::Optimal;
}

bool mlir::remat::isBetterResult(const SolverResult &a, const SolverResult &b) {
  if (!a.hasSchedule())
    return false;
  if (!b.hasSchedule())
    return true;
  if (meetsTarget(a) != meetsTarget(b))
    return meetsTarget(a);
  if (meetsTarget(a) && a.simulation.cost != b.simulation.cost)
    return a.simulation.cost < b.simulation.cost;
  return a.simulation.peakBytes < b.simulation.peakBytes;
}

std::optional<Clock::time_point>
mlir::remat::getDeadline(Clock::time_point start, double seconds) {
  constexpr double kNoLimitSeconds = 1e9; // about 31 years
  if (!(seconds > 0) || !(seconds < kNoLimitSeconds))
    return std::nullopt;
  return start + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(seconds));
}

/// Measures `schedule` and sets the status against the budget.
SolverResult mlir::remat::finish(const RematProblem &problem,
                                 std::string solver, Schedule schedule,
                                 const SolverOptions &options,
                                 std::string message) {
  SolverResult result;
  result.solver = std::move(solver);
  result.simulation = simulate(problem, schedule);
  result.schedule = std::move(schedule);
  if (!result.simulation.valid) {
    result.status = SolveStatus::NotApplicable;
    result.message = result.simulation.overflowStep >= 0
                         ? result.simulation.error
                         : "internal error: " + result.simulation.error;
    return result;
  }
  result.status = result.simulation.peakBytes <= options.budgetBytes
                      ? SolveStatus::Feasible
                      : SolveStatus::Infeasible;
  result.smallestPeakBytes = result.simulation.peakBytes;
  result.message = std::move(message);
  return result;
}

SolverResult mlir::remat::notApplicable(std::string solver, std::string why) {
  SolverResult result;
  result.solver = std::move(solver);
  result.status = SolveStatus::NotApplicable;
  result.message = std::move(why);
  return result;
}

int64_t mlir::remat::getPackedBytes(const RematProblem &problem,
                                    const Simulation &simulation) {
  std::vector<PackItem> items;
  items.reserve(simulation.buffers.size());
  for (size_t i = 0; i < simulation.buffers.size(); ++i)
    items.push_back({simulation.buffers[i], simulation.alignments[i]});
  Packing packing = packOffsets(items);
  if (packing.overflows())
    return std::numeric_limits<int64_t>::max();
  return addBytesSaturated(problem.argumentBytes, packing.arenaBytes);
}

int64_t mlir::remat::getPackedBytes(const RematProblem &problem,
                                    SolverResult &result) {
  if (!result.packedBytes) {
    completeSimulation(problem, result);
    result.packedBytes = getPackedBytes(problem, result.simulation);
  }
  return *result.packedBytes;
}

void mlir::remat::completeSimulation(const RematProblem &problem,
                                     SolverResult &result) {
  if (!result.briefSimulation)
    return;
  // The same schedule as when it was kept: the same validity, peak and cost.
  result.simulation = simulate(problem, result.schedule);
  result.briefSimulation = false;
}

/// The values the marks say to drop: results of `recompute` nodes.
std::vector<bool> mlir::remat::getMarkedDiscards(const RematProblem &problem) {
  std::vector<bool> discarded(problem.values.size(), false);
  for (const RematNode &node : problem.nodes)
    if (node.policy == NodePolicy::Recompute)
      for (ValueId result : node.results)
        discarded[result] = true;
  return discarded;
}

int64_t mlir::remat::getMaxLiveBytes(const Simulation &simulation,
                                     int64_t begin, int64_t end) {
  int64_t most = 0;
  int64_t stop = std::min<int64_t>(end, int64_t(simulation.liveBytes.size()));
  for (int64_t p = std::max<int64_t>(begin, 0); p < stop; ++p)
    most = std::max(most, simulation.liveBytes[p]);
  return most;
}

std::shared_ptr<const ScheduleIndex>
mlir::remat::getScheduleIndex(const RematProblem &problem,
                              const SolverOptions &options) {
  if (options.fixedSchedules)
    return options.fixedSchedules->getIndex(problem);
  return std::make_shared<const ScheduleIndex>(problem);
}

/// Builds the schedule that drops `discarded` values after their phase.
Schedule
mlir::remat::buildWithDiscards(const RematProblem &problem,
                               const std::vector<bool> &discarded,
                               std::shared_ptr<const ScheduleIndex> index) {
  if (!index)
    index = std::make_shared<const ScheduleIndex>(problem);
  ScheduleBuilder builder(problem, std::move(index));
  builder.setDiscarded(discarded);
  return builder.build();
}

/// Positions (node ids) of the forward nodes, in order.
std::vector<NodeId> mlir::remat::getForwardNodes(const RematProblem &problem) {
  std::vector<NodeId> forward;
  for (size_t id = 0; id < problem.nodes.size(); ++id)
    if (problem.nodes[id].phase == NodePhase::Forward)
      forward.push_back(id);
  return forward;
}

/// Forward nodes after which no forward value defined at or before them is
/// read by a forward node after them: the places a forward chain can be cut.
std::vector<NodeId> mlir::remat::getCutVertices(const RematProblem &problem,
                                   const std::vector<NodeId> &forward) {
  std::vector<int64_t> lastForwardRead(problem.values.size(), -1);
  for (NodeId id : forward)
    for (ValueId operand : problem.nodes[id].operands)
      lastForwardRead[operand] = id;
  std::vector<NodeId> cuts;
  int64_t reach = -1;
  for (size_t i = 0; i < forward.size(); ++i) {
    NodeId id = forward[i];
    // Values of this node may be read later: only they cross the cut.
    bool crossing = reach > id;
    for (ValueId result : problem.nodes[id].results)
      reach = std::max(reach, lastForwardRead[result]);
    if (!crossing && i + 1 < forward.size())
      cuts.push_back(id);
  }
  return cuts;
}

