//===- PlanMemory.h - record a memory plan on the IR ------------*- C++ -*-===//
//
// The memory planner's IR side: records a step's memory plan as attributes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PLANMEMORY_H
#define REMAT_TRANSFORMS_PLANMEMORY_H

#include "remat/Analysis/MemoryPlan.h"

namespace mlir::remat {

/// Records `plan` as `remat.offsets` on each op with results,
/// `remat.workspace_offset` on each op with a workspace, and
/// `remat.arena_bytes` on `function`.
void annotateMemoryPlan(FunctionOpInterface function,
                        const PeakMemory &analysis, const MemoryPlan &plan);

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_PLANMEMORY_H
