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
// abandoned.
//
// The victim is the evictable resident value with the lowest score (ties:
// the lowest id), found in a min-heap with lazy invalidation rather than by
// scanning the resident values: a value's entry is refreshed (re-scored and
// pushed again, before the next victim is chosen) on every event that may lower its score or make it
// evictable again - it becomes resident, its next read moves (the build
// passes a read, or a recomputation starts or stops holding it), an operand
// of its producer becomes resident or has its next read moved, a view of it
// leaves, or it is unpinned. Between such events a score only grows, as the
// build moves towards the next read, so an entry's key never exceeds its
// value's score: the top entry is re-scored when popped, taken when its score
// is unchanged, pushed back with the new score otherwise, and dropped when
// the value cannot be evicted now. A build is then O((N + E) log N) for N
// nodes and E reads, plus, per read passed, the results of the nodes reading
// that value.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REMAT_SCHEDULEBUILDER_H
#define REMAT_LIB_REMAT_SCHEDULEBUILDER_H

#include "remat/Remat/Problem.h"

#include "llvm/ADT/ArrayRef.h"

#include <chrono>
#include <memory>
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

/// A list per value, flat (one allocation for all): value v's list is
/// items[begin[v], begin[v + 1]).
template <typename T> struct ListPerValue {
  std::vector<int64_t> begin;
  std::vector<T> items;
  llvm::ArrayRef<T> operator[](ValueId value) const {
    return llvm::ArrayRef<T>(items).slice(begin[value],
                                          begin[value + 1] - begin[value]);
  }
};

/// What every build of one problem needs to know of it, whatever the
/// discards, budget and score: made once and shared by the builds of a
/// solver that runs many (the heuristic's eight, the block solver's).
struct ScheduleIndex {
  explicit ScheduleIndex(const RematProblem &problem);

  /// Starting positions of the nodes reading each value, ascending.
  ListPerValue<int64_t> reads;
  /// The views of each value that owns bytes.
  ListPerValue<ValueId> viewsOf;
  /// Whether a value can be recomputed from the arguments at some point.
  std::vector<bool> recoverable;
  /// The last starting position at which a value may be recomputed: its
  /// producer, or any producer its recomputation may need, reads state that
  /// is updated there.
  std::vector<int64_t> recoverableUntil;
};

class ScheduleBuilder {
public:
  explicit ScheduleBuilder(const RematProblem &problem);
  /// A builder that shares `index` (made for `problem`) with others.
  ScheduleBuilder(const RematProblem &problem,
                  std::shared_ptr<const ScheduleIndex> index);

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

  /// For tests: also finds every victim by scoring all resident values and
  /// counts the evictions where the heap chose a different one.
  void setCheckVictims(bool check) { checkVictims = check; }
  int64_t getVictimMismatches() const { return victimMismatches; }

private:
  void processNode(NodeId node);
  void ensureResident(ValueId value);
  void emit(NodeId node, bool recompute);
  void makeRoomFor(NodeId node);
  std::optional<ValueId> pickVictim();
  /// The lowest-scoring evictable resident value by scanning them all (the
  /// heap's answer, for setCheckVictims).
  std::optional<ValueId> scanForVictim();
  /// Marks `value` to be re-scored before the next victim is chosen.
  void touch(ValueId value);
  /// Re-scores the touched values and pushes an entry for each that may be
  /// evicted now.
  void refreshTouched();
  /// `value`'s next read moved: it, its owner (for a view) and the results
  /// of the nodes reading it may score lower or be evictable again.
  void nextReadMoved(ValueId value);
  /// Touches the results of the nodes that read `value` and have run.
  void touchConsumers(ValueId value);
  /// Static part of getEvictionScore: views, values without bytes, outputs, kept and
  /// unrecoverable values never leave under the budget.
  bool isEvictionCandidate(ValueId value) const;
  /// The score of `value` (lowest goes first), or std::nullopt when it may
  /// not be evicted now.
  std::optional<double> getEvictionScore(ValueId value);
  /// Bytes evicting `value` (next read at `next`) frees, net of the operands
  /// it keeps alive.
  int64_t getFreedBytes(ValueId value, std::optional<int64_t> next);
  void evict(ValueId value);
  std::optional<int64_t> nextRead(ValueId value);
  void setResident(ValueId value, bool resident);
  void releaseAfter(NodeId node);
  void computeCheckpointHolds();
  /// Whether `value` may leave now and be recomputed at its next read.
  bool mayRecomputeAtNextRead(ValueId value);
  /// The same for a recoverable value whose next read is `next`.
  bool mayRecomputeAt(ValueId value, std::optional<int64_t> next);
  void pin(NodeId node, int delta);
  bool overLimits();

  /// A heap entry: valid while `stamp` is its value's latest.
  struct Candidate {
    double score;
    ValueId value;
    uint32_t stamp;
  };
  /// Heap order: the lowest score, then the lowest id, on top.
  struct Later {
    bool operator()(const Candidate &a, const Candidate &b) const {
      return a.score > b.score || (a.score == b.score && a.value > b.value);
    }
  };

  const RematProblem &problem;
  std::shared_ptr<const ScheduleIndex> index;
  const ListPerValue<int64_t> &reads;
  const ListPerValue<ValueId> &viewsOf;
  const std::vector<bool> &recoverable;
  const std::vector<int64_t> &recoverableUntil;
  std::vector<size_t> readCursor;
  /// Positions where an evicted value will be recomputed from this one: it
  /// must stay until then (a min-heap per value).
  std::vector<std::vector<int64_t>> heldFor;
  std::vector<bool> discarded;
  /// Per value of a `keep` node: the last node before which a recomputation
  /// may still read it (-1: none); per node, the checkpoints whose hold
  /// ends there.
  std::vector<int64_t> checkpointHold;
  std::vector<std::vector<ValueId>> releaseAt;
  std::vector<bool> resident;
  std::vector<int32_t> pins;
  std::vector<bool> firstDone;
  /// Resident values, with each one's index in this list.
  std::vector<ValueId> residentList;
  std::vector<int64_t> residentIndex;
  /// Eviction candidates (a min-heap by Later) and each value's latest stamp.
  std::vector<Candidate> candidates;
  std::vector<uint32_t> stamps;
  /// Values touched since the last refresh (each once).
  std::vector<bool> touched;
  std::vector<ValueId> touchedList;
  /// Per position p: values one of whose heldFor entries is p, whose next
  /// read moves when the build passes p.
  std::vector<std::vector<ValueId>> heldUntil;
  bool checkVictims = false;
  int64_t victimMismatches = 0;
  int64_t limitChecks = 0;
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
