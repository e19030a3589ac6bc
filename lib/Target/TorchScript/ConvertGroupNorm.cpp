//===- ConvertGroupNorm.cpp - group and instance norm as layer norm -------===//
//
// `aten::group_norm` (nn.GroupNorm, the U-Nets of diffusion models) and
// `aten::instance_norm` without running statistics (nn.InstanceNorm2d's
// default) normalize each group of channels of each sample over the group's
// channels and positions. That is nn.layer_norm over the last dimension of
// the input reshaped to [N, groups, C / groups * positions], with unit
// weight and zero bias; the per-channel affine parameters then multiply and
// add, broadcast over the positions. Autodiff, the planner and both
// executors take these ops as they are.
//
//===----------------------------------------------------------------------===//

#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNOps.h"

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
using Node = torch::jit::Node;

/// Operand positions: group_norm(input, num_groups, weight, bias, eps,
/// cudnn_enabled); instance_norm(input, weight, bias, running_mean,
/// running_var, use_input_stats, momentum, eps, cudnn_enabled).
LogicalResult NodeConverter::convertGroupNorm(Node *node, bool isInstanceNorm) {
  size_t weightIndex = isInstanceNorm ? 1 : 2;
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> weight = getOptionalTensor(node, weightIndex);
  FailureOr<Value> bias = getOptionalTensor(node, weightIndex + 1);
  FailureOr<double> eps = getDouble(node, isInstanceNorm ? 7 : 4);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(weight) || failed(bias) || failed(eps) ||
      failed(type))
    return failure();
  ArrayRef<int64_t> shape = type->getShape();
  if (shape.size() < 2)
    return emitInputError(node, 0)
           << "is not supported: normalization needs [N, C, ...], got "
           << input->getType();
  int64_t channels = shape[1];
  int64_t groups = channels;
  if (isInstanceNorm) {
    FailureOr<bool> useInputStats = getBool(node, 5);
    if (failed(useInputStats))
      return failure();
    if (!isNone(node, 3) || !isNone(node, 4) || !*useInputStats)
      return emitNodeError(node)
             << "running statistics are not supported "
                "(track_running_stats=True): only instance norm over each "
                "sample's own statistics";
  } else {
    FailureOr<int64_t> given = getInt(node, 1);
    if (failed(given))
      return failure();
    groups = *given;
    if (groups <= 0 || channels % groups != 0)
      return emitInputError(node, 1)
             << "is " << groups << ", which does not divide the " << channels
             << " channels";
  }
  int64_t groupSize = channels / groups;
  for (int64_t size : shape.drop_front(2))
    groupSize *= size;
  Type element = type->getElementType();
  auto reshape = [&](Value value, ArrayRef<int64_t> to) {
    return record(
        node, nn::ReshapeOp::create(builder, loc,
                                    RankedTensorType::get(to, element), value));
  };
  Value grouped = reshape(*input, {shape[0], groups, groupSize});
  auto affineType = RankedTensorType::get({groupSize}, element);
  Value ones = record(node, nn::FullOp::create(builder, loc, affineType,
                                               builder.getF64FloatAttr(1.0)));
  Value zeros = record(node, nn::FullOp::create(builder, loc, affineType,
                                                builder.getF64FloatAttr(0.0)));
  auto statsType = RankedTensorType::get({shape[0], groups, 1}, element);
  Value normalized =
      record(node, nn::LayerNormOp::create(
                       builder, loc,
                       TypeRange{grouped.getType(), statsType, statsType},
                       grouped, ones, zeros, builder.getF64FloatAttr(*eps)));
  Value result = reshape(normalized, shape);
  // The affine parameters [C] as [C, 1, ...], broadcast over the positions.
  SmallVector<int64_t> perChannel(shape.size() - 1, 1);
  perChannel[0] = channels;
  if (*weight)
    result = record(node, nn::MulOp::create(builder, loc, *type, result,
                                            reshape(*weight, perChannel)));
  if (*bias)
    result = record(node, nn::AddOp::create(builder, loc, *type, result,
                                            reshape(*bias, perChannel)));
  map(node->output(0), result);
  return success();
}
