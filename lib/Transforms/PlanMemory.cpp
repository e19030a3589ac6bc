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
  llvm::DenseMap<Value, int64_t> offsetOf;
  for (auto [index, info] : llvm::enumerate(analysis.getValues()))
    offsetOf[info.value] = plan.getValueOffset(index);
  MLIRContext *context = function.getContext();
  // The plan first: each placement is checked against it.
  function->setAttr(attr::kMemoryPlan,
                    MemoryPlanAttr::get(context, plan.getArenaBytes(),
                                        kTensorAlignment));
  for (auto [step, op] : llvm::enumerate(analysis.getSchedule())) {
    int64_t item = plan.workspaceItems[step];
    if (op->getNumResults() == 0 && item < 0)
      continue;
    SmallVector<int64_t> offsets;
    for (Value result : op->getResults())
      offsets.push_back(offsetOf.lookup(result));
    std::optional<int64_t> workspace;
    if (item >= 0)
      workspace = plan.packing.offsets[item];
    op->setAttr(attr::kPlacement,
                PlacementAttr::get(context, offsets, workspace));
  }
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
