//===- NNShapes.cpp - shape rules of the nn dialect -----------------------===//
//
// Window sizes follow ATen's pooling_output_shape (aten/src/ATen/native/
// Pool.h), which convolution shares with ceil_mode off; broadcasting follows
// NumPy.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/NN/IR/NNShapes.h"

#include <algorithm>

using namespace mlir::nn;

/// Integer division rounding towards negative infinity.
static int64_t floorDiv(int64_t numerator, int64_t denominator) {
  int64_t quotient = numerator / denominator;
  if ((numerator % denominator != 0) && ((numerator < 0) != (denominator < 0)))
    --quotient;
  return quotient;
}

std::optional<int64_t>
mlir::nn::getWindowOutputSize(int64_t inputSize, const WindowGeometry &window) {
  if (inputSize < 0 || window.kernel <= 0 || window.stride <= 0 ||
      window.dilation <= 0 || window.padding < 0)
    return std::nullopt;
  int64_t span = window.dilation * (window.kernel - 1) + 1;
  int64_t room = inputSize + 2 * window.padding - span;
  if (room < 0)
    return std::nullopt;
  int64_t rounding = window.ceilMode ? window.stride - 1 : 0;
  int64_t outputSize = floorDiv(room + rounding, window.stride) + 1;
  // With ceil_mode, a last window that would start in the right padding is
  // dropped.
  if (window.ceilMode &&
      (outputSize - 1) * window.stride >= inputSize + window.padding)
    --outputSize;
  return outputSize;
}

std::optional<llvm::SmallVector<int64_t>>
mlir::nn::broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                          llvm::ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  llvm::SmallVector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1)
      return std::nullopt;
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return result;
}

bool mlir::nn::isBroadcastableTo(llvm::ArrayRef<int64_t> from,
                                 llvm::ArrayRef<int64_t> to) {
  std::optional<llvm::SmallVector<int64_t>> joined = broadcastShapes(from, to);
  return joined && llvm::ArrayRef<int64_t>(*joined) == to;
}

std::optional<int64_t> mlir::nn::normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return std::nullopt;
  return dim < 0 ? dim + rank : dim;
}

int64_t mlir::nn::getShapeProduct(llvm::ArrayRef<int64_t> shape) {
  int64_t product = 1;
  for (int64_t size : shape)
    product *= size;
  return product;
}
