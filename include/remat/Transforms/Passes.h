//===- Passes.h - remat's passes --------------------------------*- C++ -*-===//
//
// Declarations and registration of remat's passes (generated from
// Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Transforms/RematOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::remat {

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

/// Every function of `module` with a body, wherever it is nested (nested
/// modules included), in the order they appear: what remat's passes plan.
SmallVector<FunctionOpInterface> getFunctionsWithBodies(ModuleOp module);

/// The rematerialize pass with `options`.
std::unique_ptr<Pass> createRematRematerializePass(const RematOptions &options);

/// The options of remat's default pipeline: the rematerialization options.
struct RematPipelineOptions
    : public PassPipelineOptions<RematPipelineOptions> {
  RematPassOptionBinding<RematPipelineOptions> remat{*this};
};

/// remat's default pipeline: rematerialize under the budget, then plan
/// memory. Works on a module (the passes plan every function in it, nested
/// modules included).
void buildRematPipeline(OpPassManager &pm, const RematOptions &options);

/// Registers `remat-pipeline{budget=...}` for pass pipelines.
void registerRematPipeline();

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_PASSES_H
