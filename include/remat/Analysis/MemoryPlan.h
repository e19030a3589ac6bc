//===- MemoryPlan.h - static memory plan of a step --------------*- C++ -*-===//
//
// Where every value and workspace of an analyzed step goes in one arena:
// the lifetimes of the peak-memory analysis packed by the offset packer.
// Recording the plan on the IR is the remat-plan-memory pass's job
// (Transforms/PlanMemory.h).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_MEMORYPLAN_H
#define REMAT_ANALYSIS_MEMORYPLAN_H

#include "remat/Analysis/PeakMemory.h"
#include "remat/Remat/OffsetPacker.h"

namespace mlir::remat {
/// Alignment of tensors of real ops in the arena.
inline constexpr int64_t kTensorAlignment = 256;

/// Where every value and workspace of a step goes.
struct MemoryPlan {
  /// One item per value of the analysis that owns arena bytes (in its
  /// order), then one per step with a workspace.
  std::vector<PackItem> items;
  /// The offset of each value of the analysis: its own item's, its owner's
  /// for a view, kNotInArena for a value in an argument's buffer.
  std::vector<int64_t> valueOffsets;
  Packing packing;
  /// The item of each step's workspace, -1 for steps without one.
  std::vector<int64_t> workspaceItems;
  int64_t argumentBytes = 0;
  int64_t peakBytes = 0;

  int64_t getArenaBytes() const { return packing.arenaBytes; }
  /// The offset of value `index` of the analysis (kNotInArena for one in an
  /// argument's buffer).
  int64_t getValueOffset(size_t index) const { return valueOffsets[index]; }
  /// (arguments + arena - peak) / peak: what packing adds to the peak.
  double getFragmentation() const;
};

/// Plans the arena of the analyzed function. Values of imported graph nodes
/// are aligned to 1 byte, all others and workspaces to kTensorAlignment.
/// Emits an error at the op whose value or workspace would end beyond the
/// int64 range, and fails, when the arena (or arguments + arena) cannot be
/// counted in int64.
FailureOr<MemoryPlan> planMemory(const PeakMemory &analysis);

} // namespace mlir::remat

#endif // REMAT_ANALYSIS_MEMORYPLAN_H
