//===- RematAttrs.h - checks of the remat attributes ------------*- C++ -*-===//
//
// What the dialect's attribute verifier (RematDialect.cpp) asks of the
// attribute definitions (RematAttrs.cpp) beyond their own parameters.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_REMAT_IR_REMATATTRS_H
#define LIB_DIALECT_REMAT_IR_REMATATTRS_H

#include "remat/Dialect/Remat/IR/RematDialect.h"

namespace mlir::remat::detail {

/// Checks `remat.memory_plan = plan` on `op`: a function of one block each
/// of whose ops with results has a placement whose values end inside the
/// arena, at offsets with the plan's alignment (a workspace starts inside
/// it; its size is the op's to say, once the op verifies).
LogicalResult verifyMemoryPlan(Operation *op, MemoryPlanAttr plan,
                               function_ref<InFlightDiagnostic()> emitError);

/// Checks `remat.placement = placement` on `op`: an op (not the terminator)
/// of a planned function's body, with one offset per result.
LogicalResult verifyPlacement(Operation *op, PlacementAttr placement,
                              function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::remat::detail

#endif // LIB_DIALECT_REMAT_IR_REMATATTRS_H
