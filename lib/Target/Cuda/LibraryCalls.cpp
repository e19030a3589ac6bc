//===- LibraryCalls.cpp - nn ops as cuDNN, cuBLAS and runtime calls -------===//
//
// Every nn op that is not element-wise becomes one call of the runtime in
// Runtime/*.cuh (which calls cuDNN for convolutions, cuBLAS for linear and
// matmul, and its own kernels for the rest), with the op's static shapes and
// attributes as arguments. Views (reshape, flatten) are their source's bytes:
// nothing is emitted (only a plan made before views shared bytes, which gives
// a view its own slot, gets a copy); concatenation is cudaMemcpy2DAsync.
//
// An op that writes the new value of an argument (`remat.updates`) writes it
// into that argument's buffer, over the old value it may itself read. The
// runtime's optimizer kernels and the running statistics of batch norm are
// alias-safe (each element is read before it is written, by the thread that
// writes it: isAliasSafe lists these operand-result pairs); any other op
// whose result lands in the buffer of an argument it reads computes into a
// scratch area after the planned arena and is then copied over.
//
//===----------------------------------------------------------------------===//

#include "StepWriter.h"

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::cuda;

namespace {

/// The largest head dimension of Runtime/AttentionOps.cuh
/// (kAttentionMaxHeadDim): each thread holds a row of that many floats.
constexpr int64_t kMaxAttentionHeadDim = 256;

/// Writes the call statements of one op.
class CallWriter {
public:
  CallWriter(Operation *op, StepWriter &writer) : op(op), writer(writer) {}

  LogicalResult write();

private:
  std::string in(Value value) { return writer.getConstPointer(value); }
  std::string out(Value value) {
    if (auto it = scratch.find(value); it != scratch.end())
      return writer.getScratchPointer(value, it->second);
    return writer.getPointer(value);
  }
  std::string optionalIn(Value value) {
    return value ? in(value) : std::string("nullptr");
  }
  std::string optionalOut(Value value) {
    return value ? out(value) : std::string("nullptr");
  }
  /// `remat_rt::name(ctx, args...);`
  template <typename... Args> void call(StringRef name, const Args &...args) {
    std::string text = "  remat_rt::" + name.str() + "(ctx";
    ((text += ", " + toText(args)), ...);
    writer.body() << text << ");\n";
  }
  static std::string toText(const std::string &text) { return text; }
  static std::string toText(const char *text) { return text; }
  static std::string toText(int64_t value) { return std::to_string(value); }
  static std::string toText(bool value) { return value ? "true" : "false"; }
  static std::string toText(double value) {
    return llvm::formatv("{0}", llvm::format("%.17g", value)).str();
  }

  /// The ConvShape of a convolution op of any direction: `x`, `w`, `y` are
  /// its input, weight and output shapes' values.
  template <typename ConvOp>
  std::string convShape(ConvOp conv, Value x, Value w, Value y) {
    return convShape(x, w, y, conv.getStride(), conv.getPadding(),
                     conv.getDilation(), conv.getGroups());
  }
  std::string convShape(Value input, Value weight, Value output,
                        ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> dilation, int64_t groups);
  std::string poolShape(Value input, Value output, ArrayRef<int64_t> kernel,
                        ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> dilation, bool countIncludePad);
  std::string dims(Value value);
  void copy(Value from, Value to);

  LogicalResult writeConvPool();
  LogicalResult writeNormLinear();
  LogicalResult writeLossOptimizer();
  LogicalResult writeAttention();
  std::string attentionShape(Value query, Value key, Value mask, bool causal,
                             double scale, double dropout);
  LogicalResult writeShapes();
  /// Sends every result that would overwrite an operand unsafely to scratch.
  void planScratch();

  Operation *op;
  StepWriter &writer;
  /// Results computed in the scratch area, at these offsets in it.
  llvm::MapVector<Value, int64_t> scratch;
};

/// Whether `op`'s lowering may write result `resultIndex` over the bytes of
/// operand `operandIndex`: the runtime kernel reads each element of that
/// operand only in the thread that writes the same element of the result,
/// before it writes it.
static bool isAliasSafe(Operation *op, unsigned operandIndex,
                        unsigned resultIndex) {
  if (isa<nn::SgdOp>(op))
    return true; // param, grad, momentum buffer: element i by thread i
  if (isa<nn::AdamOp>(op))
    return operandIndex != 4; // not the step, which every block reads
  if (isa<nn::BatchNormUpdateStatsOp>(op))
    // running mean (1) -> new running mean (0), running var (2) -> (1):
    // thread 0 of each channel's block reads the old value, then writes.
    return operandIndex >= 1 && operandIndex == resultIndex + 1;
  return false;
}

} // namespace

/// `{a, b, ...}` of `values`.
static std::string braced(ArrayRef<int64_t> values) {
  std::string text = "{";
  for (auto [index, value] : llvm::enumerate(values))
    text += (index ? ", " : "") + std::to_string(value);
  return text + "}";
}

std::string CallWriter::convShape(Value input, Value weight, Value output,
                                  ArrayRef<int64_t> stride,
                                  ArrayRef<int64_t> padding,
                                  ArrayRef<int64_t> dilation, int64_t groups) {
  ArrayRef<int64_t> x = getShape(input), w = getShape(weight),
                    y = getShape(output);
  return llvm::formatv("remat_rt::ConvShape{{{0}, {1}, {2}, {3}, {4}, {5}, "
                       "{6}, {7}, {8}, {9}, {10}}",
                       stride.size(), x[0], x[1], w[0], groups,
                       braced(x.drop_front(2)), braced(w.drop_front(2)),
                       braced(y.drop_front(2)), braced(padding), braced(stride),
                       braced(dilation))
      .str();
}

/// The spatial sizes of `values` as depth, height and width: a 2-D list is
/// preceded by `pad` (a depth of 1, or 0 padding).
static std::string asTriple(ArrayRef<int64_t> values, int64_t pad) {
  SmallVector<int64_t, 3> triple(3 - values.size(), pad);
  triple.append(values.begin(), values.end());
  return braced(triple);
}

std::string
CallWriter::poolShape(Value input, Value output, ArrayRef<int64_t> kernel,
                      ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                      ArrayRef<int64_t> dilation, bool countIncludePad) {
  ArrayRef<int64_t> x = getShape(input), y = getShape(output);
  return llvm::formatv("remat_rt::PoolShape{{{0}, {1}, {2}, {3}, {4}, {5}, "
                       "{6}, {7}, {8}, 0}",
                       x[0], x[1], asTriple(x.drop_front(2), 1),
                       asTriple(y.drop_front(2), 1), asTriple(kernel, 1),
                       asTriple(stride, 1), asTriple(padding, 0),
                       asTriple(dilation, 1),
                       countIncludePad ? "true" : "false")
      .str();
}

std::string CallWriter::dims(Value value) {
  return "remat_rt::Dims{" + std::to_string(getShape(value).size()) + ", " +
         braced(getShape(value)) + "}";
}

void CallWriter::copy(Value from, Value to) {
  writer.body() << "  REMAT_CHECK_CUDA(cudaMemcpyAsync(" << out(to) << ", "
                << in(from) << ", " << getElementCount(to) << " * sizeof("
                << StepWriter::getElementCType(to)
                << "), cudaMemcpyDeviceToDevice, ctx.stream));\n";
}

LogicalResult CallWriter::writeConvPool() {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<nn::Conv2dOp, nn::Conv3dOp>([&](auto o) {
        call("convForward", in(o.getInput()), in(o.getWeight()),
             optionalIn(o.getBias()), out(o.getResult()),
             convShape(o, o.getInput(), o.getWeight(), o.getResult()),
             writer.getWorkspace(op));
        return success();
      })
      .Case<nn::Conv2dBackwardInputOp, nn::Conv3dBackwardInputOp>([&](auto o) {
        call("convBackwardInput", in(o.getGradOutput()), in(o.getWeight()),
             out(o.getGradInput()),
             convShape(o, o.getGradInput(), o.getWeight(), o.getGradOutput()),
             writer.getWorkspace(op));
        return success();
      })
      .Case<nn::Conv2dBackwardWeightOp, nn::Conv3dBackwardWeightOp>(
          [&](auto o) {
            call("convBackwardWeight", in(o.getGradOutput()), in(o.getInput()),
                 out(o.getGradWeight()),
                 convShape(o, o.getInput(), o.getGradWeight(),
                           o.getGradOutput()),
                 writer.getWorkspace(op));
            return success();
          })
      .Case<nn::Conv2dBackwardBiasOp, nn::Conv3dBackwardBiasOp>([&](auto o) {
        ArrayRef<int64_t> dy = getShape(o.getGradOutput());
        call("convBackwardBias", in(o.getGradOutput()), out(o.getGradBias()),
             dy[0], dy[1],
             getElementCount(o.getGradOutput()) /
                 std::max<int64_t>(dy[0] * dy[1], 1));
        return success();
      })
      .Case<nn::MaxPool2dOp, nn::MaxPool3dOp>([&](auto o) {
        call("maxPoolForward", in(o.getInput()), out(o.getResult()),
             out(o.getIndices()),
             poolShape(o.getInput(), o.getResult(), o.getKernelSize(),
                       o.getStride(), o.getPadding(), o.getDilation(), false));
        return success();
      })
      .Case<nn::MaxPool2dBackwardOp, nn::MaxPool3dBackwardOp>([&](auto o) {
        call("maxPoolBackward", in(o.getGradOutput()), in(o.getIndices()),
             out(o.getGradInput()),
             poolShape(o.getGradInput(), o.getGradOutput(), o.getKernelSize(),
                       o.getStride(), o.getPadding(), o.getDilation(), false));
        return success();
      })
      .Case<nn::AvgPool2dOp, nn::AvgPool3dOp>([&](auto o) {
        SmallVector<int64_t, 3> one(o.getKernelSize().size(), 1);
        call("avgPoolForward", in(o.getInput()), out(o.getResult()),
             poolShape(o.getInput(), o.getResult(), o.getKernelSize(),
                       o.getStride(), o.getPadding(), one,
                       o.getCountIncludePad()));
        return success();
      })
      .Case<nn::AvgPool2dBackwardOp, nn::AvgPool3dBackwardOp>([&](auto o) {
        SmallVector<int64_t, 3> one(o.getKernelSize().size(), 1);
        call("avgPoolBackward", in(o.getGradOutput()), out(o.getGradInput()),
             poolShape(o.getGradInput(), o.getGradOutput(), o.getKernelSize(),
                       o.getStride(), o.getPadding(), one,
                       o.getCountIncludePad()));
        return success();
      })
      .Case([&](nn::AdaptiveAvgPool2dOp o) {
        ArrayRef<int64_t> x = getShape(o.getInput()),
                          y = getShape(o.getResult());
        call("adaptiveAvgPool2dForward", in(o.getInput()), out(o.getResult()),
             x[0], x[1], x[2], x[3], y[2], y[3]);
        return success();
      })
      .Case([&](nn::AdaptiveAvgPool2dBackwardOp o) {
        ArrayRef<int64_t> x = getShape(o.getGradInput()),
                          y = getShape(o.getGradOutput());
        call("adaptiveAvgPool2dBackward", in(o.getGradOutput()),
             out(o.getGradInput()), x[0], x[1], x[2], x[3], y[2], y[3]);
        return success();
      })
      .Case([&](nn::UpsampleBilinear2dOp o) {
        ArrayRef<int64_t> x = getShape(o.getInput()),
                          y = getShape(o.getResult());
        call("upsampleBilinear2dForward", in(o.getInput()), out(o.getResult()),
             x[0], x[1], x[2], x[3], y[2], y[3], o.getAlignCorners());
        return success();
      })
      .Case([&](nn::UpsampleNearest2dOp o) {
        ArrayRef<int64_t> x = getShape(o.getInput()),
                          y = getShape(o.getResult());
        call("upsampleNearest2dForward", in(o.getInput()), out(o.getResult()),
             x[0], x[1], x[2], x[3], y[2], y[3]);
        return success();
      })
      .Case([&](nn::UpsampleNearest2dBackwardOp o) {
        ArrayRef<int64_t> x = getShape(o.getGradInput()),
                          y = getShape(o.getGradOutput());
        call("upsampleNearest2dBackward", in(o.getGradOutput()),
             out(o.getGradInput()), x[0], x[1], x[2], x[3], y[2], y[3]);
        return success();
      })
      .Case([&](nn::UpsampleBilinear2dBackwardOp o) {
        ArrayRef<int64_t> x = getShape(o.getGradInput()),
                          y = getShape(o.getGradOutput());
        call("upsampleBilinear2dBackward", in(o.getGradOutput()),
             out(o.getGradInput()), x[0], x[1], x[2], x[3], y[2], y[3],
             o.getAlignCorners());
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

LogicalResult CallWriter::writeNormLinear() {
  /// Rows of a [..., last] tensor.
  auto rows = [](Value value, int64_t last) {
    return getElementCount(value) / std::max<int64_t>(last, 1);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](nn::BatchNormOp o) {
        ArrayRef<int64_t> x = getShape(o.getInput());
        int64_t spatial = getElementCount(o.getInput()) / (x[0] * x[1]);
        call("batchNormForward", in(o.getInput()), in(o.getWeight()),
             in(o.getBias()), out(o.getResult()), out(o.getSaveMean()),
             out(o.getSaveInvstd()), x[0], x[1], spatial,
             o.getEps().convertToDouble());
        return success();
      })
      .Case([&](nn::BatchNormUpdateStatsOp o) {
        ArrayRef<int64_t> x = getShape(o.getInput());
        int64_t spatial = getElementCount(o.getInput()) / (x[0] * x[1]);
        call("batchNormUpdateStats", in(o.getInput()), in(o.getRunningMean()),
             in(o.getRunningVar()), out(o.getNewRunningMean()),
             out(o.getNewRunningVar()), x[0], x[1], spatial,
             o.getMomentum().convertToDouble());
        return success();
      })
      .Case([&](nn::BatchNormBackwardOp o) {
        ArrayRef<int64_t> x = getShape(o.getInput());
        int64_t spatial = getElementCount(o.getInput()) / (x[0] * x[1]);
        call("batchNormBackward", in(o.getGradOutput()), in(o.getInput()),
             in(o.getWeight()), in(o.getSaveMean()), in(o.getSaveInvstd()),
             out(o.getGradInput()), out(o.getGradWeight()),
             out(o.getGradBias()), x[0], x[1], spatial);
        return success();
      })
      .Case([&](nn::LayerNormOp o) {
        int64_t cols = getElementCount(o.getWeight());
        call("layerNormForward", in(o.getInput()), in(o.getWeight()),
             in(o.getBias()), out(o.getResult()), out(o.getMean()),
             out(o.getRstd()), rows(o.getInput(), cols), cols,
             o.getEps().convertToDouble());
        return success();
      })
      .Case([&](nn::LayerNormBackwardOp o) {
        int64_t cols = getElementCount(o.getWeight());
        call("layerNormBackward", in(o.getGradOutput()), in(o.getInput()),
             in(o.getMean()), in(o.getRstd()), in(o.getWeight()),
             out(o.getGradInput()), out(o.getGradWeight()),
             out(o.getGradBias()), rows(o.getInput(), cols), cols);
        return success();
      })
      .Case([&](nn::LinearOp o) {
        ArrayRef<int64_t> w = getShape(o.getWeight());
        call("linearForward", in(o.getInput()), in(o.getWeight()),
             optionalIn(o.getBias()), out(o.getResult()),
             rows(o.getInput(), w[1]), w[1], w[0]);
        return success();
      })
      .Case([&](nn::LinearBackwardInputOp o) {
        ArrayRef<int64_t> w = getShape(o.getWeight());
        call("linearBackwardInput", in(o.getGradOutput()), in(o.getWeight()),
             out(o.getGradInput()), rows(o.getGradInput(), w[1]), w[1], w[0]);
        return success();
      })
      .Case([&](nn::LinearBackwardWeightOp o) {
        ArrayRef<int64_t> w = getShape(o.getGradWeight());
        call("linearBackwardWeight", in(o.getGradOutput()), in(o.getInput()),
             out(o.getGradWeight()), rows(o.getInput(), w[1]), w[1], w[0]);
        return success();
      })
      .Case([&](nn::LinearBackwardBiasOp o) {
        int64_t outSize = getElementCount(o.getGradBias());
        call("linearBackwardBias", in(o.getGradOutput()), out(o.getGradBias()),
             rows(o.getGradOutput(), outSize), outSize);
        return success();
      })
      .Case<nn::MatmulOp, nn::MatmulBackwardLhsOp, nn::MatmulBackwardRhsOp>(
          [&](auto o) {
            // [B..., M, K] x [B..., K, N]: read M, K, N from the forward's
            // operand shapes as each op sees them.
            Value lhs, rhs, result;
            std::string name;
            if constexpr (std::is_same_v<decltype(o), nn::MatmulOp>) {
              lhs = o.getLhs(), rhs = o.getRhs(), result = o.getResult();
              ArrayRef<int64_t> a = getShape(lhs), b = getShape(rhs);
              int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
              call("matmul", in(lhs), in(rhs), out(result),
                   getElementCount(lhs) / (m * k), m, k, n);
            } else if constexpr (std::is_same_v<decltype(o),
                                                nn::MatmulBackwardLhsOp>) {
              ArrayRef<int64_t> dc = getShape(o.getGradOutput()),
                                b = getShape(o.getRhs());
              int64_t m = dc[dc.size() - 2], n = dc.back(), k = b[b.size() - 2];
              call("matmulBackwardLhs", in(o.getGradOutput()), in(o.getRhs()),
                   out(o.getGradLhs()),
                   getElementCount(o.getGradOutput()) / (m * n), m, k, n);
            } else {
              ArrayRef<int64_t> dc = getShape(o.getGradOutput()),
                                a = getShape(o.getLhs());
              int64_t m = dc[dc.size() - 2], n = dc.back(), k = a.back();
              call("matmulBackwardRhs", in(o.getGradOutput()), in(o.getLhs()),
                   out(o.getGradRhs()),
                   getElementCount(o.getGradOutput()) / (m * n), m, k, n);
            }
            return success();
          })
      .Case([&](nn::EmbeddingOp o) {
        ArrayRef<int64_t> w = getShape(o.getWeight());
        call("embeddingForward", in(o.getWeight()), in(o.getIndices()),
             out(o.getResult()), getElementCount(o.getIndices()), w[0], w[1],
             int64_t(o.getPaddingIdx()));
        return success();
      })
      .Case([&](nn::EmbeddingBackwardOp o) {
        ArrayRef<int64_t> w = getShape(o->getResult(0));
        call("embeddingBackward", in(o->getOperand(0)), in(o->getOperand(1)),
             out(o->getResult(0)), getElementCount(o->getOperand(1)), w[0],
             w[1], int64_t(o.getPaddingIdx()));
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

LogicalResult CallWriter::writeLossOptimizer() {
  /// [outer, size of dim, inner] of a tensor around `dim`.
  auto around = [](Value value, int64_t dim) {
    ArrayRef<int64_t> shape = getShape(value);
    if (dim < 0)
      dim += int64_t(shape.size());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d)
      outer *= shape[d];
    for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
      inner *= shape[d];
    return std::make_tuple(outer, shape[dim], inner);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<nn::SoftmaxOp, nn::LogSoftmaxOp>([&](auto o) {
        auto [outer, size, inner] = around(o.getInput(), o.getDim());
        call("softmaxForward", in(o.getInput()), out(o.getResult()), outer,
             size, inner, isa<nn::LogSoftmaxOp>(op));
        return success();
      })
      .Case<nn::SoftmaxBackwardOp, nn::LogSoftmaxBackwardOp>([&](auto o) {
        auto [outer, size, inner] = around(o.getResult(), o.getDim());
        call("softmaxBackward", in(o.getGradOutput()), in(o.getResult()),
             out(o.getGradInput()), outer, size, inner,
             isa<nn::LogSoftmaxBackwardOp>(op));
        return success();
      })
      .Case([&](nn::CrossEntropyOp o) {
        auto [samples, classes, inner] = around(o.getLogits(), 1);
        call("crossEntropyForward", in(o.getLogits()), in(o.getLabels()),
             out(o.getLoss()), samples * inner, classes, inner,
             int64_t(o.getIgnoreIndex()));
        return success();
      })
      .Case([&](nn::CrossEntropyBackwardOp o) {
        auto [samples, classes, inner] = around(o.getLogits(), 1);
        call("crossEntropyBackward", in(o.getGradLoss()), in(o.getLogits()),
             in(o.getLabels()), out(o.getGradLogits()), samples * inner,
             classes, inner, int64_t(o.getIgnoreIndex()));
        return success();
      })
      .Case([&](nn::SgdOp o) {
        std::vector<std::string> values = writer.addUpdate(
            {getValueName(o.getParam()),
             "sgd",
             {o.getLr().convertToDouble(), o.getMomentum().convertToDouble(),
              o.getDampening().convertToDouble(),
              o.getWeightDecay().convertToDouble(), o.getNesterov() ? 1.0 : 0.0,
              0.9, 0.999, 1e-8, 0.0}},
            {"kLr", "kMomentum", "kDampening", "kWeightDecay", "kNesterov"});
        call("sgdStep", in(o.getParam()), in(o.getGrad()),
             optionalIn(o.getMomentumBuffer()), out(o.getNewParam()),
             optionalOut(o.getNewMomentumBuffer()),
             getElementCount(o.getParam()), values[0], values[1], values[2],
             values[3], values[4] + " != 0");
        return success();
      })
      .Case([&](nn::AdamOp o) {
        std::vector<std::string> values = writer.addUpdate(
            {getValueName(o.getParam()),
             "adam",
             {o.getLr().convertToDouble(), 0.0, 0.0,
              o.getWeightDecay().convertToDouble(), 0.0,
              o.getBeta1().convertToDouble(), o.getBeta2().convertToDouble(),
              o.getEps().convertToDouble(),
              o.getDecoupledWeightDecay() ? 1.0 : 0.0}},
            {"kLr", "kBeta1", "kBeta2", "kEps", "kWeightDecay",
             "kDecoupledWeightDecay"});
        call("adamStep", in(o.getParam()), in(o.getGrad()), in(o.getExpAvg()),
             in(o.getExpAvgSq()), in(o.getStep()), out(o.getNewParam()),
             out(o.getNewExpAvg()), out(o.getNewExpAvgSq()),
             getElementCount(o.getParam()), values[0], values[1], values[2],
             values[3], values[4], values[5] + " != 0");
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

LogicalResult CallWriter::writeShapes() {
  // Arrays go into named constants before the call (C++ has no compound
  // literals).
  auto permutation = [&](ArrayRef<int64_t> perm) {
    std::string name = writer.getUniqueName("perm");
    writer.body() << "  static const int " << name << "[] = {";
    for (auto [index, dim] : llvm::enumerate(perm))
      writer.body() << (index ? ", " : "") << dim;
    writer.body() << "};\n";
    return name;
  };
  /// Sizes before, at and after `dim` of `value`.
  auto around = [](Value value, int64_t dim) {
    ArrayRef<int64_t> shape = getShape(value);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d)
      outer *= shape[d];
    for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
      inner *= shape[d];
    return std::make_tuple(outer, shape[dim], inner);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<nn::ReshapeOp, nn::FlattenOp>([&](auto o) {
        copy(o->getOperand(0), o->getResult(0));
        return success();
      })
      .Case([&](nn::TransposeOp o) {
        int64_t rank = int64_t(getShape(o.getInput()).size());
        SmallVector<int64_t> perm;
        for (int64_t d = 0; d < rank; ++d)
          perm.push_back(d);
        // I64Attr getters return uint64_t: convert before testing the sign.
        int64_t d0 = int64_t(o.getDim0()), d1 = int64_t(o.getDim1());
        d0 += d0 < 0 ? rank : 0;
        d1 += d1 < 0 ? rank : 0;
        std::swap(perm[d0], perm[d1]);
        call("permute", in(o.getInput()), out(o.getResult()),
             dims(o.getInput()), permutation(perm));
        return success();
      })
      .Case([&](nn::PermuteOp o) {
        int64_t rank = int64_t(getShape(o.getInput()).size());
        SmallVector<int64_t> perm;
        for (int64_t dim : o.getDims())
          perm.push_back(dim < 0 ? dim + rank : dim);
        call("permute", in(o.getInput()), out(o.getResult()),
             dims(o.getInput()), permutation(perm));
        return success();
      })
      .Case([&](nn::ConcatOp o) {
        // Each input is a block of rows in the result's [outer, size, inner]
        // view: one 2-D copy per input.
        int64_t rank = int64_t(getShape(o.getResult()).size());
        int64_t dim = int64_t(o.getDim());
        dim += dim < 0 ? rank : 0;
        auto [outer, size, inner] = around(o.getResult(), dim);
        int64_t offset = 0;
        for (Value input : o.getInputs()) {
          int64_t part = getShape(input)[dim];
          writer.body() << "  REMAT_CHECK_CUDA(cudaMemcpy2DAsync("
                        << out(o.getResult()) << " + " << offset * inner << ", "
                        << size * inner << " * sizeof(float), " << in(input)
                        << ", " << part * inner << " * sizeof(float), "
                        << part * inner << " * sizeof(float), " << outer
                        << ", cudaMemcpyDeviceToDevice, ctx.stream));\n";
          offset += part;
        }
        return success();
      })
      .Case<nn::SliceOp, nn::SliceBackwardOp>([&](auto o) {
        bool forward = isa<nn::SliceOp>(op);
        Value whole = forward ? o->getOperand(0) : o->getResult(0);
        Value part = forward ? o->getResult(0) : o->getOperand(0);
        int64_t rank = int64_t(getShape(whole).size());
        int64_t dim = int64_t(o.getDim());
        dim += dim < 0 ? rank : 0;
        auto [outer, sizeIn, inner] = around(whole, dim);
        call(forward ? "sliceForward" : "sliceBackward", in(o->getOperand(0)),
             out(o->getResult(0)), outer, sizeIn, inner, int64_t(o.getStart()),
             int64_t(o.getStep()), getShape(part)[dim]);
        return success();
      })
      .Case<nn::SumOp, nn::MeanOp>([&](auto o) {
        int64_t rank = int64_t(getShape(o.getInput()).size());
        SmallVector<bool> reduce(rank, false);
        int64_t reduced = 1;
        for (int64_t dim : o.getDims()) {
          int64_t d = dim < 0 ? dim + rank : dim;
          if (!reduce[d])
            reduced *= getShape(o.getInput())[d];
          reduce[d] = true;
        }
        std::string mask = writer.getUniqueName("reduce");
        writer.body() << "  static const bool " << mask << "[] = {";
        for (auto [index, flag] : llvm::enumerate(reduce))
          writer.body() << (index ? ", " : "") << (flag ? "true" : "false");
        writer.body() << "};\n";
        double scale = isa<nn::MeanOp>(op) ? 1.0 / double(reduced) : 1.0;
        call("sumDims", in(o.getInput()), out(o.getResult()),
             dims(o.getInput()), mask, scale);
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

/// The AttentionShape of q [B, Hq, Lq, E] and k [B, Hkv, Lk, E], with the
/// mask's strides over the scores [B, Hq, Lq, Lk] (0 where it broadcasts).
std::string CallWriter::attentionShape(Value query, Value key, Value mask,
                                       bool causal, double scale,
                                       double dropout) {
  ArrayRef<int64_t> q = getShape(query), k = getShape(key);
  int64_t strides[4] = {0, 0, 0, 0};
  if (mask) {
    ArrayRef<int64_t> m = getShape(mask);
    int64_t stride = 1;
    for (int64_t d = int64_t(m.size()) - 1; d >= 0; --d) {
      strides[4 - m.size() + d] = m[d] == 1 ? 0 : stride;
      stride *= m[d];
    }
  }
  return llvm::formatv("remat_rt::AttentionShape{{{0}, {1}, {2}, {3}, {4}, "
                       "{5}, {{{6}, {7}, {8}, {9}}, {10}, {11}f, {12}}",
                       q[0], q[1], k[1], q[2], k[2], q[3], strides[0],
                       strides[1], strides[2], strides[3],
                       causal ? "true" : "false", llvm::format("%.9g", scale),
                       llvm::format("%.17g", dropout))
      .str();
}

LogicalResult CallWriter::writeAttention() {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](nn::AttentionOp o) {
        call("attentionForward", in(o.getQuery()), in(o.getKey()),
             in(o.getValue()), optionalIn(o.getMask()), optionalIn(o.getSeed()),
             out(o.getOutput()), out(o.getLogsumexp()),
             attentionShape(o.getQuery(), o.getKey(), o.getMask(),
                            o.getIsCausal(), o.getScale().convertToDouble(),
                            o.getDropoutP().convertToDouble()));
        return success();
      })
      .Case([&](nn::AttentionBackwardOp o) {
        call("attentionBackward", in(o.getGradOutput()), in(o.getQuery()),
             in(o.getKey()), in(o.getValue()), in(o.getOutput()),
             in(o.getLogsumexp()), optionalIn(o.getMask()),
             optionalIn(o.getSeed()), out(o.getGradQuery()),
             out(o.getGradKey()), out(o.getGradValue()),
             attentionShape(o.getQuery(), o.getKey(), o.getMask(),
                            o.getIsCausal(), o.getScale().convertToDouble(),
                            o.getDropoutP().convertToDouble()));
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

void CallWriter::planScratch() {
  int64_t total = 0;
  for (OpResult result : op->getResults()) {
    BufferPlace location = writer.getPlace(result);
    if (location.argument < 0)
      continue;
    for (OpOperand &operand : op->getOpOperands())
      if (writer.getPlace(operand.get()).argument == location.argument &&
          !isAliasSafe(op, operand.getOperandNumber(),
                       result.getResultNumber())) {
        scratch.insert({result, total});
        total += (StepWriter::getByteSize(result) + 255) / 256 * 256;
        break;
      }
  }
  writer.reserveScratch(total);
}

LogicalResult CallWriter::write() {
  if (isViewOp(op) && !writer.isMaterializedView(op->getResult(0))) {
    writer.body() << "  // " << op->getName().getStringRef() << " "
                  << StepWriter::getOpLabel(op) << ": a view of "
                  << writer.getPointer(op->getOperand(0)) << ", no copy\n";
    return success();
  }
  writer.body() << "  remat_rt::currentOp = " << StepWriter::getOpLabel(op)
                << ";\n";
  planScratch();
  // Attention's query is operand 0 of the forward and 1 of the backward.
  if (isa<nn::AttentionOp, nn::AttentionBackwardOp>(op) &&
      getShape(op->getOperand(isa<nn::AttentionOp>(op) ? 0 : 1))[3] >
          kMaxAttentionHeadDim)
    return emitOpError(op) << "has a head dimension above "
                           << kMaxAttentionHeadDim
                           << ", more than the CUDA runtime's attention takes";
  if (!(succeeded(writeConvPool()) || succeeded(writeNormLinear()) ||
        succeeded(writeLossOptimizer()) || succeeded(writeAttention()) ||
        succeeded(writeShapes())))
    return emitOpError(op) << "has no CUDA lowering";
  // Results computed in scratch go into their arguments' buffers, after the
  // call has read the old values.
  for (auto [result, offset] : scratch)
    writer.body() << "  REMAT_CHECK_CUDA(cudaMemcpyAsync("
                  << writer.getPointer(result) << ", "
                  << writer.getScratchPointer(result, offset) << ", "
                  << StepWriter::getByteSize(result)
                  << ", cudaMemcpyDeviceToDevice, ctx.stream));\n";
  return success();
}

LogicalResult mlir::remat::cuda::emitLibraryCall(Operation *op,
                                                 StepWriter &writer) {
  return CallWriter(op, writer).write();
}
