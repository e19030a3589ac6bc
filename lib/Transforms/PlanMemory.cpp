//===- PlanMemory.cpp - record a memory plan on the IR --------------------===//
//
// The remat-plan-memory pass: plans a function's arena and records it.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/PlanMemory.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::remat;

namespace mlir::remat {
#define GEN_PASS_DEF_REMATPLANMEMORYPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace mlir::remat

void mlir::remat::annotateMemoryPlan(FunctionOpInterface function,
                                     const PeakMemory &analysis,
                                     const MemoryPlan &plan) {
  Builder builder(function.getContext());
  llvm::DenseMap<Value, int64_t> offsetOf;
  for (auto [index, info] : llvm::enumerate(analysis.getValues()))
    offsetOf[info.value] = plan.getValueOffset(index);
  for (auto [step, op] : llvm::enumerate(analysis.getSchedule())) {
    if (op->getNumResults() > 0) {
      SmallVector<int64_t> offsets;
      for (Value result : op->getResults())
        offsets.push_back(offsetOf.lookup(result));
      op->setAttr(attr::kOffsets, builder.getDenseI64ArrayAttr(offsets));
    }
    if (int64_t item = plan.workspaceItems[step]; item >= 0)
      op->setAttr(attr::kWorkspaceOffset,
                  builder.getI64IntegerAttr(plan.packing.offsets[item]));
  }
  function->setAttr(attr::kArenaBytes,
                    builder.getI64IntegerAttr(plan.getArenaBytes()));
}

namespace {
struct RematPlanMemoryPass
    : public remat::impl::RematPlanMemoryPassBase<RematPlanMemoryPass> {
  void runOnOperation() override {
    for (FunctionOpInterface function :
         getFunctionsWithBodies(getOperation())) {
      FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
      if (failed(analysis))
        return signalPassFailure();
      FailureOr<MemoryPlan> plan = planMemory(*analysis);
      if (failed(plan))
        return signalPassFailure();
      annotateMemoryPlan(function, *analysis, *plan);
      arenaBytes += plan->getArenaBytes();
      peakBytes += plan->peakBytes;
    }
  }
};
} // namespace
