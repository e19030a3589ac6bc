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

#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace mlir::remat {

/// From this size on a value is large: it may be stored channels-last
/// (Runner::chooseChannelsLast), and the kernels whose ATen forms would
/// allocate temporaries of its size (batch norm's gradient, cross entropy
/// and its gradient) compute it in pieces or in place. Below, values are
/// contiguous and computed as eager PyTorch computes them.
constexpr int64_t kLargeValueBytes = int64_t(1) << 20;

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

/// Whether `op`'s kernel updates its destinations in place, reading the
/// operands they update element by element before writing them (the
/// optimizer updates, as torch.optim does): the executor gives it the state's
/// own buffers to write, where other kernels that read a buffer they update
/// get a temporary.
bool kernelUpdatesInPlace(Operation *op);

/// Whether `op`'s kernel computes its results in fresh tensors (ATen has no
/// `_out` form for it: convolutions and their gradients, the
/// normalizations, attention, the adaptive pooling gradient): the executor then
/// hands ATen's allocations of the results' sizes the results' own arena slots
/// while the kernel runs.
bool kernelAllocatesResults(Operation *op);

/// Whether `op`'s kernel takes operands and results of rank 4 or 5 in the
/// channels-last memory format as well as contiguous ones, with the same
/// values (ATen's kernels index by position, whatever the strides):
/// convolutions, normalizations over channels, pooling, resizing, the
/// element-wise ops, concatenation and slicing, reductions and cross
/// entropy. The executor stores a value channels-last where every op that
/// defines or reads it is one of these (Runner::prepare).
bool kernelTakesChannelsLast(Operation *op);

/// A convolution's stride, padding and dilation (copies: an attribute left
/// at its default gives them as a temporary).
struct ConvolutionGeometry {
  std::vector<int64_t> stride, padding, dilation;
};

/// Whether `op`, a convolution or its weight gradient, computes as one
/// matrix product over the convolution's unfolded input
/// (ConvolutionProducts.cpp): 2-D, one group, and the unfolded input
/// smaller than the weight (batch x output pixels below the output
/// channels).
bool convolvesAsProduct(Operation *op);

/// The convolution and its weight gradient as matrix products, computed in
/// `result` (they allocate no tensor of its size).
void convolutionAsProduct(const at::Tensor &input, const at::Tensor &weight,
                          const std::optional<at::Tensor> &bias,
                          const ConvolutionGeometry &geometry,
                          at::Tensor &result);
void convolutionWeightGradientAsProduct(const at::Tensor &gradOutput,
                                        const at::Tensor &input,
                                        const ConvolutionGeometry &geometry,
                                        at::Tensor &gradWeight);

/// Checks the index operands of `op` (max-pool indices, embedding rows,
/// cross-entropy labels) against what they index, before ATen sees them;
/// emits an error at `op` naming the first bad index and fails.
LogicalResult checkIndexOperands(Operation *op, ArrayRef<at::Tensor> operands);

/// The dropout mask (1 kept, 0 dropped) of `shape` drawn from the
/// counter-based generator keyed by the seed operand's value, element i at
/// the generator's index `firstIndex + i` (a part of a larger mask).
at::Tensor getDropoutMask(int64_t seedValue, double p, at::IntArrayRef shape,
                          at::ScalarType type, int64_t firstIndex = 0);

/// nn.bernoulli's sample (1 where uniform(mix(seed), i) < p, else 0) of
/// `shape`, from the same generator as the dropout mask.
at::Tensor getBernoulliSample(int64_t seedValue, double p,
                              at::IntArrayRef shape, at::ScalarType type);

/// What nn.attention and its backward with dropout need beside tensors.
struct AttentionDropoutCall {
  std::optional<at::Tensor> mask; ///< additive, broadcast to the scores
  bool causal;
  double scale;
  double dropout; ///< in (0, 1)
  int64_t seed;
};

/// nn.attention with dropout (AttentionDropout.cpp): the output and the f32
/// log-sum-exp.
std::pair<at::Tensor, at::Tensor>
attentionWithDropout(const AttentionDropoutCall &call, const at::Tensor &query,
                     const at::Tensor &key, const at::Tensor &value);

/// nn.attention_backward with dropout: the gradients of query, key, value.
std::tuple<at::Tensor, at::Tensor, at::Tensor> attentionWithDropoutBackward(
    const AttentionDropoutCall &call, const at::Tensor &gradOutput,
    const at::Tensor &query, const at::Tensor &key, const at::Tensor &value,
    const at::Tensor &output, const at::Tensor &logsumexp);

} // namespace mlir::remat

#endif // REMAT_LIB_EXECUTION_CPU_KERNELS_H
