//===- ValueStorage.h - where the bytes of each value are -------*- C++ -*-===//
//
// The memory model (docs/design.md) says which values share bytes: a function result
// marked `remat.updates = "<argument name>"` is written into that argument's
// buffer (state updated in place), and the result of a view op
// (ViewLikeOpInterface: nn.reshape, nn.flatten) shares its source's bytes.
// Every other op result has bytes of its own in the arena. This analysis
// answers, for any value of a function body, where its bytes are; the
// peak-memory analysis, the problem builder, the planner and both executors
// ask it rather than deciding themselves.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_VALUESTORAGE_H
#define REMAT_ANALYSIS_VALUESTORAGE_H

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::remat {

enum class StorageKind {
  /// A function argument: the caller's buffer, live all step.
  Argument,
  /// The new value of an argument: written into that argument's buffer.
  UpdatedState,
  /// A view: the bytes of its source (followed to the value that owns them).
  View,
  /// Bytes of its own in the arena.
  Arena,
};

/// Whether `op` is a view: its single result reinterprets its source's
/// contiguous buffer.
bool isViewOp(Operation *op);

/// The `remat.updates` facts of a function, read once. Malformed marks (an
/// unknown argument name, a second update of one argument) are the remat
/// dialect verifier's to report; this class ignores them.
class ValueStorage {
public:
  explicit ValueStorage(FunctionOpInterface function);

  StorageKind getKind(Value value) const;
  /// The value whose buffer holds `value`: a block argument (for arguments,
  /// updated state and views of either) or an op result with arena bytes.
  Value getOwner(Value value) const;
  /// Whether `value`'s bytes are in the arena (its owner is an op result).
  bool isInArena(Value value) const { return !isa<BlockArgument>(getOwner(value)); }
  /// The argument `value` is the new value of, or null.
  BlockArgument getUpdatedArgument(Value value) const {
    return updatedArgument.lookup(value);
  }
  /// The value that updates `argument`, or null.
  Value getUpdate(BlockArgument argument) const { return updateOf.lookup(argument); }
  bool hasUpdates() const { return !updateOf.empty(); }

private:
  llvm::DenseMap<Value, BlockArgument> updatedArgument;
  llvm::DenseMap<Value, Value> updateOf;
};

} // namespace mlir::remat

#endif // REMAT_ANALYSIS_VALUESTORAGE_H
