//===- NNShapes.h - shape rules of the nn dialect ---------------*- C++ -*-===//
//
// The shape arithmetic that the nn verifiers (and later the importer and the
// executors) share: window output sizes for convolution and pooling, NumPy
// broadcasting, ATen-style negative dimensions. IR-free, so that it is unit
// tested on plain numbers.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNSHAPES_H
#define REMAT_DIALECT_NN_IR_NNSHAPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::nn {

/// Geometry of a sliding window along one spatial dimension.
struct WindowGeometry {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t dilation = 1;
  /// Round the output size up rather than down (pooling's ceil_mode), with
  /// ATen's rule that the last window must start inside the input or its
  /// left padding.
  bool ceilMode = false;
};

/// Returns the number of window positions over an input of `inputSize`
/// elements, as ATen computes it for convolution and pooling, or
/// std::nullopt when the geometry is invalid (non-positive kernel, stride or
/// dilation, negative padding) or the window does not fit even once.
std::optional<int64_t> getWindowOutputSize(int64_t inputSize,
                                           const WindowGeometry &window);

/// Returns the NumPy broadcast of two shapes, or std::nullopt when some pair
/// of aligned dimensions differs and neither is 1.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Returns whether `from` broadcasts to exactly `to`.
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Maps an ATen-style dimension (negative counts from the end) into
/// [0, rank), or std::nullopt when it is out of range.
std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank);

/// Returns the product of `shape` (1 for a 0-d shape).
int64_t getShapeProduct(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::nn

#endif // REMAT_DIALECT_NN_IR_NNSHAPES_H
