//===- Kernels.h - ATen kernels of the nn ops -------------------*- C++ -*-===//
//
// Private to the CPU executor (includes LibTorch).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_EXECUTION_CPU_KERNELS_H
#define REMAT_LIB_EXECUTION_CPU_KERNELS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

#include <ATen/ATen.h>

#include <vector>

namespace mlir::remat {

/// The ATen element type of an MLIR element type, or std::nullopt.
std::optional<at::ScalarType> getScalarType(Type elementType);

/// Computes the results of `op` from its operands with ATen, writing straight
/// into `outs` (one tensor per result, shaped and typed as the result)
/// through ATen's `_out` kernels where the op has one; other results are
/// fresh tensors for the caller to copy into `outs`. Emits an error at the op
/// and fails when the op has no kernel.
FailureOr<std::vector<at::Tensor>> runKernel(Operation *op,
                                             ArrayRef<at::Tensor> operands,
                                             ArrayRef<at::Tensor> outs);

/// Checks the index operands of `op` (max-pool indices, embedding rows,
/// cross-entropy labels) against what they index, before ATen sees them;
/// emits an error at `op` naming the first bad index and fails.
LogicalResult checkIndexOperands(Operation *op, ArrayRef<at::Tensor> operands);

/// The dropout mask (1 kept, 0 dropped) of `count` elements drawn from the
/// counter-based generator keyed by the seed operand's value.
at::Tensor getDropoutMask(int64_t seedValue, double p, at::IntArrayRef shape,
                          at::ScalarType type);

/// nn.bernoulli's sample (1 where uniform(mix(seed), i) < p, else 0) of
/// `shape`, from the same generator as the dropout mask.
at::Tensor getBernoulliSample(int64_t seedValue, double p,
                              at::IntArrayRef shape, at::ScalarType type);

} // namespace mlir::remat

#endif // REMAT_LIB_EXECUTION_CPU_KERNELS_H
