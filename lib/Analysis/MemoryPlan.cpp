//===- MemoryPlan.cpp - static memory plan of a step ----------------------===//
//
// Turns the lifetimes of the peak-memory analysis into packer items, packs
// them and checks the packing.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryPlan.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::remat;

double MemoryPlan::getFragmentation() const {
  if (peakBytes == 0)
    return 0.0;
  return (static_cast<double>(argumentBytes) +
          static_cast<double>(getArenaBytes()) -
          static_cast<double>(peakBytes)) /
         static_cast<double>(peakBytes);
}

/// Abstract graph values are byte counts, not tensors a kernel reads.
static int64_t getAlignment(Value value) {
  return isa_and_nonnull<GraphNodeOp>(value.getDefiningOp())
             ? 1
             : kTensorAlignment;
}

/// The op behind packer item `item` of `plan`: the definer of a value, or the
/// op of a workspace.
static Operation *getItemOp(const PeakMemory &analysis, const MemoryPlan &plan,
                            size_t item) {
  ArrayRef<ValueLifetime> values = analysis.getValues();
  size_t valueItems = 0;
  for (const ValueLifetime &info : values) {
    if (info.storage != StorageKind::Arena)
      continue;
    if (valueItems++ == item)
      return info.value.getDefiningOp();
  }
  for (auto [step, workspaceItem] : llvm::enumerate(plan.workspaceItems))
    if (workspaceItem == static_cast<int64_t>(item))
      return analysis.getSchedule()[step];
  return nullptr;
}

FailureOr<MemoryPlan> mlir::remat::planMemory(const PeakMemory &analysis) {
  MemoryPlan plan;
  plan.argumentBytes = analysis.getArgumentBytes();
  plan.peakBytes = analysis.getPeakBytes();
  std::vector<int64_t> itemOf;
  for (const ValueLifetime &info : analysis.getValues()) {
    itemOf.push_back(info.storage == StorageKind::Arena ? plan.items.size()
                                                        : -1);
    if (info.storage == StorageKind::Arena)
      plan.items.push_back({info.lifetime, getAlignment(info.value)});
  }
  ArrayRef<int64_t> workspace = analysis.getWorkspaceBytes();
  for (int64_t step = 0, e = workspace.size(); step < e; ++step) {
    if (workspace[step] <= 0) {
      plan.workspaceItems.push_back(-1);
      continue;
    }
    plan.workspaceItems.push_back(plan.items.size());
    plan.items.push_back({{workspace[step], step, step}, kTensorAlignment});
  }
  plan.packing = packOffsets(plan.items);
  if (plan.packing.overflows())
    return getItemOp(analysis, plan, *plan.packing.overflowItem)->emitOpError()
           << "cannot be placed in the arena: its offset and bytes exceed the "
              "int64 range";
  if (!addBytes(plan.argumentBytes, plan.getArenaBytes()))
    return emitError(analysis.getSchedule().front()->getParentOp()->getLoc())
           << "arguments + arena (" << plan.argumentBytes << " + "
           << plan.getArenaBytes() << " bytes) exceed the int64 range";
  if (findPackingConflict(plan.items, plan.packing.offsets))
    llvm::report_fatal_error("remat: the offset packer produced overlapping "
                             "buffers");
  for (const ValueLifetime &info : analysis.getValues())
    plan.valueOffsets.push_back(
        info.ownerIndex < 0 ? kNotInArena
                            : plan.packing.offsets[itemOf[info.ownerIndex]]);
  return plan;
}
