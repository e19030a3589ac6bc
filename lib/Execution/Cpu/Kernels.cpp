//===- Kernels.cpp - ATen kernels of the nn ops ---------------------------===//
//
// One ATen computation per nn op, following ATen's own derivative formulas
// for the backward ops; an op that is one ATen call by name has it from the
// op table, the others here. Where ATen has an `_out` kernel, results are
// written straight into the tensors the executor gives (their arena slots);
// other results are fresh tensors that the executor copies there. Backward ops
// that ATen implements from the input's sizes only (pooling, a convolution's
// input gradient) get their destination, which has that size, as the input.
// Rank-4 and rank-5 values may be channels-last (kernelTakesChannelsLast).
// Views (nn.reshape, nn.flatten) have no kernel: the
// executor reinterprets their source's bytes. A kernel never gets an output
// that aliases one of its operands (the executor gives an update of an
// argument the op reads a temporary), so kernels need not be alias-safe.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Execution/Random.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::remat;
using Tensors = std::vector<at::Tensor>;

std::optional<at::ScalarType> mlir::remat::getScalarType(Type type) {
  if (type.isF32())
    return at::kFloat;
  if (type.isF64())
    return at::kDouble;
  if (type.isF16())
    return at::kHalf;
  if (type.isBF16())
    return at::kBFloat16;
  if (type.isInteger(64))
    return at::kLong;
  if (type.isInteger(32))
    return at::kInt;
  if (type.isInteger(1))
    return at::kBool;
  if (type.isInteger(8))
    return at::kByte;
  return std::nullopt;
}

at::Tensor mlir::remat::getDropoutMask(int64_t seedValue, double p,
                                       at::IntArrayRef shape,
                                       at::ScalarType type,
                                       int64_t firstIndex) {
  at::Tensor mask = at::empty(shape, at::kFloat);
  float *data = mask.data_ptr<float>();
  uint64_t key = mixBits(static_cast<uint64_t>(seedValue));
  for (int64_t i = 0, e = mask.numel(); i < e; ++i)
    data[i] = getUniform(key, firstIndex + i) >= p ? 1.0f : 0.0f;
  return mask.to(type);
}

at::Tensor mlir::remat::getBernoulliSample(int64_t seedValue, double p,
                                           at::IntArrayRef shape,
                                           at::ScalarType type) {
  at::Tensor sample = at::empty(shape, at::kFloat);
  float *data = sample.data_ptr<float>();
  uint64_t key = mixBits(static_cast<uint64_t>(seedValue));
  for (int64_t i = 0, e = sample.numel(); i < e; ++i)
    data[i] = getUniform(key, i) < p ? 1.0f : 0.0f;
  return sample.to(type);
}

/// An MLIR array of sizes as ATen's.
static at::IntArrayRef ref(llvm::ArrayRef<int64_t> values) {
  return at::IntArrayRef(values.data(), values.size());
}

static std::vector<int64_t> shapeOf(Type type) {
  auto shape = cast<RankedTensorType>(type).getShape();
  return std::vector<int64_t>(shape.begin(), shape.end());
}

/// `tensor` [..., K] as a matrix [rows, K] (a vector as one row); unlike
/// reshape({-1, K}), also when K or the rows are 0.
static at::Tensor asRows(const at::Tensor &tensor) {
  return tensor.dim() == 1 ? tensor.unsqueeze(0) : tensor.flatten(0, -2);
}

static at::Tensor emptyOf(Type type) {
  return at::empty(shapeOf(type),
                   *getScalarType(cast<RankedTensorType>(type).getElementType()));
}

namespace {
/// Runs the kernels of one op; `in` are its operands in order.
class KernelRunner {
public:
  KernelRunner(Operation *op, ArrayRef<at::Tensor> in,
               ArrayRef<at::Tensor> outs)
      : op(op), in(in), outs(outs) {}

  FailureOr<Tensors> run();

private:
  at::Tensor resultLike(unsigned index = 0) {
    return emptyOf(op->getResult(index).getType());
  }
  std::vector<int64_t> resultShape(unsigned index = 0) {
    return shapeOf(op->getResult(index).getType());
  }

  std::optional<Tensors> elementwise();
  std::optional<Tensors> linear();
  std::optional<Tensors> convolution();
  std::optional<Tensors> poolingAndResizing();
  std::optional<Tensors> normalization();
  std::optional<Tensors> shapes();
  std::optional<Tensors> attention();
  std::optional<Tensors> losses();
  std::optional<Tensors> optimizers();

  /// The destination of result `index`.
  at::Tensor &out(unsigned index = 0) {
    return const_cast<at::Tensor &>(outs[index]);
  }

  Operation *op;
  ArrayRef<at::Tensor> in;
  ArrayRef<at::Tensor> outs;
};
} // namespace

std::optional<Tensors> KernelRunner::elementwise() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::ReluOp) {
        // ATen's relu is clamp_min(x, 0); its _out form would compute in a
        // fresh tensor and copy.
        return Tensors{at::clamp_min_out(out(), in[0], 0)};
      })
      .Case([&](nn::ReluBackwardOp) {
        return Tensors{at::threshold_backward_out(out(), in[0], in[1], 0)};
      })
      .Case([&](nn::GeluOp o) {
        return Tensors{at::gelu_out(out(), in[0], o.getApproximate().str())};
      })
      .Case([&](nn::GeluBackwardOp o) {
        return Tensors{at::gelu_backward_out(out(), in[0], in[1],
                                             o.getApproximate().str())};
      })
      .Case([&](nn::HardtanhOp o) {
        return Tensors{at::hardtanh_out(out(), in[0],
                                        o.getMinVal().convertToDouble(),
                                        o.getMaxVal().convertToDouble())};
      })
      .Case([&](nn::HardtanhBackwardOp o) {
        return Tensors{at::hardtanh_backward_out(
            out(), in[0], in[1], o.getMinVal().convertToDouble(),
            o.getMaxVal().convertToDouble())};
      })
      .Case([&](nn::AddScalarOp o) {
        return Tensors{at::add(in[0], o.getScalar().convertToDouble())};
      })
      .Case([&](nn::SubScalarOp o) {
        return Tensors{at::sub(in[0], o.getScalar().convertToDouble())};
      })
      .Case([&](nn::MulScalarOp o) {
        return Tensors{at::mul(in[0], o.getScalar().convertToDouble())};
      })
      .Case([&](nn::DivScalarOp o) {
        return Tensors{at::div(in[0], o.getScalar().convertToDouble())};
      })
      .Case([&](nn::PowScalarOp o) {
        return Tensors{
            at::pow_out(out(), in[0], o.getScalar().convertToDouble())};
      })
      .Case<nn::DropoutOp, nn::DropoutBackwardOp>([&](auto o) {
        double p = o.getP().convertToDouble();
        at::Tensor mask = getDropoutMask(in[1].item<int64_t>(), p,
                                         in[0].sizes(), in[0].scalar_type());
        return Tensors{at::mul(at::mul(in[0], mask), 1.0 / (1.0 - p))};
      })
      .Case([&](nn::BernoulliOp o) {
        return Tensors{getBernoulliSample(
            in[0].item<int64_t>(), o.getP().convertToDouble(), resultShape(),
            *getScalarType(o.getType().getElementType()))};
      })
      .Case([&](nn::FullOp o) {
        at::Tensor result = resultLike();
        result.fill_(o.getValue().convertToDouble());
        return Tensors{result};
      })
      .Case([&](nn::ConvertOp) { return Tensors{out().copy_(in[0])}; })
      .Case([&](nn::BroadcastToOp) {
        return Tensors{in[0].expand(resultShape())};
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<Tensors> KernelRunner::linear() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::LinearOp o) {
        c10::optional<at::Tensor> bias;
        if (o.getBias())
          bias = in[2];
        return Tensors{at::linear_out(out(), in[0], in[1], bias)};
      })
      .Case([&](nn::LinearBackwardInputOp) {
        return Tensors{at::matmul(in[0], in[1])};
      })
      .Case([&](nn::LinearBackwardWeightOp) {
        return Tensors{at::mm(asRows(in[0]).t(), asRows(in[1]))};
      })
      .Case([&](nn::LinearBackwardBiasOp) {
        return Tensors{asRows(in[0]).sum(0)};
      })
      .Case([&](nn::MatmulOp) {
        return Tensors{at::matmul_out(out(), in[0], in[1])};
      })
      .Case([&](nn::MatmulBackwardLhsOp) {
        return Tensors{at::matmul(in[0], in[1].transpose(-1, -2))};
      })
      .Case([&](nn::MatmulBackwardRhsOp) {
        return Tensors{at::matmul(in[1].transpose(-1, -2), in[0])};
      })
      .Case([&](nn::EmbeddingOp o) {
        return Tensors{at::embedding(in[0], in[1], int64_t(o.getPaddingIdx()))};
      })
      .Case([&](nn::EmbeddingBackwardOp o) {
        return Tensors{at::embedding_dense_backward(
            in[0], in[1], resultShape()[0], int64_t(o.getPaddingIdx()), false)};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `tensor` (rank 4 or 5) is stored channels-last, not contiguously.
static bool isChannelsLast(const at::Tensor &tensor) {
  if (tensor.dim() != 4 && tensor.dim() != 5)
    return false;
  return !tensor.is_contiguous() &&
         tensor.is_contiguous(tensor.dim() == 4
                                  ? at::MemoryFormat::ChannelsLast
                                  : at::MemoryFormat::ChannelsLast3d);
}

/// `weight` in the format of `activation`: ATen's convolutions compute
/// channels-last when the input or the weight is, so a channels-last
/// activation with a contiguous weight (a parameter) takes a copy of the
/// weight, which is small, where the other way it takes a copy of the
/// activation.
static at::Tensor likeActivation(const at::Tensor &weight,
                                 const at::Tensor &activation) {
  if (!isChannelsLast(activation))
    return weight;
  return weight.contiguous(activation.dim() == 4
                               ? at::MemoryFormat::ChannelsLast
                               : at::MemoryFormat::ChannelsLast3d);
}

/// `weight`'s bytes viewed in `activation`'s format, without a copy: for a
/// kernel that reads the weight's shape and format only.
static at::Tensor viewLikeActivation(const at::Tensor &weight,
                                     const at::Tensor &activation) {
  if (!isChannelsLast(activation) || !weight.is_contiguous())
    return weight;
  std::vector<int64_t> strides =
      weight.dim() == 4 ? c10::get_channels_last_strides_2d(weight.sizes())
                        : c10::get_channels_last_strides_3d(weight.sizes());
  return weight.as_strided(weight.sizes(), strides);
}

/// Batch norm's gradients (training mode), the input's computed into
/// `gradInput` one batch element at a time: ATen's kernel allocates a second
/// input-sized buffer besides its result. The per-channel sums are ATen's
/// (grad_weight = sum((x - mean) * dy) * invstd, grad_bias = sum(dy)); each
/// element's gradient follows ATen's formula,
///   (dy - sum(dy) / n - (x - mean) * k) * invstd * weight,
///   k = sum((x - mean) * dy) * invstd^2 / n,
/// with one batch element's (x - mean) * k as the only temporary.
static Tensors
batchNormBackwardBySample(const at::Tensor &gradOutput, const at::Tensor &input,
                          const at::Tensor &weight, const at::Tensor &mean,
                          const at::Tensor &invstd, at::Tensor &gradInput) {
  auto sums = at::native_batch_norm_backward(
      gradOutput, input, weight, c10::nullopt, c10::nullopt, mean, invstd,
      /*train=*/true, /*eps=*/1e-5, {false, true, true});
  at::Tensor gradWeight = std::get<1>(sums), gradBias = std::get<2>(sums);
  double count = double(input.numel() / input.size(1));
  // Per-channel factors shaped [C, 1, ...] against one element's [C, ...].
  std::vector<int64_t> channelShape(input.dim() - 1, 1);
  channelShape[0] = input.size(1);
  auto perChannel = [&](const at::Tensor &values) {
    return values.view(channelShape);
  };
  at::Tensor k = perChannel(gradWeight.mul(invstd).div_(count));
  at::Tensor gradMean = perChannel(gradBias.div(count));
  at::Tensor channelMean = perChannel(mean), channelInvstd = perChannel(invstd);
  at::Tensor channelWeight = perChannel(weight);
  for (int64_t i = 0, e = input.size(0); i < e; ++i) {
    at::Tensor projection = at::sub(input[i], channelMean).mul_(k);
    at::Tensor element = gradInput[i];
    at::sub_out(element, gradOutput[i], gradMean)
        .sub_(projection)
        .mul_(channelInvstd)
        .mul_(channelWeight);
  }
  return {gradInput, gradWeight, gradBias};
}

template <typename ConvOp> static ConvolutionGeometry geometryOf(ConvOp op) {
  auto copy = [](llvm::ArrayRef<int64_t> values) {
    return std::vector<int64_t>(values.begin(), values.end());
  };
  return {copy(op.getStride()), copy(op.getPadding()), copy(op.getDilation())};
}

std::optional<Tensors> KernelRunner::convolution() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case<nn::Conv2dOp, nn::Conv3dOp>([&](auto o) {
        c10::optional<at::Tensor> bias;
        if (o.getBias())
          bias = in[2];
        if (convolvesAsProduct(op)) {
          convolutionAsProduct(in[0], in[1], bias, geometryOf(o), out());
          return Tensors{out()};
        }
        std::vector<int64_t> noPadding(o.getStride().size(), 0);
        return Tensors{at::convolution(
            in[0], likeActivation(in[1], out()), bias, ref(o.getStride()),
            ref(o.getPadding()), ref(o.getDilation()), false, noPadding,
            int64_t(o.getGroups()))};
      })
      .Case<nn::Conv2dBackwardInputOp, nn::Conv3dBackwardInputOp>([&](auto o) {
        // ATen's own backward, as autograd calls it (its fastest path:
        // oneDNN where it applies). The input's values are not read for
        // the input gradient, only its shape: the destination gives it.
        std::vector<int64_t> noPadding(o.getStride().size(), 0);
        auto grads = at::convolution_backward(
            in[0], out(), likeActivation(in[1], out()), c10::nullopt,
            ref(o.getStride()), ref(o.getPadding()), ref(o.getDilation()),
            false, noPadding, int64_t(o.getGroups()), {true, false, false});
        return Tensors{std::get<0>(grads)};
      })
      .Case<nn::Conv2dBackwardWeightOp, nn::Conv3dBackwardWeightOp>(
          [&](auto o) {
            if (convolvesAsProduct(op)) {
              convolutionWeightGradientAsProduct(in[0], in[1], geometryOf(o),
                                                 out());
              return Tensors{out()};
            }
            // Only the weight's shape and format are read: a view of the
            // destination has them, and allocates nothing (an allocation of
            // the result's size would take the result's slot, KernelLoans).
            at::Tensor weightShaped = viewLikeActivation(
                out(), isChannelsLast(in[1]) ? in[1] : in[0]);
            std::vector<int64_t> noPadding(o.getStride().size(), 0);
            auto grads = at::convolution_backward(
                in[0], in[1], weightShaped, c10::nullopt, ref(o.getStride()),
                ref(o.getPadding()), ref(o.getDilation()), false, noPadding,
                int64_t(o.getGroups()), {false, true, false});
            return Tensors{std::get<1>(grads)};
          })
      .Case<nn::Conv2dBackwardBiasOp, nn::Conv3dBackwardBiasOp>([&](auto) {
        // Summed over every dimension but the channels.
        std::vector<int64_t> dims = {0};
        for (int64_t d = 2; d < in[0].dim(); ++d)
          dims.push_back(d);
        return Tensors{in[0].sum(dims)};
      })
      .Default([](Operation *) { return std::nullopt; });
}

// The pooling gradients read their input for its shape and format only:
// their destination, which has both, stands in for it.
std::optional<Tensors> KernelRunner::poolingAndResizing() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::MaxPool2dOp o) {
        at::max_pool2d_with_indices_out(
            out(0), out(1), in[0], ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), ref(o.getDilation()), o.getCeilMode());
        return Tensors{out(0), out(1)};
      })
      .Case([&](nn::MaxPool2dBackwardOp o) {
        return Tensors{at::max_pool2d_with_indices_backward_out(
            out(), in[0], out(), ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), ref(o.getDilation()), o.getCeilMode(), in[1])};
      })
      .Case([&](nn::AvgPool2dOp o) {
        return Tensors{at::avg_pool2d_out(out(), in[0], ref(o.getKernelSize()),
                                          ref(o.getStride()),
                                      ref(o.getPadding()), o.getCeilMode(),
                                      o.getCountIncludePad())};
      })
      .Case([&](nn::AvgPool2dBackwardOp o) {
        return Tensors{at::avg_pool2d_backward_out(
            out(), in[0], out(), ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), o.getCeilMode(), o.getCountIncludePad(),
            c10::nullopt)};
      })
      .Case([&](nn::MaxPool3dOp o) {
        at::max_pool3d_with_indices_out(
            out(0), out(1), in[0], ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), ref(o.getDilation()), o.getCeilMode());
        return Tensors{out(0), out(1)};
      })
      .Case([&](nn::MaxPool3dBackwardOp o) {
        return Tensors{at::max_pool3d_with_indices_backward_out(
            out(), in[0], out(), ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), ref(o.getDilation()), o.getCeilMode(), in[1])};
      })
      .Case([&](nn::AvgPool3dOp o) {
        return Tensors{at::avg_pool3d_out(
            out(), in[0], ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), o.getCeilMode(), o.getCountIncludePad())};
      })
      .Case([&](nn::AvgPool3dBackwardOp o) {
        return Tensors{at::avg_pool3d_backward_out(
            out(), in[0], out(), ref(o.getKernelSize()), ref(o.getStride()),
            ref(o.getPadding()), o.getCeilMode(), o.getCountIncludePad(),
            c10::nullopt)};
      })
      .Case([&](nn::AdaptiveAvgPool2dOp) {
        std::vector<int64_t> shape = resultShape();
        return Tensors{
            at::adaptive_avg_pool2d_out(out(), in[0], {shape[2], shape[3]})};
      })
      .Case([&](nn::AdaptiveAvgPool2dBackwardOp) {
        return Tensors{at::_adaptive_avg_pool2d_backward(in[0], out())};
      })
      .Case([&](nn::UpsampleBilinear2dOp o) {
        std::vector<int64_t> shape = resultShape();
        return Tensors{at::upsample_bilinear2d_out(out(), in[0],
                                                   {shape[2], shape[3]},
                                               o.getAlignCorners(),
                                               c10::nullopt, c10::nullopt)};
      })
      .Case([&](nn::UpsampleNearest2dOp) {
        std::vector<int64_t> shape = resultShape();
        return Tensors{at::upsample_nearest2d_out(
            out(), in[0], {shape[2], shape[3]}, c10::nullopt, c10::nullopt)};
      })
      .Case([&](nn::UpsampleNearest2dBackwardOp) {
        std::vector<int64_t> inputShape = resultShape();
        return Tensors{at::upsample_nearest2d_backward_out(
            out(), in[0], {in[0].size(2), in[0].size(3)}, inputShape,
            c10::nullopt, c10::nullopt)};
      })
      .Case([&](nn::UpsampleBilinear2dBackwardOp o) {
        std::vector<int64_t> inputShape = resultShape();
        return Tensors{at::upsample_bilinear2d_backward_out(
            out(), in[0], {in[0].size(2), in[0].size(3)}, inputShape,
            o.getAlignCorners(), c10::nullopt, c10::nullopt)};
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<Tensors> KernelRunner::normalization() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::BatchNormOp o) {
        // Without running statistics: batch statistics only.
        // (The functional kernel: native_batch_norm.out had no CPU kernel in
        // LibTorch 1.13.)
        auto [result, mean, invstd] = at::native_batch_norm(
            in[0], in[1], in[2], c10::nullopt, c10::nullopt,
            /*training=*/true, /*momentum=*/0.0, o.getEps().convertToDouble());
        return Tensors{result, mean, invstd};
      })
      .Case([&](nn::BatchNormUpdateStatsOp o) {
        // ATen updates the running statistics in place: it updates them in
        // the op's own result slots (which may be the old statistics' own
        // buffers: copying a tensor onto itself does nothing).
        out(0).copy_(in[1]);
        out(1).copy_(in[2]);
        at::batch_norm_update_stats(in[0], out(0), out(1),
                                    o.getMomentum().convertToDouble());
        return Tensors{out(0), out(1)};
      })
      .Case([&](nn::BatchNormBackwardOp) {
        if (in[1].nbytes() >= kLargeValueBytes && in[1].size(0) > 1)
          return batchNormBackwardBySample(in[0], in[1], in[2], in[3], in[4],
                                           out(0));
        auto [gradInput, gradWeight, gradBias] = at::native_batch_norm_backward(
            in[0], in[1], in[2], c10::nullopt, c10::nullopt, in[3], in[4],
            /*train=*/true, /*eps=*/1e-5, {true, true, true});
        return Tensors{gradInput, gradWeight, gradBias};
      })
      .Case([&](nn::LayerNormOp o) {
        auto [out, mean, rstd] = at::native_layer_norm(
            in[0], in[1].sizes(), in[1], in[2], o.getEps().convertToDouble());
        return Tensors{out, mean.reshape(resultShape(1)),
                       rstd.reshape(resultShape(2))};
      })
      .Case([&](nn::LayerNormBackwardOp) {
        // ATen sizes the bias gradient from the bias: the weight has its shape.
        auto [gradInput, gradWeight, gradBias] = at::native_layer_norm_backward(
            in[0], in[1], in[4].sizes(), in[2], in[3], in[4], in[4],
            {true, true, true});
        return Tensors{gradInput, gradWeight, gradBias};
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<Tensors> KernelRunner::shapes() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::TransposeOp o) {
        return Tensors{in[0].transpose(int64_t(o.getDim0()), int64_t(o.getDim1()))};
      })
      .Case([&](nn::PermuteOp o) { return Tensors{in[0].permute(ref(o.getDims()))}; })
      .Case([&](nn::ConcatOp o) {
        return Tensors{at::cat_out(
            out(), std::vector<at::Tensor>(in.begin(), in.end()),
            int64_t(o.getDim()))};
      })
      .Case([&](nn::SliceOp o) {
        return Tensors{
            in[0].slice(int64_t(o.getDim()), int64_t(o.getStart()), int64_t(o.getEnd()), int64_t(o.getStep()))};
      })
      .Case([&](nn::SliceBackwardOp o) {
        return Tensors{at::slice_backward(in[0], resultShape(), int64_t(o.getDim()),
                                          int64_t(o.getStart()), int64_t(o.getEnd()),
                                          int64_t(o.getStep()))};
      })
      .Case([&](nn::SumOp o) {
        return Tensors{
            at::sum_out(out(), in[0], ref(o.getDims()), o.getKeepdim())};
      })
      .Case([&](nn::MeanOp o) {
        return Tensors{
            at::mean_out(out(), in[0], ref(o.getDims()), o.getKeepdim())};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// log_softmax of `logits` over the classes (dimension 1) into
/// `destination`. Where the classes are innermost in both (channels-last
/// per-pixel logits), it is the last-dimension log_softmax of their
/// classes-last views, which are contiguous: no copies.
static void logSoftmaxOverClasses(const at::Tensor &logits,
                                  at::Tensor destination) {
  int64_t rank = logits.dim();
  if (rank > 2 && logits.stride(1) == 1 && destination.stride(1) == 1) {
    std::vector<int64_t> classesLast = {0};
    for (int64_t d = 2; d < rank; ++d)
      classesLast.push_back(d);
    classesLast.push_back(1);
    at::Tensor lastDestination = destination.permute(classesLast);
    at::_log_softmax_out(lastDestination, logits.permute(classesLast), rank - 1,
                         false);
    return;
  }
  at::_log_softmax_out(destination, logits, 1, false);
}

/// Which labels count in the mean (not `ignoreIndex`), and the labels with
/// the ignored ones replaced by class 0, which indexes any logits.
static std::pair<at::Tensor, at::Tensor>
getCountedLabels(const at::Tensor &labels, int64_t ignoreIndex) {
  at::Tensor counted = labels.ne(ignoreIndex);
  return {counted, at::where(counted, labels, 0)};
}

/// Cross entropy (mean over the labels not ignored) of large logits
/// (kLargeValueBytes): ATen's makes contiguous copies of channels-last
/// logits; here the log-probabilities are the one logit-sized temporary.
static at::Tensor crossEntropyLarge(const at::Tensor &logits,
                                    const at::Tensor &labels,
                                    int64_t ignoreIndex) {
  at::Tensor logProbs = at::empty_like(logits);
  logSoftmaxOverClasses(logits, logProbs);
  auto [counted, classes] = getCountedLabels(labels, ignoreIndex);
  at::Tensor picked = logProbs.gather(1, classes.unsqueeze(1)).squeeze(1);
  return picked.masked_fill_(counted.logical_not(), 0.0)
      .sum()
      .div_(counted.sum().to(logits.scalar_type()))
      .neg_();
}

/// Cross entropy's gradient (mean over the labels not ignored) of large
/// logits (kLargeValueBytes) computed in `gradLogits`, with temporaries of
/// one value per label only: autograd's log-probabilities and their
/// gradient are two more logit-sized buffers. With s = grad / (labels
/// counted) for a counted label and 0 for an ignored one, the gradient is
/// softmax(logits) * s, less s at the label's class: autograd's log_softmax
/// backward of nll_loss's -s at the label.
static at::Tensor crossEntropyBackwardInPlace(const at::Tensor &gradLoss,
                                              const at::Tensor &logits,
                                              const at::Tensor &labels,
                                              int64_t ignoreIndex,
                                              at::Tensor &gradLogits) {
  auto [counted, classes] = getCountedLabels(labels, ignoreIndex);
  at::Tensor perLabel =
      at::where(counted, gradLoss.div(counted.sum().to(logits.scalar_type())),
                0.0)
          .to(logits.scalar_type())
          .unsqueeze(1);
  logSoftmaxOverClasses(logits, gradLogits);
  gradLogits.exp_().mul_(perLabel);
  gradLogits.scatter_add_(1, classes.unsqueeze(1), perLabel.neg_());
  return gradLogits;
}

std::optional<Tensors> KernelRunner::losses() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::SoftmaxOp o) {
        return Tensors{
            at::_softmax_out(out(), in[0], int64_t(o.getDim()), false)};
      })
      .Case([&](nn::SoftmaxBackwardOp o) {
        return Tensors{at::_softmax_backward_data_out(
            out(), in[0], in[1], int64_t(o.getDim()), in[1].scalar_type())};
      })
      .Case([&](nn::LogSoftmaxOp o) {
        return Tensors{
            at::_log_softmax_out(out(), in[0], int64_t(o.getDim()), false)};
      })
      .Case([&](nn::LogSoftmaxBackwardOp o) {
        return Tensors{at::_log_softmax_backward_data_out(
            out(), in[0], in[1], int64_t(o.getDim()), in[1].scalar_type())};
      })
      .Case([&](nn::CrossEntropyOp o) {
        if (in[0].nbytes() >= kLargeValueBytes)
          return Tensors{
              crossEntropyLarge(in[0], in[1], int64_t(o.getIgnoreIndex()))};
        return Tensors{at::cross_entropy_loss(in[0], in[1], {},
                                              at::Reduction::Mean,
                                              int64_t(o.getIgnoreIndex()), 0.0)};
      })
      .Case([&](nn::CrossEntropyBackwardOp o) {
        // As autograd: through log_softmax over the classes and nll_loss
        // (nll_loss2d for N-d logits, on [N, C, 1, rest] where they are not
        // 4-D, as PyTorch's nll_loss_nd views them), with no copies of the
        // logits; log_softmax's gradient goes straight into the result.
        const at::Tensor &logits = in[1], &labels = in[2];
        int64_t ignoreIndex = int64_t(o.getIgnoreIndex());
        if (logits.nbytes() >= kLargeValueBytes)
          return Tensors{crossEntropyBackwardInPlace(in[0], logits, labels,
                                                     ignoreIndex, out())};
        // The log-probabilities are computed in the result's slot, and
        // their gradient overwrites them there (log_softmax's backward reads
        // each element before it writes it: bit-identical to autograd's).
        at::Tensor &logProbs = out();
        at::_log_softmax_out(logProbs, logits, 1, false);
        at::Tensor counted =
            labels.ne(ignoreIndex).sum().to(logits.scalar_type());
        at::Tensor gradLogProbs;
        if (logits.dim() <= 2) {
          gradLogProbs =
              at::nll_loss_backward(in[0], logProbs, labels, {},
                                    at::Reduction::Mean, ignoreIndex, counted);
        } else {
          bool is4d = logits.dim() == 4;
          int64_t n = logits.size(0), c = logits.size(1);
          gradLogProbs =
              at::nll_loss2d_backward(
                  in[0], is4d ? logProbs : logProbs.view({n, c, 1, -1}),
                  is4d ? labels : labels.reshape({n, 1, -1}), {},
                  at::Reduction::Mean, ignoreIndex, counted)
                  .view(logits.sizes());
        }
        return Tensors{at::_log_softmax_backward_data_out(
            logProbs, gradLogProbs, logProbs, 1, logits.scalar_type())};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// ATen's flash-attention kernels for the CPU: they keep per query only the
/// log-sum-exp, and take grouped-query heads as they are. They refuse
/// dropout: with dropout_p > 0 the ops run AttentionDropout.cpp's math.
std::optional<Tensors> KernelRunner::attention() {
  // The mask and seed follow the tensors every form has.
  auto getCall = [&](auto o, unsigned firstOptional) {
    AttentionDropoutCall call{std::nullopt, o.getIsCausal(),
                              o.getScale().convertToDouble(),
                              o.getDropoutP().convertToDouble(), 0};
    unsigned next = firstOptional;
    if (o.getMask())
      call.mask = in[next++];
    if (o.getSeed())
      call.seed = in[next].template item<int64_t>();
    return call;
  };
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::AttentionOp o) {
        AttentionDropoutCall call = getCall(o, 3);
        if (o.getSeed()) {
          auto [output, logsumexp] =
              attentionWithDropout(call, in[0], in[1], in[2]);
          return Tensors{output, logsumexp};
        }
        auto [output, logsumexp] =
            at::_scaled_dot_product_flash_attention_for_cpu(
                in[0], in[1], in[2], /*dropout_p=*/0.0, call.causal, call.mask,
                call.scale);
        return Tensors{output, logsumexp};
      })
      .Case([&](nn::AttentionBackwardOp o) {
        AttentionDropoutCall call = getCall(o, 6);
        if (o.getSeed()) {
          auto [gradQuery, gradKey, gradValue] = attentionWithDropoutBackward(
              call, in[0], in[1], in[2], in[3], in[4], in[5]);
          return Tensors{gradQuery, gradKey, gradValue};
        }
        auto [gradQuery, gradKey, gradValue] =
            at::_scaled_dot_product_flash_attention_for_cpu_backward(
                in[0], in[1], in[2], in[3], in[4], in[5], /*dropout_p=*/0.0,
                call.causal, call.mask, call.scale);
        return Tensors{gradQuery, gradKey, gradValue};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// `destination` holding `value` (a copy unless it is already its buffer),
/// for a kernel that updates it in place.
static at::Tensor &startFrom(at::Tensor &destination, const at::Tensor &value) {
  if (!destination.is_same(value))
    destination.copy_(value);
  return destination;
}

/// Elements per chunk of an optimizer update: its temporaries are chunk
/// sized, not parameter sized. A multiple of every vector width, so that
/// ATen's vectorized loops split each chunk as they split the whole tensor
/// (only the last chunk has a scalar tail, the whole tensor's own): the
/// update rounds exactly as torch.optim's.
constexpr int64_t kOptimizerChunk = int64_t(1) << 15;

/// Runs `update` on matching chunks of `tensors` (one shape, all
/// contiguous, flattened), or once on the whole tensors when they are not.
static void forEachChunk(std::vector<at::Tensor> tensors,
                         llvm::function_ref<void(Tensors &)> update) {
  bool chunked = llvm::all_of(tensors, [&](const at::Tensor &tensor) {
    return tensor.is_contiguous() && tensor.sizes() == tensors.front().sizes();
  });
  int64_t elements = tensors.front().numel();
  if (!chunked || elements <= kOptimizerChunk) {
    update(tensors);
    return;
  }
  for (int64_t start = 0; start < elements; start += kOptimizerChunk) {
    int64_t length = std::min(kOptimizerChunk, elements - start);
    Tensors chunks;
    for (const at::Tensor &tensor : tensors)
      chunks.push_back(tensor.view(-1).narrow(0, start, length));
    update(chunks);
  }
}

namespace {
/// One buffer that an update's temporaries reuse from chunk to chunk.
class ChunkScratch {
public:
  /// The buffer's first elements shaped as `chunk` (contiguous).
  at::Tensor like(const at::Tensor &chunk) {
    if (!buffer.defined() || buffer.numel() < chunk.numel())
      buffer = at::empty({chunk.numel()}, chunk.options());
    return buffer.narrow(0, 0, chunk.numel()).view(chunk.sizes());
  }

private:
  at::Tensor buffer;
};
} // namespace

bool mlir::remat::kernelAllocatesResults(Operation *op) {
  if (convolvesAsProduct(op))
    return false;
  return isa<nn::Conv2dOp, nn::Conv3dOp, nn::Conv2dBackwardInputOp,
             nn::Conv3dBackwardInputOp, nn::Conv2dBackwardWeightOp,
             nn::Conv3dBackwardWeightOp, nn::Conv2dBackwardBiasOp,
             nn::Conv3dBackwardBiasOp, nn::BatchNormOp, nn::BatchNormBackwardOp,
             nn::LayerNormOp, nn::LayerNormBackwardOp, nn::AttentionOp,
             nn::AttentionBackwardOp, nn::AdaptiveAvgPool2dBackwardOp>(op);
}

bool mlir::remat::kernelTakesChannelsLast(Operation *op) {
  return isa<
      // Convolutions and their gradients.
      nn::Conv2dOp, nn::Conv3dOp, nn::Conv2dBackwardInputOp,
      nn::Conv3dBackwardInputOp, nn::Conv2dBackwardWeightOp,
      nn::Conv3dBackwardWeightOp, nn::Conv2dBackwardBiasOp,
      nn::Conv3dBackwardBiasOp,
      // Batch norm.
      nn::BatchNormOp, nn::BatchNormBackwardOp, nn::BatchNormUpdateStatsOp,
      // Pooling and resizing.
      nn::MaxPool2dOp, nn::MaxPool2dBackwardOp, nn::MaxPool3dOp,
      nn::MaxPool3dBackwardOp, nn::AvgPool2dOp, nn::AvgPool2dBackwardOp,
      nn::AdaptiveAvgPool2dOp, nn::AdaptiveAvgPool2dBackwardOp,
      nn::UpsampleBilinear2dOp, nn::UpsampleBilinear2dBackwardOp,
      nn::UpsampleNearest2dOp, nn::UpsampleNearest2dBackwardOp,
      // Element-wise.
      nn::ReluOp, nn::ReluBackwardOp, nn::GeluOp, nn::GeluBackwardOp,
      nn::SigmoidOp, nn::SigmoidBackwardOp, nn::TanhOp, nn::TanhBackwardOp,
      nn::HardtanhOp, nn::HardtanhBackwardOp, nn::HardswishOp,
      nn::HardswishBackwardOp, nn::HardsigmoidOp, nn::HardsigmoidBackwardOp,
      nn::SiluOp, nn::SiluBackwardOp, nn::AddOp, nn::SubOp, nn::MulOp,
      nn::DivOp, nn::AddScalarOp, nn::SubScalarOp, nn::MulScalarOp,
      nn::DivScalarOp, nn::DropoutOp, nn::DropoutBackwardOp,
      // Channel concatenation and its gradient's slices (computed as views
      // of their source, copied into their slots); reductions into their
      // slots.
      nn::ConcatOp, nn::SliceOp, nn::SumOp, nn::MeanOp,
      // Per-pixel cross entropy (kLargeValueBytes).
      nn::CrossEntropyOp, nn::CrossEntropyBackwardOp>(op);
}

bool mlir::remat::kernelUpdatesInPlace(Operation *op) {
  return isa<nn::SgdOp, nn::AdamOp>(op);
}

// The optimizer updates follow torch.optim's single-tensor CPU paths op for
// op (the same ATen calls in the same order, so the same rounding), in place
// in their destinations, which are normally the state's own buffers; chunk
// by chunk, so that their temporaries are small.
std::optional<Tensors> KernelRunner::optimizers() {
  return llvm::TypeSwitch<Operation *, std::optional<Tensors>>(op)
      .Case([&](nn::SgdOp o) {
        double decay = o.getWeightDecay().convertToDouble();
        double momentum = o.getMomentum().convertToDouble();
        double dampening = o.getDampening().convertToDouble();
        bool nesterov = o.getNesterov();
        double lr = o.getLr().convertToDouble();
        Tensors results{startFrom(out(0), in[0])};
        if (o.getMomentumBuffer())
          results.push_back(startFrom(out(1), in[2]));
        // param, grad and, with momentum, its buffer.
        std::vector<at::Tensor> tensors{results[0], in[1]};
        if (o.getMomentumBuffer())
          tensors.push_back(results[1]);
        ChunkScratch scratch;
        forEachChunk(tensors, [&](Tensors &chunk) {
          at::Tensor &param = chunk[0];
          at::Tensor step = chunk[1];
          if (decay != 0.0) {
            at::Tensor decayed = scratch.like(param);
            step = at::add_out(decayed, step, param, decay);
          }
          if (chunk.size() > 2) {
            at::Tensor &buffer = chunk[2];
            buffer.mul_(momentum).add_(step, 1.0 - dampening);
            if (nesterov) {
              at::Tensor lookahead = scratch.like(param);
              step = at::add_out(lookahead, step, buffer, momentum);
            } else {
              step = buffer;
            }
          }
          param.add_(step, -lr);
        });
        return results;
      })
      .Case([&](nn::AdamOp o) {
        double beta1 = o.getBeta1().convertToDouble();
        double beta2 = o.getBeta2().convertToDouble();
        double decay = o.getWeightDecay().convertToDouble();
        double lr = o.getLr().convertToDouble();
        double eps = o.getEps().convertToDouble();
        double t = in[4].item<double>();
        bool decoupled = o.getDecoupledWeightDecay();
        double correction1 = 1.0 - std::pow(beta1, t);
        double correction2 = 1.0 - std::pow(beta2, t);
        Tensors results{startFrom(out(0), in[0]), startFrom(out(1), in[2]),
                        startFrom(out(2), in[3])};
        ChunkScratch decayedScratch, denominatorScratch;
        forEachChunk(
            {results[0], in[1], results[1], results[2]}, [&](Tensors &chunk) {
              at::Tensor &param = chunk[0], &m = chunk[2], &v = chunk[3];
              at::Tensor grad = chunk[1];
              if (decay != 0.0 && !decoupled) {
                at::Tensor decayed = decayedScratch.like(param);
                grad = at::add_out(decayed, grad, param, decay);
              }
              // AdamW: the weight decays before the step, the gradient does
              // not.
              if (decay != 0.0 && decoupled)
                param.mul_(1.0 - lr * decay);
              m.lerp_(grad, 1.0 - beta1);
              v.mul_(beta2).addcmul_(grad, grad, 1.0 - beta2);
              at::Tensor denominator = denominatorScratch.like(v);
              at::sqrt_out(denominator, v)
                  .div_(std::sqrt(correction2))
                  .add_(eps);
              param.addcdiv_(m, denominator, -lr / correction1);
            });
        return results;
      })
      .Default([](Operation *) { return std::nullopt; });
}

// The ops whose kernel is one ATen call by name (the op table's
// atenOutKernel): runAtenOutKernel.
#define GEN_NN_ATEN_KERNELS
#include "remat/Dialect/NN/IR/NNOpTable.inc"

FailureOr<Tensors> KernelRunner::run() {
  if (op->getNumResults() == 1)
    if (std::optional<at::Tensor> result = runAtenOutKernel(op, out(), in))
      return Tensors{*result};
  for (auto family :
       {&KernelRunner::elementwise, &KernelRunner::linear,
        &KernelRunner::convolution, &KernelRunner::poolingAndResizing,
        &KernelRunner::normalization, &KernelRunner::shapes,
        &KernelRunner::attention, &KernelRunner::losses,
        &KernelRunner::optimizers})
    if (std::optional<Tensors> results = (this->*family)())
      return *results;
  return op->emitOpError("has no CPU kernel in remat-run");
}

FailureOr<Tensors> mlir::remat::runKernel(Operation *op,
                                          ArrayRef<at::Tensor> operands,
                                          ArrayRef<at::Tensor> outs) {
  if (failed(checkIndexOperands(op, operands)))
    return failure();
  try {
    return KernelRunner(op, operands, outs).run();
  } catch (const c10::Error &error) {
    return remat::emitOpError(op)
           << "failed in ATen: " << error.what_without_backtrace();
  } catch (const std::exception &error) {
    return remat::emitOpError(op) << "failed in ATen: " << error.what();
  }
}
