//===- ConvolutionProducts.cpp - convolutions as one matrix product -------===//
//
// A 2-D convolution of one group is a matrix product over its unfolded input
// (im2col): with L output pixels per image,
//   result [O, N * L] = weight [O, C * kh * kw] x columns [C * kh * kw, N * L]
// and its weight gradient
//   grad_output [O, N * L] x columns^T.
// Where the columns are smaller than the weight (N * L < O: small images
// with many channels, ResNet's last stages at small sizes), this reads the
// weight and writes its gradient where they are, with temporaries the size
// of the columns. oneDNN instead copies the weight into a blocked layout at
// every call, and computes the weight gradient in scratch several weights
// large: memory outside the planned arena, larger than the activations.
// (The input gradient as a product and col2im measured 1.4x slower than
// oneDNN's on ResNet-18, so it stays oneDNN's.) The products round
// differently from oneDNN (about 1e-7 relative), which models that batch-
// normalize over a handful of values amplify as they amplify any change of
// that size (bench/eager_sensitivity.py).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "remat/Dialect/NN/IR/NNOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::remat;

/// Whether a convolution of `groups` groups with weight [O, C, kernel...]
/// and output [N, O, pixels...] is computed as a matrix product.
static bool convolvesAsProduct(Value weight, int64_t groups, Value output) {
  ArrayRef<int64_t> weightShape =
      cast<RankedTensorType>(weight.getType()).getShape();
  ArrayRef<int64_t> outputShape =
      cast<RankedTensorType>(output.getType()).getShape();
  if (weightShape.size() != 4 || groups != 1)
    return false;
  int64_t columns = outputShape[0] * outputShape[2] * outputShape[3];
  return columns < weightShape[0];
}

bool mlir::remat::convolvesAsProduct(Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([](nn::Conv2dOp o) {
        return ::convolvesAsProduct(o.getWeight(), int64_t(o.getGroups()),
                                    o.getResult());
      })
      .Case([](nn::Conv2dBackwardWeightOp o) {
        return ::convolvesAsProduct(o.getGradWeight(), int64_t(o.getGroups()),
                                    o.getGradOutput());
      })
      .Default([](Operation *) { return false; });
}

/// The columns of `input` [N, C * kh * kw, L] for `weight`'s kernel.
static at::Tensor unfold(const at::Tensor &input, const at::Tensor &weight,
                         const ConvolutionGeometry &geometry) {
  return at::im2col(input, {weight.size(2), weight.size(3)},
                    geometry.dilation, geometry.padding, geometry.stride);
}

/// `images` [N, K, rest...] as the matrix [K, N * rest] (a copy).
static at::Tensor channelsByPixels(const at::Tensor &images) {
  return images.transpose(0, 1).reshape({images.size(1), -1});
}

/// Writes `value` into `destination` (it is computed elsewhere).
static void place(at::Tensor &destination, const at::Tensor &value) {
  if (!destination.is_same(value))
    destination.copy_(value);
}

void mlir::remat::convolutionAsProduct(const at::Tensor &input,
                                       const at::Tensor &weight,
                                       const std::optional<at::Tensor> &bias,
                                       const ConvolutionGeometry &geometry,
                                       at::Tensor &result) {
  int64_t outputs = weight.size(0);
  at::Tensor columns = channelsByPixels(unfold(input, weight, geometry));
  at::Tensor product = at::mm(weight.reshape({outputs, -1}), columns);
  // [O, N, OH, OW] -> [N, O, OH, OW].
  place(result, product.view({outputs, result.size(0), result.size(2),
                              result.size(3)})
                    .transpose(0, 1));
  if (bias)
    result.add_(bias->view({1, outputs, 1, 1}));
}

void mlir::remat::convolutionWeightGradientAsProduct(
    const at::Tensor &gradOutput, const at::Tensor &input,
    const ConvolutionGeometry &geometry, at::Tensor &gradWeight) {
  // [N, C * kh * kw, L] -> [N * L, C * kh * kw].
  at::Tensor columns = unfold(input, gradWeight, geometry)
                           .transpose(1, 2)
                           .reshape({-1, gradWeight[0].numel()});
  at::Tensor gradOutputs = channelsByPixels(gradOutput);
  if (gradWeight.is_contiguous()) {
    at::Tensor matrix = gradWeight.view({gradWeight.size(0), -1});
    at::mm_out(matrix, gradOutputs, columns);
    return;
  }
  place(gradWeight, at::mm(gradOutputs, columns).view(gradWeight.sizes()));
}
