//===- ConvPoolOps.cpp - convolution, pooling and upsampling --------------===//
//
// Verifiers and costs of the 2-D NCHW ops. Every op of a family (forward and
// backward) checks the same geometry, with the input's shape taken from the
// result type where the op is a backward op. Convolution workspace is 0 here:
// how much scratch a library's algorithm takes is a device matter, decided
// by the cost model's device profile, not by the op.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

namespace {
/// The attributes every conv2d-family op carries.
struct ConvAttrs {
  ArrayRef<int64_t> stride, padding, dilation;
  int64_t groups;
};

template <typename ConvLikeOp>
ConvAttrs getConvAttrs(ConvLikeOp op) {
  return {op.getStride(), op.getPadding(), op.getDilation(),
          static_cast<int64_t>(op.getGroups())};
}
} // namespace

/// Checks that `output` is what a convolution of `input` with `weight`
/// produces; `outputName` names the output in diagnostics.
static LogicalResult verifyConv2d(Operation *op, RankedTensorType input,
                                  RankedTensorType weight,
                                  RankedTensorType output, StringRef outputName,
                                  const ConvAttrs &attrs) {
  if (failed(expectRank(op, "an NCHW input", input, 4)) ||
      failed(expectRank(op, "an OIHW weight", weight, 4)) ||
      failed(expectSameElementType(op, "input", input, "weight", weight)) ||
      failed(expectSameElementType(op, "input", input, outputName, output)) ||
      failed(expectPositive(op, "groups", {attrs.groups})))
    return failure();
  int64_t channels = input.getDimSize(1), filters = weight.getDimSize(0);
  if (channels % attrs.groups != 0 || filters % attrs.groups != 0)
    return op->emitOpError()
           << "expects input channels (" << channels << ") and output "
           << "channels (" << filters << ") to be divisible by 'groups' ("
           << attrs.groups << ")";
  ArrayRef<int64_t> kernel = weight.getShape().drop_front(2);
  if (failed(expectShape(op, "a weight", weight,
                         {filters, channels / attrs.groups, kernel[0],
                          kernel[1]})))
    return failure();
  FailureOr<SmallVector<int64_t, 2>> spatial =
      verifyWindow2d(op, input, kernel, attrs.stride, attrs.padding,
                     attrs.dilation, /*ceilMode=*/false);
  if (failed(spatial))
    return failure();
  return expectShape(op, ("a " + outputName).str(), output,
                     {input.getDimSize(0), filters, (*spatial)[0],
                      (*spatial)[1]});
}

/// FLOPs of one convolution pass (forward, backward-input or backward-weight
/// all do the same multiply-adds): 2 x outputs x (C / groups) x KH x KW.
static int64_t getConvFlops(RankedTensorType output, RankedTensorType weight) {
  return 2 * output.getNumElements() * weight.getDimSize(1) *
         weight.getDimSize(2) * weight.getDimSize(3);
}

LogicalResult Conv2dOp::verify() {
  if (failed(verifyConv2d(*this, getInput().getType(), getWeight().getType(),
                          getType(), "result", getConvAttrs(*this))))
    return failure();
  if (!getBias())
    return success();
  RankedTensorType bias = getBias().getType();
  if (failed(expectSameElementType(*this, "input", getInput().getType(),
                                   "bias", bias)))
    return failure();
  return expectShape(*this, "a bias", bias,
                     {getWeight().getType().getDimSize(0)});
}

int64_t Conv2dOp::getFlopCount() {
  int64_t flops = getConvFlops(getType(), getWeight().getType());
  return getBias() ? flops + getNumElements(getType()) : flops;
}

LogicalResult Conv2dBackwardInputOp::verify() {
  return verifyConv2d(*this, getType(), getWeight().getType(),
                      getGradOutput().getType(), "grad_output",
                      getConvAttrs(*this));
}

int64_t Conv2dBackwardInputOp::getFlopCount() {
  return getConvFlops(getGradOutput().getType(), getWeight().getType());
}

LogicalResult Conv2dBackwardWeightOp::verify() {
  return verifyConv2d(*this, getInput().getType(), getType(),
                      getGradOutput().getType(), "grad_output",
                      getConvAttrs(*this));
}

int64_t Conv2dBackwardWeightOp::getFlopCount() {
  return getConvFlops(getGradOutput().getType(), getType());
}

LogicalResult Conv2dBackwardBiasOp::verify() {
  RankedTensorType grad = getGradOutput().getType();
  if (failed(expectRank(*this, "an NCHW grad_output", grad, 4)) ||
      failed(expectSameElementType(*this, "grad_output", grad, "result",
                                   getType())))
    return failure();
  return expectShape(*this, "a result", getType(), {grad.getDimSize(1)});
}

int64_t Conv2dBackwardBiasOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Checks a pooling window over `input` producing `output` (and, for max
/// pooling, `indices` of the same shape). Padding is at most half the
/// effective kernel, as ATen requires.
static LogicalResult
verifyPool2d(Operation *op, RankedTensorType input, RankedTensorType output,
             StringRef outputName, ArrayRef<int64_t> kernel,
             ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
             ArrayRef<int64_t> dilation, bool ceilMode) {
  if (failed(expectSameElementType(op, "input", input, outputName, output)))
    return failure();
  FailureOr<SmallVector<int64_t, 2>> spatial =
      verifyWindow2d(op, input, kernel, stride, padding, dilation, ceilMode);
  if (failed(spatial))
    return failure();
  for (int i = 0; i < 2; ++i) {
    int64_t effectiveKernel = dilation[i] * (kernel[i] - 1) + 1;
    if (2 * padding[i] > effectiveKernel)
      return op->emitOpError() << "expects 'padding' to be at most half the "
                                  "effective kernel size, got "
                               << padding[i] << " for a window of "
                               << effectiveKernel;
  }
  return expectShape(op, ("a " + outputName).str(), output,
                     {input.getDimSize(0), input.getDimSize(1), (*spatial)[0],
                      (*spatial)[1]});
}

/// Checks that max pooling's indices are integers shaped as its output.
static LogicalResult verifyIndices(Operation *op, RankedTensorType indices,
                                   RankedTensorType output) {
  return expectShape(op, "indices", indices, output.getShape());
}

static const SmallVector<int64_t, 2> kNoDilation = {1, 1};

LogicalResult MaxPool2dOp::verify() {
  if (failed(verifyPool2d(*this, getInput().getType(), getResult().getType(),
                          "result", getKernelSize(), getStride(), getPadding(),
                          getDilation(), getCeilMode())))
    return failure();
  return verifyIndices(*this, getIndices().getType(), getResult().getType());
}

int64_t MaxPool2dOp::getFlopCount() {
  ArrayRef<int64_t> kernel = getKernelSize();
  return getNumElements(getResult().getType()) * kernel[0] * kernel[1];
}

LogicalResult MaxPool2dBackwardOp::verify() {
  if (failed(verifyPool2d(*this, getType(), getGradOutput().getType(),
                          "grad_output", getKernelSize(), getStride(),
                          getPadding(), getDilation(), getCeilMode())))
    return failure();
  return verifyIndices(*this, getIndices().getType(),
                       getGradOutput().getType());
}

int64_t MaxPool2dBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}

LogicalResult AvgPool2dOp::verify() {
  return verifyPool2d(*this, getInput().getType(), getType(), "result",
                      getKernelSize(), getStride(), getPadding(), kNoDilation,
                      getCeilMode());
}

int64_t AvgPool2dOp::getFlopCount() {
  ArrayRef<int64_t> kernel = getKernelSize();
  return getNumElements(getType()) * kernel[0] * kernel[1];
}

LogicalResult AvgPool2dBackwardOp::verify() {
  return verifyPool2d(*this, getType(), getGradOutput().getType(),
                      "grad_output", getKernelSize(), getStride(),
                      getPadding(), kNoDilation, getCeilMode());
}

int64_t AvgPool2dBackwardOp::getFlopCount() {
  ArrayRef<int64_t> kernel = getKernelSize();
  return getNumElements(getGradOutput().getType()) * kernel[0] * kernel[1];
}

//===----------------------------------------------------------------------===//
// Resizing: adaptive pooling and bilinear upsampling
//===----------------------------------------------------------------------===//

/// Checks an op that maps NCHW `from` to NCHW `to` with the same N and C and
/// any positive H and W.
static LogicalResult verifyResize(Operation *op, RankedTensorType from,
                                  StringRef fromName, RankedTensorType to,
                                  StringRef toName) {
  if (failed(expectRank(op, ("an NCHW " + fromName).str(), from, 4)) ||
      failed(expectRank(op, ("an NCHW " + toName).str(), to, 4)) ||
      failed(expectSameElementType(op, fromName, from, toName, to)))
    return failure();
  return expectShape(op, ("a " + toName).str(), to,
                     {from.getDimSize(0), from.getDimSize(1), to.getDimSize(2),
                      to.getDimSize(3)});
}

/// FLOPs of bilinear interpolation per output element: four weighted taps.
constexpr int64_t kBilinearFlopsPerElement = 8;

LogicalResult AdaptiveAvgPool2dOp::verify() {
  return verifyResize(*this, getInput().getType(), "input", getType(),
                      "result");
}

int64_t AdaptiveAvgPool2dOp::getFlopCount() {
  return getNumElements(getInput().getType()) + getNumElements(getType());
}

LogicalResult AdaptiveAvgPool2dBackwardOp::verify() {
  return verifyResize(*this, getGradOutput().getType(), "grad_output",
                      getType(), "result");
}

int64_t AdaptiveAvgPool2dBackwardOp::getFlopCount() {
  return getNumElements(getType()) + getNumElements(getGradOutput().getType());
}

LogicalResult UpsampleBilinear2dOp::verify() {
  return verifyResize(*this, getInput().getType(), "input", getType(),
                      "result");
}

int64_t UpsampleBilinear2dOp::getFlopCount() {
  return kBilinearFlopsPerElement * getNumElements(getType());
}

LogicalResult UpsampleBilinear2dBackwardOp::verify() {
  return verifyResize(*this, getGradOutput().getType(), "grad_output",
                      getType(), "result");
}

int64_t UpsampleBilinear2dBackwardOp::getFlopCount() {
  return kBilinearFlopsPerElement * getNumElements(getGradOutput().getType());
}
