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
  return static_cast<double>(argumentBytes + getArenaBytes() - peakBytes) /
         static_cast<double>(peakBytes);
}

/// Abstract graph values are byte counts, not tensors a kernel reads.
static int64_t getAlignment(Value value) {
  return isa_and_nonnull<GraphNodeOp>(value.getDefiningOp())
             ? 1
             : kTensorAlignment;
}

MemoryPlan mlir::remat::planMemory(const PeakMemory &analysis) {
  MemoryPlan plan;
  plan.argumentBytes = analysis.getArgumentBytes();
  plan.peakBytes = analysis.getPeakBytes();
  for (const ValueLifetime &info : analysis.getValues())
    plan.items.push_back({info.lifetime, getAlignment(info.value)});
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
  if (findPackingConflict(plan.items, plan.packing.offsets))
    llvm::report_fatal_error("remat: the offset packer produced overlapping "
                             "buffers");
  return plan;
}

