//===- ConvertNetworkOps.cpp - layers, pooling, norms and losses ----------===//
//
// Convolutions, 1-D, 2-D and 3-D, plain and transposed (the `aten::convNd` and
// `aten::conv_transposeNd` of scripted and exported graphs, the
// `aten::_convolution` of traced ones), batch and layer norm, pooling,
// upsampling, linear and matmul, embedding, softmax, attention, cross entropy,
// and the random ops (dropout, Bernoulli samples).
//
//===----------------------------------------------------------------------===//

#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNOps.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
using Node = torch::jit::Node;

std::optional<LogicalResult>
NodeConverter::convertNetworkOp(Node *node, llvm::StringRef kind) {
  if (kind == "aten::conv1d" || kind == "aten::conv2d" ||
      kind == "aten::conv3d" || kind.starts_with("aten::conv_transpose") ||
      kind == "aten::_convolution" || kind == "aten::convolution")
    return convertConvolution(node, kind);
  if (kind == "aten::lstm" || kind == "aten::gru" || kind == "aten::rnn_tanh" ||
      kind == "aten::rnn_relu")
    return convertRecurrent(node, kind);
  if (kind == "aten::batch_norm")
    return convertBatchNorm(node);
  if (kind == "aten::group_norm" || kind == "aten::instance_norm")
    return convertGroupNorm(node, kind == "aten::instance_norm");
  if (kind == "aten::layer_norm")
    return convertLayerNorm(node);
  if (kind == "aten::max_pool2d" || kind == "aten::max_pool3d")
    return convertMaxPool(node, /*withIndices=*/false, kind.ends_with("3d"));
  if (kind == "aten::max_pool2d_with_indices" ||
      kind == "aten::max_pool3d_with_indices")
    return convertMaxPool(node, /*withIndices=*/true,
                          kind.ends_with("3d_with_indices"));
  if (kind == "aten::avg_pool2d" || kind == "aten::avg_pool3d")
    return convertAvgPool(node, kind.ends_with("3d"));
  if (kind == "aten::adaptive_avg_pool2d") {
    FailureOr<Value> input = getTensor(node, 0);
    FailureOr<RankedTensorType> type = getResultType(node);
    if (failed(input) || failed(type))
      return failure();
    finish(node, nn::AdaptiveAvgPool2dOp::create(builder, loc, *type, *input));
    return success();
  }
  if (kind == "aten::adaptive_avg_pool3d")
    return convertGlobalAvgPool3d(node);
  if (kind == "aten::upsample_bilinear2d" || kind == "aten::upsample_nearest2d")
    return convertUpsample(node,
                           /*bilinear=*/kind == "aten::upsample_bilinear2d");
  if (kind == "aten::linear")
    return convertLinear(node);
  if (kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::bmm")
    return convertMatmul(node);
  if (kind == "aten::einsum")
    return convertEinsum(node);
  if (kind == "aten::addmm")
    return convertAddmm(node);
  if (kind == "aten::embedding")
    return convertEmbedding(node);
  if (kind == "aten::softmax" || kind == "aten::_softmax")
    return convertSoftmax(node, /*logarithmic=*/false);
  if (kind == "aten::log_softmax" || kind == "aten::_log_softmax")
    return convertSoftmax(node, /*logarithmic=*/true);
  if (kind == "aten::scaled_dot_product_attention")
    return convertAttention(node);
  if (kind == "aten::cross_entropy_loss")
    return convertCrossEntropy(node);
  if (kind == "aten::mse_loss")
    return convertMseLoss(node);
  if (kind == "aten::dropout")
    return convertDropout(node);
  if (kind == "aten::bernoulli")
    return convertBernoulli(node);
  return std::nullopt;
}

/// aten::adaptive_avg_pool3d to one value per channel (global average
/// pooling, as video classifiers end): the mean over D, H and W, kept as
/// dimensions of size 1.
LogicalResult NodeConverter::convertGlobalAvgPool3d(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> outputSize = getIntList(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(outputSize) || failed(type))
    return failure();
  if (type->getRank() != 5 ||
      llvm::any_of(type->getShape().drop_front(2),
                   [](int64_t size) { return size != 1; }))
    return emitNodeError(node)
           << "only global 3-D average pooling (output size 1) is supported, "
              "got a result of type "
           << *type;
  SmallVector<int64_t> dims = {2, 3, 4};
  finish(node, nn::MeanOp::create(builder, loc, *type, *input, dims,
                                  /*keepdim=*/true));
  return success();
}

/// A spatial parameter as one value per spatial dimension: [k] means [k, k]
/// (or [k, k, k] for a volume).
static FailureOr<SmallVector<int64_t>>
perDimension(FailureOr<SmallVector<int64_t>> list, bool volume) {
  if (succeeded(list) && list->size() == 1)
    list->append(volume ? 2 : 1, list->front());
  return list;
}

/// A convolution node's operands and geometry, whichever ATen op it is.
struct torchscript::ConvolutionCall {
  Value input, weight, bias;
  SmallVector<int64_t> stride, padding, dilation, outputPadding;
  int64_t groups = 1;
  bool transposed = false;
};

/// Reads `node` as a ConvolutionCall. The ATen ops order their arguments
/// three ways: convNd(x, w, b, stride, padding, dilation, groups),
/// conv_transposeNd(x, w, b, stride, padding, output_padding, groups,
/// dilation), and (_)convolution(x, w, b, stride, padding, dilation,
/// transposed, output_padding, groups, ...).
FailureOr<ConvolutionCall>
NodeConverter::getConvolutionCall(Node *node, llvm::StringRef kind) {
  ConvolutionCall call;
  bool isGeneric = kind == "aten::_convolution" || kind == "aten::convolution";
  call.transposed = kind.starts_with("aten::conv_transpose");
  size_t dilationIndex = call.transposed ? 7 : 5;
  size_t groupsIndex = isGeneric ? 8 : 6;
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> weight = getTensor(node, 1);
  FailureOr<Value> bias = getOptionalTensor(node, 2);
  FailureOr<SmallVector<int64_t>> stride = getIntList(node, 3);
  FailureOr<SmallVector<int64_t>> padding = getIntList(node, 4);
  FailureOr<SmallVector<int64_t>> dilation = getIntList(node, dilationIndex);
  FailureOr<int64_t> groups = getInt(node, groupsIndex);
  if (failed(input) || failed(weight) || failed(bias) || failed(stride) ||
      failed(padding) || failed(dilation) || failed(groups))
    return failure();
  if (isGeneric) {
    FailureOr<bool> transposed = getBool(node, 6);
    if (failed(transposed))
      return failure();
    call.transposed = *transposed;
  }
  if (call.transposed) {
    FailureOr<SmallVector<int64_t>> outputPadding =
        getIntList(node, isGeneric ? 7 : 5);
    if (failed(outputPadding))
      return failure();
    call.outputPadding = *outputPadding;
  }
  call.input = *input;
  call.weight = *weight;
  call.bias = *bias;
  call.stride = *stride;
  call.padding = *padding;
  call.dilation = *dilation;
  call.groups = *groups;
  return call;
}

/// `list` with one value per spatial dimension of a convolution with
/// `spatialDims` of them ([k] stands for [k] * spatialDims), or failure.
static FailureOr<SmallVector<int64_t>> perSpatialDim(ArrayRef<int64_t> list,
                                                     size_t spatialDims) {
  if (list.size() == spatialDims)
    return SmallVector<int64_t>(list);
  if (list.size() == 1)
    return SmallVector<int64_t>(spatialDims, list.front());
  return failure();
}

LogicalResult NodeConverter::convertConvolution(Node *node,
                                                llvm::StringRef kind) {
  FailureOr<ConvolutionCall> call = getConvolutionCall(node, kind);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(call) || failed(type))
    return failure();
  auto weightType = cast<RankedTensorType>(call->weight.getType());
  int64_t spatialDims = weightType.getRank() - 2;
  if (spatialDims < 1 || spatialDims > 3)
    return emitNodeError(node)
           << "only 1-D, 2-D and 3-D convolutions are supported, not "
           << spatialDims << "-D";
  SmallVector<SmallVector<int64_t> *> geometry = {&call->stride, &call->padding,
                                                  &call->dilation};
  if (call->transposed)
    geometry.push_back(&call->outputPadding);
  for (SmallVector<int64_t> *list : geometry) {
    FailureOr<SmallVector<int64_t>> expanded =
        perSpatialDim(*list, spatialDims);
    if (failed(expanded))
      return emitNodeError(node) << "expects one stride, padding, dilation "
                                    "and output padding per spatial dimension";
    *list = *expanded;
  }
  if (call->transposed)
    for (auto [outputPadding, stride] :
         llvm::zip(call->outputPadding, call->stride))
      if (outputPadding >= stride)
        return emitNodeError(node)
               << "expects output padding smaller than the stride (got "
               << outputPadding << " and " << stride << ")";
  // A 1-D convolution is the 2-D one over images of height 1.
  if (spatialDims == 1) {
    call->input = createUnsqueeze(node, call->input, 2, 1);
    call->weight = createUnsqueeze(node, call->weight, 2, 1);
    call->stride.insert(call->stride.begin(), 1);
    call->padding.insert(call->padding.begin(), 0);
    call->dilation.insert(call->dilation.begin(), 1);
    if (call->transposed)
      call->outputPadding.insert(call->outputPadding.begin(), 0);
  }
  SmallVector<int64_t> shape(type->getShape());
  if (spatialDims == 1)
    shape.insert(shape.begin() + 2, 1);
  auto convType = RankedTensorType::get(shape, type->getElementType());
  Value result =
      spatialDims == 3
          ? createConvolution<nn::Conv3dOp, nn::Conv3dBackwardInputOp>(
                node, *call, convType)
          : createConvolution<nn::Conv2dOp, nn::Conv2dBackwardInputOp>(
                node, *call, convType);
  if (spatialDims == 1)
    result = record(node, nn::ReshapeOp::create(builder, loc, *type, result));
  map(node->output(), result);
  return success();
}

/// The convolution `call` asks for, of type `type`: `ConvOp`, or for a
/// transposed convolution `BackwardInputOp` (the input gradient of the
/// convolution with the same weight; the result type carries the output
/// padding), then the bias added per channel.
template <typename ConvOp, typename BackwardInputOp>
Value NodeConverter::createConvolution(Node *node, const ConvolutionCall &call,
                                       RankedTensorType type) {
  if (!call.transposed)
    return record(node,
                  ConvOp::create(builder, loc, type, call.input, call.weight,
                                 call.bias, call.stride, call.padding,
                                 call.dilation, call.groups));
  Value result =
      record(node, BackwardInputOp::create(
                       builder, loc, type, call.input, call.weight, call.stride,
                       call.padding, call.dilation, call.groups));
  if (!call.bias)
    return result;
  // [C] -> [C, 1, ...] broadcasts over the spatial dimensions.
  Value channels = createUnsqueeze(node, call.bias, 1, type.getRank() - 2);
  return record(node, nn::AddOp::create(builder, loc, type, result, channels));
}

/// A [shape] tensor of ones or zeros for a missing affine parameter.
static Value createFilled(OpBuilder &builder, Location loc,
                          RankedTensorType type, double value) {
  return nn::FullOp::create(builder, loc, type,
                            builder.getF64FloatAttr(value));
}

LogicalResult NodeConverter::convertBatchNorm(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> weight = getOptionalTensor(node, 1);
  FailureOr<Value> bias = getOptionalTensor(node, 2);
  FailureOr<Value> runningMean = getOptionalTensor(node, 3);
  FailureOr<Value> runningVar = getOptionalTensor(node, 4);
  FailureOr<bool> training = getBool(node, 5);
  FailureOr<double> momentum = getDouble(node, 6);
  FailureOr<double> eps = getDouble(node, 7);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(weight) || failed(bias) || failed(runningMean) ||
      failed(runningVar) || failed(training) || failed(momentum) ||
      failed(eps) || failed(type))
    return failure();
  if (!*training)
    return emitNodeError(node)
           << "batch norm in inference mode; the importer imports the module "
              "in training mode, so the model itself asks for inference here";
  if (!*runningMean || !*runningVar)
    return emitNodeError(node)
           << "batch norm without running statistics "
              "(track_running_stats=False) is not supported";
  auto statsType = cast<RankedTensorType>(runningMean->getType());
  if (!*weight)
    weight = createFilled(builder, loc, statsType, 1.0);
  if (!*bias)
    bias = createFilled(builder, loc, statsType, 0.0);
  // The normalization itself, then the running statistics' update from the
  // same batch, as ATen's training-mode batch norm does in one kernel. A
  // buffer read by several batch norms sees each one's update.
  auto op = nn::BatchNormOp::create(
      builder, loc, TypeRange{*type, statsType, statsType}, *input, *weight,
      *bias, builder.getF64FloatAttr(*eps));
  finish(node, op);
  Value mean = bufferUpdates.lookup(*runningMean);
  Value var = bufferUpdates.lookup(*runningVar);
  auto update = nn::BatchNormUpdateStatsOp::create(
      builder, loc, TypeRange{statsType, statsType}, *input,
      mean ? mean : *runningMean, var ? var : *runningVar,
      builder.getF64FloatAttr(*momentum));
  createdOps.push_back({update, getModulePath(node), "update_stats"});
  bufferUpdates[*runningMean] = update.getNewRunningMean();
  bufferUpdates[*runningVar] = update.getNewRunningVar();
  return success();
}

LogicalResult NodeConverter::convertLayerNorm(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> normalizedShape = getIntList(node, 1);
  FailureOr<Value> weight = getOptionalTensor(node, 2);
  FailureOr<Value> bias = getOptionalTensor(node, 3);
  FailureOr<double> eps = getDouble(node, 4);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(normalizedShape) || failed(weight) ||
      failed(bias) || failed(eps) || failed(type))
    return failure();
  int64_t rank = type->getRank();
  int64_t normalized = normalizedShape->size();
  if (normalized > rank)
    return emitInputError(node, 1) << "has more dimensions than the input";
  auto affineType = RankedTensorType::get(*normalizedShape,
                                          type->getElementType());
  if (!*weight)
    weight = createFilled(builder, loc, affineType, 1.0);
  if (!*bias)
    bias = createFilled(builder, loc, affineType, 0.0);
  SmallVector<int64_t> statsShape(type->getShape().take_front(rank - normalized));
  statsShape.append(normalized, 1);
  auto statsType = RankedTensorType::get(statsShape, type->getElementType());
  auto op = nn::LayerNormOp::create(builder, loc,
                                    TypeRange{*type, statsType, statsType},
                                    *input, *weight, *bias,
                                    builder.getF64FloatAttr(*eps));
  finish(node, op);
  return success();
}

LogicalResult NodeConverter::convertMaxPool(Node *node, bool withIndices,
                                            bool volume) {
  FailureOr<Value> input = getTensor(node, 0);
  auto spatial = [&](size_t index) {
    return perDimension(getIntList(node, index), volume);
  };
  FailureOr<SmallVector<int64_t>> kernel = spatial(1);
  FailureOr<SmallVector<int64_t>> stride = spatial(2);
  FailureOr<SmallVector<int64_t>> padding = spatial(3);
  FailureOr<SmallVector<int64_t>> dilation = spatial(4);
  FailureOr<bool> ceilMode = getBool(node, 5);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(kernel) || failed(stride) || failed(padding) ||
      failed(dilation) || failed(ceilMode) || failed(type))
    return failure();
  if (stride->empty())
    stride = *kernel;
  auto indicesType =
      RankedTensorType::get(type->getShape(), builder.getI64Type());
  Operation *op =
      volume ? nn::MaxPool3dOp::create(builder, loc, *type, indicesType, *input,
                                       *kernel, *stride, *padding, *dilation,
                                       *ceilMode)
                   .getOperation()
             : nn::MaxPool2dOp::create(builder, loc, *type, indicesType, *input,
                                       *kernel, *stride, *padding, *dilation,
                                       *ceilMode)
                   .getOperation();
  finish(node, op, withIndices ? 2 : 1);
  return success();
}

LogicalResult NodeConverter::convertAvgPool(Node *node, bool volume) {
  FailureOr<Value> input = getTensor(node, 0);
  auto spatial = [&](size_t index) {
    return perDimension(getIntList(node, index), volume);
  };
  FailureOr<SmallVector<int64_t>> kernel = spatial(1);
  FailureOr<SmallVector<int64_t>> stride = spatial(2);
  FailureOr<SmallVector<int64_t>> padding = spatial(3);
  FailureOr<bool> ceilMode = getBool(node, 4);
  FailureOr<bool> countIncludePad = getBool(node, 5);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(kernel) || failed(stride) || failed(padding) ||
      failed(ceilMode) || failed(countIncludePad) || failed(type))
    return failure();
  if (!isNone(node, 6))
    return emitInputError(node, 6) << "is not supported (only None)";
  if (stride->empty())
    stride = *kernel;
  Operation *op = volume ? nn::AvgPool3dOp::create(builder, loc, *type, *input,
                                                   *kernel, *stride, *padding,
                                                   *ceilMode, *countIncludePad)
                               .getOperation()
                         : nn::AvgPool2dOp::create(builder, loc, *type, *input,
                                                   *kernel, *stride, *padding,
                                                   *ceilMode, *countIncludePad)
                               .getOperation();
  finish(node, op);
  return success();
}

/// upsample_bilinear2d(input, size, align_corners, scales...) and
/// upsample_nearest2d(input, size, scales...), the `.vec` forms included.
LogicalResult NodeConverter::convertUpsample(Node *node, bool bilinear) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<bool> alignCorners =
      bilinear ? getBool(node, 2) : FailureOr<bool>(false);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(alignCorners) || failed(type))
    return failure();
  // With scale factors ATen interpolates by 1/scale, which equals the size
  // ratio the nn op uses only when the sizes scale exactly.
  auto inputShape = cast<RankedTensorType>(input->getType()).getShape();
  // The scales: one list (the .vec forms) or one per dimension (H, W).
  size_t firstScale = bilinear ? 3 : 2;
  for (size_t index = firstScale; index < node->inputs().size(); ++index) {
    std::optional<c10::IValue> scales = getConstant(node, index);
    if (!scales || scales->isNone())
      continue;
    std::vector<double> factors;
    size_t firstDim = 0;
    if (scales->isDoubleList()) {
      factors = scales->toDoubleVector();
    } else if (scales->isDouble()) {
      factors = {scales->toDouble()};
      firstDim = index - firstScale;
    }
    for (size_t d = firstDim; d < firstDim + factors.size() && d < 2; ++d) {
      double scaled =
          static_cast<double>(inputShape[2 + d]) * factors[d - firstDim];
      if (scaled != static_cast<double>(type->getShape()[2 + d]))
        return emitInputError(node, index)
               << "scales a size by a factor that does not give a whole "
                  "size; give the output size instead";
    }
  }
  if (!bilinear) {
    finish(node, nn::UpsampleNearest2dOp::create(builder, loc, *type, *input));
    return success();
  }
  finish(node, nn::UpsampleBilinear2dOp::create(builder, loc, *type, *input,
                                                *alignCorners));
  return success();
}

LogicalResult NodeConverter::convertLinear(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> weight = getTensor(node, 1);
  FailureOr<Value> bias = getOptionalTensor(node, 2);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(weight) || failed(bias) || failed(type))
    return failure();
  finish(node,
         nn::LinearOp::create(builder, loc, *type, *input, *weight, *bias));
  return success();
}

LogicalResult NodeConverter::convertMatmul(Node *node) {
  FailureOr<Value> lhs = getTensor(node, 0);
  FailureOr<Value> rhs = getTensor(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(lhs) || failed(rhs) || failed(type))
    return failure();
  auto lhsType = cast<RankedTensorType>(lhs->getType());
  auto rhsType = cast<RankedTensorType>(rhs->getType());
  if (lhsType.getRank() < 2 || lhsType.getRank() != rhsType.getRank() ||
      lhsType.getShape().drop_back(2) != rhsType.getShape().drop_back(2))
    return emitNodeError(node)
           << "operands of types " << lhsType << " and " << rhsType
           << ": only products of equal rank (at least 2) and equal batch "
              "dimensions are supported";
  finish(node, nn::MatmulOp::create(builder, loc, *type, *lhs, *rhs));
  return success();
}

LogicalResult NodeConverter::convertAddmm(Node *node) {
  // addmm(self, mat1, mat2, *, beta=1, alpha=1): self + mat1 @ mat2, as
  // Hugging Face's Conv1D (GPT-2) computes its layers. A matmul, then the
  // broadcast add of the bias.
  FailureOr<Value> bias = getTensor(node, 0);
  FailureOr<Value> lhs = getTensor(node, 1);
  FailureOr<Value> rhs = getTensor(node, 2);
  FailureOr<double> beta = getDouble(node, 3);
  FailureOr<double> alpha = getDouble(node, 4);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(bias) || failed(lhs) || failed(rhs) || failed(beta) ||
      failed(alpha) || failed(type))
    return failure();
  if (*beta != 1.0)
    return emitInputError(node, 3) << "is not supported (only 1)";
  if (*alpha != 1.0)
    return emitInputError(node, 4) << "is not supported (only 1)";
  auto product = nn::MatmulOp::create(builder, loc, *type, *lhs, *rhs);
  createdOps.push_back({product, getModulePath(node)});
  finish(node, nn::AddOp::create(builder, loc, *type, product, *bias));
  return success();
}

LogicalResult NodeConverter::convertEmbedding(Node *node) {
  FailureOr<Value> weight = getTensor(node, 0);
  FailureOr<Value> indices = getTensor(node, 1);
  FailureOr<int64_t> paddingIdx = getInt(node, 2);
  FailureOr<bool> scaleByFrequency = getBool(node, 3);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(weight) || failed(indices) || failed(paddingIdx) ||
      failed(scaleByFrequency) || failed(type))
    return failure();
  if (*scaleByFrequency)
    return emitInputError(node, 3) << "is not supported (only False)";
  finish(node, nn::EmbeddingOp::create(builder, loc, *type, *weight, *indices,
                                       *paddingIdx));
  return success();
}

LogicalResult NodeConverter::convertSoftmax(Node *node, bool logarithmic) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(type))
    return failure();
  FailureOr<int64_t> dim = getDim(node, 1, type->getRank());
  if (failed(dim))
    return failure();
  // softmax(x, dim, dtype) takes a dtype; _softmax(x, dim, half_to_float).
  std::optional<c10::IValue> third = getConstant(node, 2);
  if (!third || !(third->isNone() || (third->isBool() && !third->toBool())))
    return emitInputError(node, 2) << "is not supported (only None or False)";
  Operation *op =
      logarithmic
          ? nn::LogSoftmaxOp::create(builder, loc, *type, *input, *dim)
                .getOperation()
          : nn::SoftmaxOp::create(builder, loc, *type, *input, *dim)
                .getOperation();
  finish(node, op);
  return success();
}

/// aten::mse_loss(input, target, reduction): (input - target)^2, reduced
/// over every element (reduction 1: mean, 2: sum) or not at all (0).
LogicalResult NodeConverter::convertMseLoss(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> target = getTensor(node, 1);
  FailureOr<int64_t> reduction = getInt(node, 2);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(target) || failed(reduction) || failed(type))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  if (target->getType() != inputType)
    return emitInputError(node, 1) << "has type " << target->getType()
                                   << ", not the input's " << inputType;
  if (*reduction < 0 || *reduction > 2)
    return emitInputError(node, 2)
           << "is " << *reduction << "; expected 0 (none), 1 (mean) or 2 (sum)";
  Value difference =
      record(node, nn::SubOp::create(builder, loc, inputType, *input, *target),
             "difference");
  if (*reduction == 0) {
    finish(node,
           nn::MulOp::create(builder, loc, inputType, difference, difference));
    return success();
  }
  Value squares = record(
      node, nn::MulOp::create(builder, loc, inputType, difference, difference),
      "squares");
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
  if (*reduction == 1)
    finish(node, nn::MeanOp::create(builder, loc, *type, squares, dims,
                                    /*keepdim=*/false));
  else
    finish(node, nn::SumOp::create(builder, loc, *type, squares, dims,
                                   /*keepdim=*/false));
  return success();
}

LogicalResult NodeConverter::convertCrossEntropy(Node *node) {
  FailureOr<Value> logits = getTensor(node, 0);
  FailureOr<Value> labelValues = getTensor(node, 1);
  FailureOr<int64_t> reduction = getInt(node, 3);
  FailureOr<int64_t> ignoreIndex = getInt(node, 4);
  FailureOr<double> smoothing = getDouble(node, 5);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(logits) || failed(labelValues) || failed(reduction) ||
      failed(ignoreIndex) || failed(smoothing) || failed(type))
    return failure();
  if (!isNone(node, 2))
    return emitInputError(node, 2) << "is not supported (only None)";
  if (*reduction != 1)
    return emitInputError(node, 3) << "is not supported (only 'mean')";
  if (*smoothing != 0.0)
    return emitInputError(node, 5) << "is not supported (only 0)";
  labels.insert(*labelValues);
  finish(node, nn::CrossEntropyOp::create(builder, loc, *type, *logits,
                                          *labelValues, *ignoreIndex));
  return success();
}

LogicalResult NodeConverter::convertAttention(Node *node) {
  // scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal,
  // *, scale, enable_gqa). A boolean mask that is a constant was made
  // additive (or dropped) before: simplifyAttentionMasks.
  FailureOr<Value> query = getTensor(node, 0);
  FailureOr<Value> key = getTensor(node, 1);
  FailureOr<Value> value = getTensor(node, 2);
  FailureOr<Value> mask = getOptionalTensor(node, 3);
  FailureOr<double> dropout = getDouble(node, 4);
  FailureOr<bool> causal = getBool(node, 5);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(query) || failed(key) || failed(value) || failed(mask) ||
      failed(dropout) || failed(causal) || failed(type))
    return failure();
  Value operands[] = {*query, *key, *value};
  for (size_t index : {0, 1, 2})
    if (cast<RankedTensorType>(operands[index].getType()).getRank() != 4)
      return emitInputError(node, index)
             << "is not supported: attention takes 4-D tensors [batch, "
                "heads, length, head dimension]";
  auto queryType = cast<RankedTensorType>(query->getType());
  auto valueType = cast<RankedTensorType>(value->getType());
  if (valueType != key->getType())
    return emitInputError(node, 2)
           << "is not supported: the value must have the key's shape (the "
              "same head dimension), got "
           << valueType << " for key " << key->getType();
  if (*mask &&
      !isa<FloatType>(cast<RankedTensorType>(mask->getType()).getElementType()))
    return emitInputError(node, 3)
           << "is not supported: a boolean mask that is no constant (a "
              "buffer of the model, or computed from the inputs); a "
              "constant one is made additive";
  if (!(*dropout >= 0.0 && *dropout < 1.0))
    return emitInputError(node, 4)
           << "is " << llvm::formatv("{0}", llvm::format("%g", *dropout)).str()
           << ", not a probability in [0, 1)";
  double scale = 1.0 / std::sqrt(double(queryType.getDimSize(3)));
  if (!isNone(node, 6)) {
    FailureOr<double> given = getDouble(node, 6);
    if (failed(given))
      return failure();
    scale = *given;
  }
  auto logSumExpType = RankedTensorType::get(
      queryType.getShape().take_front(3), builder.getF32Type());
  // Dropout on the attention weights draws from its own seed, as a
  // dropout op would (PyTorch applies SDPA's dropout_p as given: models
  // pass 0 outside training).
  Value seed = *dropout > 0.0 ? addSeedArgument(node, "attention") : Value();
  finish(node, nn::AttentionOp::create(
                   builder, loc, TypeRange{*type, logSumExpType}, *query, *key,
                   *value, *mask, seed, builder.getBoolAttr(*causal),
                   builder.getF64FloatAttr(scale),
                   builder.getF64FloatAttr(*dropout)));
  return success();
}

LogicalResult NodeConverter::convertDropout(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> p = getDouble(node, 1);
  FailureOr<bool> train = getBool(node, 2);
  if (failed(input) || failed(p) || failed(train))
    return failure();
  if (!*train || *p == 0.0) {
    map(node->output(), *input);
    return success();
  }
  Value seed = addSeedArgument(node, "dropout");
  finish(node, nn::DropoutOp::create(builder, loc, input->getType(), *input,
                                     seed, builder.getF64FloatAttr(*p)));
  return success();
}

Value NodeConverter::addSeedArgument(Node *node, llvm::StringRef kind) {
  // One seed per random op, in program order: `<module path>.seed`, and
  // from the second random op on `.<count>` after it.
  std::string path = getModulePath(node);
  std::string name =
      llvm::formatv("{0}.seed", path.empty() ? kind.str() : path).str();
  if (randomOpCount++ > 0)
    name = llvm::formatv("{0}.{1}", name, randomOpCount).str();
  return addArgument(RankedTensorType::get({}, builder.getI64Type()), name,
                     ArgumentRole::Seed);
}

LogicalResult NodeConverter::convertBernoulli(Node *node) {
  // bernoulli.p(self, p, generator): self gives only the shape. The form
  // without p draws each element with the probability self holds.
  std::optional<c10::IValue> p = getConstant(node, 1);
  if (node->inputs().size() != 3 || !p || !(p->isDouble() || p->isInt()))
    return emitNodeError(node)
           << "only a constant probability is supported "
              "(bernoulli(x, p) or x.bernoulli_(p))";
  if (!isNone(node, 2))
    return emitInputError(node, 2) << "is not supported (only None)";
  FailureOr<double> probability = getDouble(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(probability) || failed(type))
    return failure();
  if (!isa<FloatType>(type->getElementType()))
    return emitNodeError(node) << "only floating-point samples are supported";
  if (*probability < 0.0 || *probability > 1.0)
    return emitInputError(node, 1)
           << "is " << *probability << ", not a probability in [0, 1]";
  Value seed = addSeedArgument(node, "bernoulli");
  finish(node, nn::BernoulliOp::create(builder, loc, *type, seed,
                                       builder.getF64FloatAttr(*probability)));
  return success();
}
