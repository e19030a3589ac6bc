//===- ScheduleBuilder.h - builds schedules that recompute on demand -*- C++ -*-//
//
// The engine behind the solvers. It runs the nodes in their starting order
// and keeps track of which values are resident. A value that is not resident
// when a node reads it is recomputed first, recursively. Values leave
// residency after their last read, when they are in the discard set and
// their phase is over, or when the budget would be exceeded at the next step
// and they are the cheapest to bring back by the chosen score. By default an
// evicted value's operands stay resident until it is read again, so that
// bringing it back takes one step; without that, chains of recomputation are
// allowed, and a build whose recomputation snowballs past a step cap is
// abandoned. Victims are chosen among all resident values, or a deterministic
// sample of 2,048 of them when there are more.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REMAT_SCHEDULEBUILDER_H
#define REMAT_LIB_REMAT_SCHEDULEBUILDER_H

#include "remat/Remat/Problem.h"

#include <chrono>
#include <optional>
#include <vector>

namespace mlir::remat {

/// How budget-driven eviction ranks resident values (lowest goes first).
enum class EvictionScore {
  /// cost / (bytes x distance to the next read): cheap, large, far first.
  CostPerByteDistance,
  /// cost / bytes: ignore when it is needed again.
  CostPerByte,
  /// 1 / (bytes x distance): memory first, ignore cost.
  ByteDistance,
  /// Like the first, counting the cost of recomputing evicted operands too.
  ChainCostPerByteDistance,
};

class ScheduleBuilder {
public:
  explicit ScheduleBuilder(const RematProblem &problem);

  /// Values to drop once the phase that defined them is over.
  void setDiscarded(const std::vector<bool> &discarded);
  /// Evicts values to keep every step within `budgetBytes`.
  void setBudget(int64_t budgetBytes, EvictionScore score);
  /// Whether an evicted value's operands are held until it is brought back
  /// (one-step recomputation; the default), or may be evicted too, so that
  /// bringing a value back can take a chain of recomputations.
  void setHoldOperands(bool hold) { holdOperands = hold; }
  /// Stops evicting (and finishes the schedule) after this many units of
  /// work or at this deadline.
  void setLimits(int64_t workLimit,
                 std::optional<std::chrono::steady_clock::time_point> deadline);

  Schedule build();

  /// Whether some step could not be brought within the budget.
  bool exceededBudget() const { return overBudget; }
  bool ranOutOfWork() const { return outOfWork; }
  bool ranOutOfTime() const { return outOfTime; }
  /// Whether recomputation snowballed past the step cap and the build was
  /// abandoned (the schedule is incomplete).
  bool aborted() const { return abandoned; }

  /// Whether `value` can be recomputed from the arguments at some point
  /// (state updated in place limits when: see recoverableUntil).
  bool isRecoverable(ValueId value) const { return recoverable[value]; }

private:
  void processNode(NodeId node);
  void ensureResident(ValueId value);
  void emit(NodeId node, bool recompute);
  void makeRoomFor(NodeId node);
  std::optional<ValueId> pickVictim();
  double score(ValueId value);
  /// Bytes evicting `value` frees, net of the operands it keeps alive.
  int64_t getFreedBytes(ValueId value);
  void evict(ValueId value);
  std::optional<int64_t> nextRead(ValueId value);
  void setResident(ValueId value, bool resident);
  void releaseAfter(NodeId node);
  bool mayEvict(ValueId value);
  /// Whether `value` may leave now and be recomputed at its next read.
  bool mayRecomputeAtNextRead(ValueId value);
  void pin(NodeId node, int delta);
  bool overLimits();

  const RematProblem &problem;
  /// Starting positions of the nodes reading each value, ascending.
  std::vector<std::vector<int64_t>> reads;
  std::vector<size_t> readCursor;
  /// Positions where an evicted value will be recomputed from this one: it
  /// must stay until then (a min-heap per value).
  std::vector<std::vector<int64_t>> heldFor;
  std::vector<bool> recoverable;
  /// The last starting position at which a value may be recomputed: its
  /// producer, or any producer its recomputation may need, reads state that
  /// is updated there.
  std::vector<int64_t> recoverableUntil;
  /// The views of each value that owns bytes.
  std::vector<std::vector<ValueId>> viewsOf;
  std::vector<bool> discarded;
  std::vector<bool> resident;
  std::vector<int32_t> pins;
  std::vector<bool> firstDone;
  /// Resident values, with each one's index in this list.
  std::vector<ValueId> residentList;
  std::vector<int64_t> residentIndex;
  int64_t residentBytes = 0;
  int64_t position = 0;

  std::optional<int64_t> budget;
  EvictionScore scoreKind = EvictionScore::CostPerByteDistance;
  int64_t workLimit = 0;
  int64_t work = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  bool overBudget = false;
  bool outOfWork = false;
  bool outOfTime = false;
  bool holdOperands = true;
  bool abandoned = false;
  int64_t maxSteps = 0;
  Schedule schedule;
};

} // namespace mlir::remat

#endif // REMAT_LIB_REMAT_SCHEDULEBUILDER_H
