//===- PeakMemory.h - bytes live at every op of a step -----------*- C++ -*-===//
//
// The peak-memory analysis: the memory model (docs/design.md) applied to the body of
// a function. Arguments are live throughout; values the function returns
// from their definition to the end; every other value from its definition
// to its last use; while an op runs, its operands, results and workspace
// are live. State updated in place is written into its argument's buffer and
// a view shares its source's bytes (ValueStorage). Reports live bytes at
// every op, the peak, where it occurs and what it is made of.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_PEAKMEMORY_H
#define REMAT_ANALYSIS_PEAKMEMORY_H

#include "remat/Analysis/ValueStorage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Remat/MemoryModel.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::remat {

/// One non-argument value of the step and the steps during which its bytes
/// are live. A value without bytes of its own in the arena (updated state,
/// a view) has a lifetime of 0 bytes; the lifetime of a value that owns
/// bytes covers the uses of its views.
struct ValueLifetime {
  Value value;
  Lifetime lifetime;
  /// Returned by the function (live to the end), itself or through a view.
  bool isFunctionResult = false;
  StorageKind storage = StorageKind::Arena;
  /// The index (in getValues()) of the value whose arena bytes this one
  /// shares: itself for an arena value, its owner for a view of one, -1 for
  /// values in an argument's buffer.
  int64_t ownerIndex = -1;
};

/// What the bytes live at one step are.
struct MemoryBreakdown {
  int64_t arguments = 0;
  int64_t results = 0;
  int64_t activations = 0;
  int64_t workspace = 0;

  int64_t total() const { return arguments + results + activations + workspace; }
};

class PeakMemory {
public:
  /// Analyzes the single-block body of `function`. Emits an error with a
  /// location and fails on a value without a static size (dynamic shapes,
  /// unranked tensors, element types without a size), an op without cost
  /// information, or a body of several blocks.
  static FailureOr<PeakMemory> analyze(FunctionOpInterface function);

  /// The ops of the body in order (the schedule), terminator excluded.
  ArrayRef<Operation *> getSchedule() const { return schedule; }
  int64_t getArgumentBytes() const { return argumentBytes; }
  /// Bytes of the arguments whose buffers receive their new value (state
  /// updated in place); part of getArgumentBytes().
  int64_t getUpdatedArgumentBytes() const { return updatedArgumentBytes; }
  /// Every value an op of the schedule defines, in definition order.
  ArrayRef<ValueLifetime> getValues() const { return values; }
  /// Workspace bytes of each step.
  ArrayRef<int64_t> getWorkspaceBytes() const { return workspaceBytes; }
  /// Live bytes at each step (arguments, live values and workspace).
  ArrayRef<int64_t> getLiveBytes() const { return profile.liveBytes; }
  int64_t getPeakBytes() const { return profile.peakBytes; }
  /// The first step at which the peak is reached; -1 for an empty body.
  int64_t getPeakStep() const { return profile.peakStep; }
  Operation *getPeakOp() const;
  /// The composition of the live bytes at `step`.
  MemoryBreakdown getBreakdown(int64_t step) const;

  void print(raw_ostream &os) const;

private:
  /// The steps of analyze(): the arguments' bytes, the ops in order, each
  /// value's lifetime, and the bytes live at each step.
  LogicalResult measureArguments(Block &block, const ValueStorage &storage);
  LogicalResult collectSteps(Block &block,
                             llvm::DenseMap<Operation *, int64_t> &stepOf);
  LogicalResult
  measureValues(Block &block, const ValueStorage &storage,
                const llvm::DenseMap<Operation *, int64_t> &stepOf);
  LogicalResult computeProfile();

  FunctionOpInterface function;
  std::vector<Operation *> schedule;
  int64_t argumentBytes = 0;
  int64_t updatedArgumentBytes = 0;
  std::vector<ValueLifetime> values;
  std::vector<int64_t> workspaceBytes;
  LiveProfile profile;
};

/// Returns the bytes of `value`'s type, or emits an error at `loc` and fails
/// when the type has no static size.
FailureOr<int64_t> getValueBytes(Value value, Location loc);

} // namespace mlir::remat

#endif // REMAT_ANALYSIS_PEAKMEMORY_H
