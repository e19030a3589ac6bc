//===- CudaEmitter.h - a planned step as one CUDA C++ source ----*- C++ -*-===//
//
// `remat-translate --emit-cuda`: writes a planned training step (after
// remat-plan-memory) as one self-contained CUDA C++ source: the step as a
// host function over device pointers (arguments, one arena of the planned
// size), each nn op as a cuDNN or cuBLAS call or a generated kernel, and a
// harness `main` that fills the arguments as remat-run does, runs steps, and
// reports time per step and measured device memory. docs/cuda.md.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TARGET_CUDA_CUDAEMITTER_H
#define REMAT_TARGET_CUDA_CUDAEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::remat {

/// Writes the CUDA source of the one planned function of `module` to `os`,
/// or emits diagnostics (an op without a CUDA lowering, an unplanned
/// function) and fails without writing anything.
LogicalResult emitCuda(ModuleOp module, raw_ostream &os);

/// Registers the `--emit-cuda` translation.
void registerCudaEmitter();

} // namespace mlir::remat

#endif // REMAT_TARGET_CUDA_CUDAEMITTER_H
