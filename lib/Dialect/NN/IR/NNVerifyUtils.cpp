//===- NNVerifyUtils.cpp - checks shared by the nn verifiers --------------===//
//
// One wording per kind of error, so that diagnostics read the same across
// the dialect and lit tests can rely on them.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"

#include "remat/Interfaces/CostOpInterface.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nn;

RankedTensorType mlir::nn::getTensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

int64_t mlir::nn::getNumElements(Type type) {
  // Checked: a shape whose count leaves int64 counts 0 elements (the cost
  // interface's verifier rejects such results).
  return remat::getElementCount(cast<RankedTensorType>(type));
}

std::string mlir::nn::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

LogicalResult mlir::nn::expectRank(Operation *op, StringRef what,
                                   RankedTensorType type, int64_t rank) {
  if (type.getRank() == rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank " << rank
                           << ", got " << type;
}

LogicalResult mlir::nn::expectMinRank(Operation *op, StringRef what,
                                      RankedTensorType type, int64_t rank) {
  if (type.getRank() >= rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank at least "
                           << rank << ", got " << type;
}

LogicalResult mlir::nn::expectShape(Operation *op, StringRef what,
                                    RankedTensorType type,
                                    ArrayRef<int64_t> shape) {
  if (type.getShape() == shape)
    return success();
  return op->emitOpError() << "expects " << what << " of shape "
                           << formatShape(shape) << ", got " << type;
}

LogicalResult mlir::nn::expectSameElementType(Operation *op, StringRef what,
                                              RankedTensorType type,
                                              StringRef otherWhat,
                                              RankedTensorType other) {
  if (type.getElementType() == other.getElementType())
    return success();
  return op->emitOpError() << "expects " << what << " and " << otherWhat
                           << " to have the same element type, got " << type
                           << " and " << other;
}

FailureOr<int64_t> mlir::nn::verifyDimAttr(Operation *op, StringRef name,
                                           int64_t dim, int64_t rank) {
  if (std::optional<int64_t> normalized = normalizeDim(dim, rank))
    return *normalized;
  return op->emitOpError() << "expects '" << name << "' in [" << -rank << ", "
                           << rank << "), got " << dim;
}

LogicalResult mlir::nn::expectPositive(Operation *op, StringRef name,
                                       ArrayRef<int64_t> values) {
  if (llvm::all_of(values, [](int64_t v) { return v > 0; }))
    return success();
  return op->emitOpError() << "expects every value of '" << name
                           << "' to be positive";
}

LogicalResult mlir::nn::expectNonNegative(Operation *op, StringRef name,
                                          ArrayRef<int64_t> values) {
  if (llvm::all_of(values, [](int64_t v) { return v >= 0; }))
    return success();
  return op->emitOpError() << "expects every value of '" << name
                           << "' to be non-negative";
}

LogicalResult mlir::nn::expectProbability(Operation *op, StringRef name,
                                          double value) {
  if (value >= 0.0 && value < 1.0)
    return success();
  return op->emitOpError() << "expects '" << name << "' in [0, 1), got "
                           << value;
}

/// The names of an input's dimensions with `spatialDims` spatial ones.
static StringRef getSpatialLayout(size_t spatialDims) {
  return spatialDims == 3 ? "NCDHW" : "NCHW";
}

/// The name of spatial dimension `i` of `spatialDims` (the last is W).
static StringRef getSpatialDimName(size_t i, size_t spatialDims) {
  static const char *const names[] = {"D", "H", "W"};
  return names[3 - spatialDims + i];
}

FailureOr<SmallVector<int64_t, 3>>
mlir::nn::verifyWindow(Operation *op, RankedTensorType input,
                       ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                       ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                       bool ceilMode) {
  size_t spatialDims = kernel.size();
  assert(spatialDims >= 2 && spatialDims <= 3 && "a 2-D or 3-D window");
  std::string layout = ("an " + getSpatialLayout(spatialDims) + " input").str();
  if (failed(expectRank(op, layout, input, 2 + spatialDims)) ||
      failed(expectPositive(op, "kernel_size", kernel)) ||
      failed(expectPositive(op, "stride", stride)) ||
      failed(expectNonNegative(op, "padding", padding)) ||
      failed(expectPositive(op, "dilation", dilation)))
    return failure();
  SmallVector<int64_t, 3> outputSize;
  for (size_t i = 0; i < spatialDims; ++i) {
    WindowGeometry window{kernel[i], stride[i], padding[i], dilation[i],
                          ceilMode};
    std::optional<int64_t> size =
        getWindowOutputSize(input.getDimSize(2 + i), window);
    if (!size)
      return op->emitOpError()
             << "window of effective size " << dilation[i] * (kernel[i] - 1) + 1
             << " does not fit the padded input of size "
             << input.getDimSize(2 + i) + 2 * padding[i] << " along "
             << getSpatialDimName(i, spatialDims);
    outputSize.push_back(*size);
  }
  return outputSize;
}
