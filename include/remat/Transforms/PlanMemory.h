//===- PlanMemory.h - record a memory plan on the IR ------------*- C++ -*-===//
//
// The memory planner's IR side: records a step's memory plan as attributes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PLANMEMORY_H
#define REMAT_TRANSFORMS_PLANMEMORY_H

#include "remat/Analysis/MemoryPlan.h"

namespace mlir::remat {

/// Records `plan` as `remat.memory_plan` on `function` and a
/// `remat.placement` on each op with results or a workspace. The remat
/// dialect must be loaded in the context (a pass that calls this lists it
/// among its dependent dialects).
void annotateMemoryPlan(FunctionOpInterface function,
                        const PeakMemory &analysis, const MemoryPlan &plan);

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_PLANMEMORY_H
