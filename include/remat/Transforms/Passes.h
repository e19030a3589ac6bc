//===- Passes.h - remat's passes --------------------------------*- C++ -*-===//
//
// Declarations and registration of remat's passes (generated from
// Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Support/ByteSize.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::remat {

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

/// Options of remat's default pipeline.
struct RematPipelineOptions
    : public PassPipelineOptions<RematPipelineOptions> {
  Option<ByteSize> budget{*this, "budget",
                          llvm::cl::desc("Byte budget for arguments + arena")};
  Option<std::string> solver{*this, "solver", llvm::cl::desc("The solver"),
                             llvm::cl::init("auto")};
  Option<int64_t> workLimit{*this, "work-limit",
                            llvm::cl::desc("Search steps per solver"),
                            llvm::cl::init(0)};
  Option<double> timeLimit{*this, "time-limit",
                           llvm::cl::desc("Seconds per solve"),
                           llvm::cl::init(60.0)};
  Option<bool> strict{*this, "strict",
                      llvm::cl::desc("An unmet budget is an error"),
                      llvm::cl::init(true)};
  Option<std::string> device{*this, "device",
                             llvm::cl::desc("Device profile"),
                             llvm::cl::init("h200")};
  Option<bool> recordSolveTime{*this, "record-solve-time",
                               llvm::cl::desc("Record the solve time"),
                               llvm::cl::init(false)};
};

/// remat's default pipeline: rematerialize under the budget, then plan
/// memory.
void buildRematPipeline(OpPassManager &pm, const RematPipelineOptions &options);

/// Registers `remat-pipeline{budget=...}` for pass pipelines.
void registerRematPipeline();

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_PASSES_H
