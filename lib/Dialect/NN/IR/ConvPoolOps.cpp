//===- ConvPoolOps.cpp - convolution, pooling and upsampling --------------===//
//
// Verifiers and costs of the convolutions and pooling ops (2-D and 3-D) and
// the 2-D NCHW resizing ops. Every op of a family (forward and
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
/// The attributes every convolution-family op carries.
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
/// produces; `outputName` names the output in diagnostics. The geometry
/// attributes hold one value per spatial dimension (2 or 3).
static LogicalResult verifyConv(Operation *op, RankedTensorType input,
                                RankedTensorType weight,
                                RankedTensorType output, StringRef outputName,
                                const ConvAttrs &attrs) {
  size_t spatialDims = attrs.stride.size();
  bool volume = spatialDims == 3;
  if (failed(expectRank(op, volume ? "an NCDHW input" : "an NCHW input", input,
                        2 + spatialDims)) ||
      failed(expectRank(op, volume ? "an OIDHW weight" : "an OIHW weight",
                        weight, 2 + spatialDims)) ||
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
  SmallVector<int64_t> weightShape = {filters, channels / attrs.groups};
  weightShape.append(kernel.begin(), kernel.end());
  if (failed(expectShape(op, "a weight", weight, weightShape)))
    return failure();
  FailureOr<SmallVector<int64_t, 3>> spatial =
      verifyWindow(op, input, kernel, attrs.stride, attrs.padding,
                   attrs.dilation, /*ceilMode=*/false);
  if (failed(spatial))
    return failure();
  SmallVector<int64_t> outputShape = {input.getDimSize(0), filters};
  outputShape.append(spatial->begin(), spatial->end());
  return expectShape(op, ("a " + outputName).str(), output, outputShape);
}

/// FLOPs of one convolution pass (forward, backward-input or backward-weight
/// all do the same multiply-adds): 2 x outputs x (C / groups) x kernel size.
static int64_t getConvFlops(RankedTensorType output, RankedTensorType weight) {
  return 2 * output.getNumElements() * weight.getNumElements() /
         weight.getDimSize(0);
}

template <typename ConvOp> static LogicalResult verifyConvForward(ConvOp op) {
  if (failed(verifyConv(op, op.getInput().getType(), op.getWeight().getType(),
                        op.getType(), "result", getConvAttrs(op))))
    return failure();
  if (!op.getBias())
    return success();
  RankedTensorType bias = op.getBias().getType();
  if (failed(expectSameElementType(op, "input", op.getInput().getType(), "bias",
                                   bias)))
    return failure();
  return expectShape(op, "a bias", bias,
                     {op.getWeight().getType().getDimSize(0)});
}

template <typename ConvOp> static int64_t getConvForwardFlops(ConvOp op) {
  int64_t flops = getConvFlops(op.getType(), op.getWeight().getType());
  return op.getBias() ? flops + getNumElements(op.getType()) : flops;
}

template <typename BackwardInputOp>
static LogicalResult verifyConvBackwardInput(BackwardInputOp op) {
  return verifyConv(op, op.getType(), op.getWeight().getType(),
                    op.getGradOutput().getType(), "grad_output",
                    getConvAttrs(op));
}

template <typename BackwardWeightOp>
static LogicalResult verifyConvBackwardWeight(BackwardWeightOp op) {
  return verifyConv(op, op.getInput().getType(), op.getType(),
                    op.getGradOutput().getType(), "grad_output",
                    getConvAttrs(op));
}

/// The bias gradient sums grad_output [N, C, spatial...] to [C].
static LogicalResult verifyConvBackwardBias(Operation *op,
                                            RankedTensorType grad,
                                            RankedTensorType result,
                                            int64_t spatialDims) {
  std::string layout =
      spatialDims == 3 ? "an NCDHW grad_output" : "an NCHW grad_output";
  if (failed(expectRank(op, layout, grad, 2 + spatialDims)) ||
      failed(expectSameElementType(op, "grad_output", grad, "result", result)))
    return failure();
  return expectShape(op, "a result", result, {grad.getDimSize(1)});
}

LogicalResult Conv2dOp::verify() { return verifyConvForward(*this); }
int64_t Conv2dOp::getFlopCount() { return getConvForwardFlops(*this); }
LogicalResult Conv3dOp::verify() { return verifyConvForward(*this); }
int64_t Conv3dOp::getFlopCount() { return getConvForwardFlops(*this); }

LogicalResult Conv2dBackwardInputOp::verify() {
  return verifyConvBackwardInput(*this);
}
int64_t Conv2dBackwardInputOp::getFlopCount() {
  return getConvFlops(getGradOutput().getType(), getWeight().getType());
}
LogicalResult Conv3dBackwardInputOp::verify() {
  return verifyConvBackwardInput(*this);
}
int64_t Conv3dBackwardInputOp::getFlopCount() {
  return getConvFlops(getGradOutput().getType(), getWeight().getType());
}

LogicalResult Conv2dBackwardWeightOp::verify() {
  return verifyConvBackwardWeight(*this);
}
int64_t Conv2dBackwardWeightOp::getFlopCount() {
  return getConvFlops(getGradOutput().getType(), getType());
}
LogicalResult Conv3dBackwardWeightOp::verify() {
  return verifyConvBackwardWeight(*this);
}
int64_t Conv3dBackwardWeightOp::getFlopCount() {
  return getConvFlops(getGradOutput().getType(), getType());
}

LogicalResult Conv2dBackwardBiasOp::verify() {
  return verifyConvBackwardBias(*this, getGradOutput().getType(), getType(), 2);
}
int64_t Conv2dBackwardBiasOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}
LogicalResult Conv3dBackwardBiasOp::verify() {
  return verifyConvBackwardBias(*this, getGradOutput().getType(), getType(), 3);
}
int64_t Conv3dBackwardBiasOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Checks a pooling window over `input` producing `output` (and, for max
/// pooling, `indices` of the same shape), with one kernel size per spatial
/// dimension (2 or 3). Padding is at most half the effective kernel, as ATen
/// requires.
static LogicalResult verifyPool(Operation *op, RankedTensorType input,
                                RankedTensorType output, StringRef outputName,
                                ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> stride,
                                ArrayRef<int64_t> padding,
                                ArrayRef<int64_t> dilation, bool ceilMode) {
  if (failed(expectSameElementType(op, "input", input, outputName, output)))
    return failure();
  FailureOr<SmallVector<int64_t, 3>> spatial =
      verifyWindow(op, input, kernel, stride, padding, dilation, ceilMode);
  if (failed(spatial))
    return failure();
  for (size_t i = 0; i < kernel.size(); ++i) {
    int64_t effectiveKernel = dilation[i] * (kernel[i] - 1) + 1;
    if (2 * padding[i] > effectiveKernel)
      return op->emitOpError() << "expects 'padding' to be at most half the "
                                  "effective kernel size, got "
                               << padding[i] << " for a window of "
                               << effectiveKernel;
  }
  SmallVector<int64_t> outputShape = {input.getDimSize(0), input.getDimSize(1)};
  outputShape.append(spatial->begin(), spatial->end());
  return expectShape(op, ("a " + outputName).str(), output, outputShape);
}

/// Checks that max pooling's indices are integers shaped as its output.
static LogicalResult verifyIndices(Operation *op, RankedTensorType indices,
                                   RankedTensorType output) {
  return expectShape(op, "indices", indices, output.getShape());
}

/// The elements of one pooling window.
static int64_t getWindowSize(ArrayRef<int64_t> kernel) {
  int64_t size = 1;
  for (int64_t extent : kernel)
    size *= extent;
  return size;
}

template <typename MaxPoolOp> static LogicalResult verifyMaxPool(MaxPoolOp op) {
  if (failed(verifyPool(op, op.getInput().getType(), op.getResult().getType(),
                        "result", op.getKernelSize(), op.getStride(),
                        op.getPadding(), op.getDilation(), op.getCeilMode())))
    return failure();
  return verifyIndices(op, op.getIndices().getType(), op.getResult().getType());
}

template <typename MaxPoolBackwardOp>
static LogicalResult verifyMaxPoolBackward(MaxPoolBackwardOp op) {
  if (failed(verifyPool(op, op.getType(), op.getGradOutput().getType(),
                        "grad_output", op.getKernelSize(), op.getStride(),
                        op.getPadding(), op.getDilation(), op.getCeilMode())))
    return failure();
  return verifyIndices(op, op.getIndices().getType(),
                       op.getGradOutput().getType());
}

/// Average pooling has no dilation: 1 per spatial dimension.
template <typename AvgPoolOp>
static LogicalResult verifyAvgPool(AvgPoolOp op, RankedTensorType input,
                                   RankedTensorType output,
                                   StringRef outputName) {
  SmallVector<int64_t, 3> noDilation(op.getKernelSize().size(), 1);
  return verifyPool(op, input, output, outputName, op.getKernelSize(),
                    op.getStride(), op.getPadding(), noDilation,
                    op.getCeilMode());
}

LogicalResult MaxPool2dOp::verify() { return verifyMaxPool(*this); }
LogicalResult MaxPool3dOp::verify() { return verifyMaxPool(*this); }
int64_t MaxPool2dOp::getFlopCount() {
  return getNumElements(getResult().getType()) * getWindowSize(getKernelSize());
}
int64_t MaxPool3dOp::getFlopCount() {
  return getNumElements(getResult().getType()) * getWindowSize(getKernelSize());
}

LogicalResult MaxPool2dBackwardOp::verify() {
  return verifyMaxPoolBackward(*this);
}
LogicalResult MaxPool3dBackwardOp::verify() {
  return verifyMaxPoolBackward(*this);
}
int64_t MaxPool2dBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}
int64_t MaxPool3dBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}

LogicalResult AvgPool2dOp::verify() {
  return verifyAvgPool(*this, getInput().getType(), getType(), "result");
}
LogicalResult AvgPool3dOp::verify() {
  return verifyAvgPool(*this, getInput().getType(), getType(), "result");
}
int64_t AvgPool2dOp::getFlopCount() {
  return getNumElements(getType()) * getWindowSize(getKernelSize());
}
int64_t AvgPool3dOp::getFlopCount() {
  return getNumElements(getType()) * getWindowSize(getKernelSize());
}

LogicalResult AvgPool2dBackwardOp::verify() {
  return verifyAvgPool(*this, getType(), getGradOutput().getType(),
                       "grad_output");
}
LogicalResult AvgPool3dBackwardOp::verify() {
  return verifyAvgPool(*this, getType(), getGradOutput().getType(),
                       "grad_output");
}
int64_t AvgPool2dBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType()) *
         getWindowSize(getKernelSize());
}
int64_t AvgPool3dBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType()) *
         getWindowSize(getKernelSize());
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

LogicalResult UpsampleNearest2dOp::verify() {
  return verifyResize(*this, getInput().getType(), "input", getType(),
                      "result");
}

/// One copy per output element.
int64_t UpsampleNearest2dOp::getFlopCount() {
  return getNumElements(getType());
}

LogicalResult UpsampleNearest2dBackwardOp::verify() {
  return verifyResize(*this, getGradOutput().getType(), "grad_output",
                      getType(), "result");
}

/// One addition per output gradient element.
int64_t UpsampleNearest2dBackwardOp::getFlopCount() {
  return getNumElements(getGradOutput().getType());
}
