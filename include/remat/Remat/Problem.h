//===- Problem.h - the rematerialization problem, IR-free --------*- C++ -*-===//
//
// A training step as the solvers see it: nodes (ops) in their starting order
// with a compute cost, the values they define with their bytes, what they
// read, and what the solver may do with them. A schedule is the sequence of
// nodes to run, a node appearing again where it is recomputed; simulate()
// checks a schedule and measures it with the project's one memory model.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REMAT_PROBLEM_H
#define REMAT_REMAT_PROBLEM_H

#include "remat/Remat/MemoryModel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

using NodeId = int32_t;
using ValueId = int32_t;

/// The part of the step a node belongs to (`remat.phase`).
enum class NodePhase { Unknown, Forward, Backward, Update };

/// The user's mark on a node (`remat.policy`).
enum class NodePolicy { None, Keep, Recompute };

struct RematNode {
  std::string name;
  double cost = 0.0;
  int64_t workspaceBytes = 0;
  /// Values the node reads, in operand order (repeats allowed).
  std::vector<ValueId> operands;
  /// Values the node defines, in result order.
  std::vector<ValueId> results;
  /// False for nodes that must run exactly once.
  bool recomputable = true;
  NodePhase phase = NodePhase::Unknown;
  NodePolicy policy = NodePolicy::None;
  /// State (arguments updated in place) whose old value the node reads.
  std::vector<int32_t> stateReads;
  /// State the node writes the new value of. Such a node runs once, after
  /// every read of the old value (recomputations included).
  std::vector<int32_t> stateWrites;
};

struct RematValue {
  NodeId producer = 0;
  int64_t bytes = 0;
  /// Offset alignment in the arena.
  int64_t alignment = 1;
  /// Returned by the step: live from its first computation to the end.
  bool isOutput = false;
  /// For a view: the value whose bytes it shares (its `bytes` are 0, and
  /// every node reading the view lists that value among its operands too, so
  /// that the shared bytes live until the view's last read). -1 otherwise.
  ValueId viewOf = -1;
};

struct RematProblem {
  /// Bytes of the step's arguments, live throughout.
  int64_t argumentBytes = 0;
  /// In the starting order, which is topological.
  std::vector<RematNode> nodes;
  std::vector<RematValue> values;
  /// Names of the state (arguments updated in place), indexed by the ids in
  /// RematNode::stateReads and stateWrites.
  std::vector<std::string> stateNames;

  /// Adds a node defining `resultBytes.size()` values and returns its id.
  NodeId addNode(std::string name, double cost,
                 const std::vector<int64_t> &resultBytes,
                 std::vector<ValueId> operands = {});

  /// Returns an empty string when ids are in range, the starting order is
  /// topological, each state is written once by a node that may not be
  /// recomputed and after every read of its old value, and views are well
  /// formed; else what is wrong.
  std::string verify() const;

  /// For each node, the last position in the starting order at which it may
  /// run: the earliest writer of any state it reads (a node may run at its
  /// writer's position, just before the writer), or INT64_MAX.
  std::vector<int64_t> getStateDeadlines() const;

  /// Returns the first node at which the running total of the step's bytes
  /// (arguments, then each node's results, padded to their alignment, and
  /// workspace) leaves the int64 range, or std::nullopt when it never does.
  /// The solvers sum subsets of these bytes; a problem whose total fits can
  /// be solved without any byte sum overflowing.
  std::optional<NodeId> findByteOverflow() const;

  /// Sum of the node costs: the cost of the starting order.
  double getTotalCost() const;

  /// No schedule peaks lower: arguments plus the largest working set of one
  /// node (its distinct operands, results and workspace); saturated at
  /// INT64_MAX.
  int64_t getPeakLowerBound() const;
};

/// Nodes in execution order. An operand reads the most recent instance of
/// its producer; the step returns the first instance of each output.
struct Schedule {
  std::vector<NodeId> steps;
};

/// The starting order, nothing recomputed.
Schedule getStartingSchedule(const RematProblem &problem);

/// What simulate() measured.
struct Simulation {
  bool valid = false;
  /// Why the schedule is invalid.
  std::string error;
  /// The step whose live bytes exceed the int64 range (the schedule is then
  /// invalid and `error` says so), -1 when none.
  int64_t overflowStep = -1;
  int64_t peakBytes = 0;
  int64_t peakStep = -1;
  double cost = 0.0;
  std::vector<int64_t> liveBytes;
  /// Every buffer: each instance's results, then each step's workspace, with
  /// their alignment, ready for the offset packer.
  std::vector<Lifetime> buffers;
  std::vector<int64_t> alignments;
  /// How many times each node runs.
  std::vector<int32_t> runs;
};

/// Checks that every operand is computed before it is read, that every node
/// runs and non-recomputable nodes run once, that no node reads state after
/// its update, that a view is read only while the instance of the value it
/// was made from is the latest one, and measures the schedule by the memory
/// model (as the rewritten IR will be measured). A schedule whose live
/// bytes leave the int64 range at some step is invalid, with that step in
/// `overflowStep`.
Simulation simulate(const RematProblem &problem, const Schedule &schedule);

} // namespace mlir::remat

#endif // REMAT_REMAT_PROBLEM_H
