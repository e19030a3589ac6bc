//===- Passes.h - remat's passes --------------------------------*- C++ -*-===//
//
// Declarations and registration of remat's passes (generated from
// Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::remat {

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_PASSES_H
