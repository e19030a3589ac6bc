//===- ElementwiseKernels.cpp - generated kernels for element-wise ops ----===//
//
// Each element-wise nn op is an expression over its operands' elements at
// the output's flat index i (operands of another shape are broadcast, numpy
// style, by index arithmetic on their static shapes). A chain of such ops of
// one result shape becomes one kernel: every result is still stored at its
// planned offset when anything outside the chain reads it (or the step
// returns it), and stays in a register otherwise; a chain whose kernel would
// store into a slot the plan reuses from a value the chain still reads is
// split (hasFusionHazard). The arithmetic follows remat-run's ATen kernels
// in float; scalars convert from double to float as ATen's do.
//
//===----------------------------------------------------------------------===//

#include "StepWriter.h"

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::cuda;

/// A double as a float literal exactly as (float)value.
static std::string floatLiteral(double value) {
  if (std::isinf(value))
    return value > 0 ? "INFINITY" : "(-INFINITY)";
  return llvm::formatv("((float){0})", llvm::format("%.17g", value)).str();
}

// The ops whose expression their definition gives (the op table's
// cudaExpression): getTableExpression.
#define GEN_NN_CUDA_EXPRESSIONS
#include "remat/Dialect/NN/IR/NNOpTable.inc"

bool mlir::remat::cuda::isElementwise(Operation *op) {
  return hasTableExpression(op) ||
         isa<nn::GeluOp, nn::GeluBackwardOp, nn::HardtanhOp,
             nn::HardtanhBackwardOp, nn::AddScalarOp, nn::SubScalarOp,
             nn::MulScalarOp, nn::DivScalarOp, nn::PowScalarOp, nn::DropoutOp,
             nn::DropoutBackwardOp, nn::BernoulliOp, nn::FullOp>(op);
}

/// The index into `operand`'s elements that output element `i` (of
/// `outShape`) reads: `i` itself for equal shapes, else the broadcast index.
static std::string getBroadcastIndex(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> outShape) {
  if (shape == outShape)
    return "i";
  std::string index;
  int64_t outStride = 1, inStride = 1;
  int64_t offset = int64_t(outShape.size()) - int64_t(shape.size());
  for (int64_t d = int64_t(outShape.size()) - 1; d >= 0; --d) {
    int64_t inDim = d - offset;
    int64_t inSize = inDim >= 0 ? shape[inDim] : 1;
    if (inSize != 1) {
      if (!index.empty())
        index += " + ";
      std::string term =
          outStride == 1 ? "i" : "(i / " + std::to_string(outStride) + ")";
      if (d > 0)
        term = "(" + term + " % " + std::to_string(outShape[d]) + ")";
      if (inStride != 1)
        term += " * " + std::to_string(inStride);
      index += term;
    }
    outStride *= outShape[d];
    inStride *= inSize;
  }
  return index.empty() ? "0" : "(" + index + ")";
}

/// The GELU expressions of ATen (exact erf form and tanh approximation).
static std::string gelu(const std::string &x, bool tanhForm) {
  if (!tanhForm)
    return llvm::formatv(
        "(0.5f * {0} * (1.0f + erff({0} * 0.70710678118654752f)))", x);
  return llvm::formatv("(0.5f * {0} * (1.0f + tanhf(0.79788456080286536f * "
                       "({0} + 0.044715f * {0} * {0} * {0}))))",
                       x);
}

static std::string geluBackward(const std::string &g, const std::string &x,
                                bool tanhForm) {
  if (!tanhForm)
    return llvm::formatv(
        "({0} * (0.5f * (1.0f + erff({1} * 0.70710678118654752f)) + {1} * "
        "expf(-0.5f * {1} * {1}) * 0.39894228040143268f))",
        g, x);
  return llvm::formatv(
      "({0} * ([&] {{ float in_ = 0.79788456080286536f * ({1} + 0.044715f * "
      "{1} * {1} * {1}); float t_ = tanhf(in_); return 0.5f * (1.0f + t_) + "
      "0.5f * {1} * (1.0f - t_ * t_) * 0.79788456080286536f * (1.0f + 3.0f * "
      "0.044715f * {1} * {1}); }()))",
      g, x);
}

/// ATen's clamp, std::min(std::max(x, lo), hi): NaN stays NaN.
static std::string clamp(const std::string &x, const std::string &lo,
                         const std::string &hi) {
  return llvm::formatv("({0} < {1} ? {1} : ({0} > {2} ? {2} : {0}))", x, lo,
                       hi);
}

/// The expression of one element-wise op over its operands' expressions.
static std::string getExpression(Operation *op,
                                 ArrayRef<std::string> operands) {
  if (std::optional<std::string> expression =
          getTableExpression(op, operands))
    return *expression;
  auto a = [&] { return operands[0]; };
  auto b = [&] { return operands[1]; };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case(
          [&](nn::GeluOp o) { return gelu(a(), o.getApproximate() == "tanh"); })
      .Case([&](nn::GeluBackwardOp o) {
        return geluBackward(a(), b(), o.getApproximate() == "tanh");
      })
      .Case([&](nn::HardtanhOp o) {
        return clamp(a(), floatLiteral(o.getMinVal().convertToDouble()),
                     floatLiteral(o.getMaxVal().convertToDouble()));
      })
      .Case([&](nn::HardtanhBackwardOp o) {
        return llvm::formatv("(({1} > {2} && {1} < {3}) ? {0} : 0.0f)", a(),
                             b(),
                             floatLiteral(o.getMinVal().convertToDouble()),
                             floatLiteral(o.getMaxVal().convertToDouble()))
            .str();
      })
      .Case([&](nn::AddScalarOp o) {
        return "(" + a() + " + " +
               floatLiteral(o.getScalar().convertToDouble()) + ")";
      })
      .Case([&](nn::SubScalarOp o) {
        return "(" + a() + " - " +
               floatLiteral(o.getScalar().convertToDouble()) + ")";
      })
      .Case([&](nn::MulScalarOp o) {
        return "(" + a() + " * " +
               floatLiteral(o.getScalar().convertToDouble()) + ")";
      })
      .Case([&](nn::DivScalarOp o) {
        return "(" + a() + " / " +
               floatLiteral(o.getScalar().convertToDouble()) + ")";
      })
      .Case([&](nn::PowScalarOp o) {
        // x * x for the square, as ATen computes it.
        double exponent = o.getScalar().convertToDouble();
        if (exponent == 2.0)
          return "(" + a() + " * " + a() + ")";
        return "powf(" + a() + ", " + floatLiteral(exponent) + ")";
      })
      .Case<nn::DropoutOp, nn::DropoutBackwardOp>([&](auto o) {
        // remat-run's mask: element i is kept when uniform(mix(seed), i) >= p;
        // operands[1] is the stream key, computed once per thread.
        double p = o.getP().convertToDouble();
        return llvm::formatv("(({0} * (remat_rt::uniformAt({1}, uint64_t(i)) "
                             ">= {2} ? 1.0f : 0.0f)) * {3})",
                             a(), b(), llvm::format("%.17g", p),
                             floatLiteral(1.0 / (1.0 - p)))
            .str();
      })
      .Case([&](nn::BernoulliOp o) {
        // remat-run's sample: 1 where uniform(mix(seed), i) < p; operands[0]
        // is the stream key.
        return llvm::formatv("(remat_rt::uniformAt({0}, uint64_t(i)) < {1} "
                             "? 1.0f : 0.0f)",
                             a(), llvm::format("%.17g", o.getP().convertToDouble()))
            .str();
      })
      .Case([&](nn::FullOp o) {
        return floatLiteral(o.getValue().convertToDouble());
      })
      .Default([](Operation *) -> std::string {
        llvm_unreachable("not an element-wise op");
      });
}

/// Whether `value` is read outside `members` (or returned by the step).
static bool isReadOutside(Value value,
                          const llvm::SmallPtrSetImpl<Operation *> &members) {
  for (Operation *user : value.getUsers())
    if (!members.contains(user))
      return true;
  return false;
}

namespace {
/// The bytes [begin, end) of a value in one buffer: the arena (-1) or an
/// argument's.
struct ByteRange {
  int64_t buffer, begin, end;
  bool operator==(const ByteRange &other) const {
    return buffer == other.buffer && begin == other.begin && end == other.end;
  }
};
} // namespace

static ByteRange getByteRange(Value value, const StepWriter &writer) {
  BufferPlace location = writer.getPlace(value);
  return {location.argument, location.offset,
          location.offset + StepWriter::getByteSize(value)};
}

bool mlir::remat::cuda::hasFusionHazard(ArrayRef<Operation *> group,
                                        const StepWriter &writer) {
  llvm::SmallPtrSet<Operation *, 8> members(group.begin(), group.end());
  int64_t outCount = getElementCount(group.front()->getResult(0));
  struct Access {
    Value value;
    ByteRange range;
    bool atIndex; // element i of a float value is touched by thread i only
  };
  SmallVector<Access> reads, writes;
  for (Operation *op : group) {
    for (Value operand : op->getOperands()) {
      if (Operation *def = operand.getDefiningOp();
          def && members.contains(def))
        continue; // a register
      // Broadcasting to as many elements as the operand has is the identity.
      reads.push_back({operand, getByteRange(operand, writer),
                       getElementCount(operand) == outCount &&
                           StepWriter::getElementCType(operand) == "float"});
    }
    Value result = op->getResult(0);
    if (isReadOutside(result, members) || result.use_empty())
      writes.push_back({result, getByteRange(result, writer), true});
  }
  // The plan never overlaps arena values live at the same op, so an overlap
  // is a slot reused within the group, or an argument's buffer that the
  // group reads and writes the new value of: safe only where both sides are
  // element i of the same bytes (each thread reads its element before it
  // writes it).
  auto conflicts = [](const Access &a, const Access &b) {
    bool overlap = a.range.buffer == b.range.buffer &&
                   a.range.begin < b.range.end && b.range.begin < a.range.end;
    bool sameElements = a.atIndex && b.atIndex && a.range == b.range;
    return a.value != b.value && overlap && !sameElements;
  };
  for (const Access &write : writes) {
    for (const Access &read : reads)
      if (conflicts(write, read))
        return true;
    for (const Access &other : writes)
      if (conflicts(write, other))
        return true;
  }
  return false;
}

void mlir::remat::cuda::emitElementwiseGroup(ArrayRef<Operation *> group,
                                             StepWriter &writer) {
  llvm::SmallPtrSet<Operation *, 8> members(group.begin(), group.end());
  ArrayRef<int64_t> outShape = getShape(group.front()->getResult(0));
  int64_t count = getElementCount(group.front()->getResult(0));

  // Kernel parameters: every operand from outside, every stored result.
  llvm::MapVector<Value, std::string> inputs;
  std::vector<std::pair<Value, std::string>> outputs;
  std::string loads, computeText;
  llvm::raw_string_ostream compute(computeText);
  llvm::DenseMap<Value, std::string> local;
  int temporaries = 0, loadCount = 0;
  for (Operation *op : group) {
    SmallVector<std::string> operands;
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      if (auto it = local.find(operand); it != local.end()) {
        operands.push_back(it->second);
        continue;
      }
      bool isSeed =
          (isa<nn::DropoutOp, nn::DropoutBackwardOp>(op) && index == 1) ||
          (isa<nn::BernoulliOp>(op) && index == 0);
      if (!inputs.count(operand)) {
        std::string name = "in" + std::to_string(inputs.size());
        inputs.insert({operand, name});
        if (isSeed)
          loads += llvm::formatv("  const uint64_t key_{0} = "
                                 "remat_rt::mixBits(uint64_t({0}[0]));\n",
                                 name)
                       .str();
      }
      std::string name = inputs.lookup(operand);
      if (isSeed) {
        operands.push_back("key_" + name);
        continue;
      }
      // Each element read once, into a register of its own.
      std::string loaded = "v" + std::to_string(loadCount++);
      compute << "    const " << StepWriter::getElementCType(operand) << " "
              << loaded << " = " << name << "["
              << getBroadcastIndex(getShape(operand), outShape) << "];\n";
      operands.push_back(loaded);
      local[operand] = loaded;
    }
    Value result = op->getResult(0);
    std::string temporary = "t" + std::to_string(temporaries++);
    compute << "    const float " << temporary << " = "
            << getExpression(op, operands) << ";\n";
    local[result] = temporary;
    if (isReadOutside(result, members) || result.use_empty()) {
      std::string name = "out" + std::to_string(outputs.size());
      outputs.push_back({result, name});
      compute << "    " << name << "[i] = " << temporary << ";\n";
    }
  }

  std::string kernel = writer.getUniqueName("remat_kernel");
  llvm::raw_string_ostream &k = writer.kernels();
  k << "// ";
  for (Operation *op : group)
    k << op->getName().getStringRef() << " " << StepWriter::getOpLabel(op)
      << (op == group.back() ? "\n" : ", ");
  // A result may take the exact slot of an operand that dies in the group,
  // or be the new value of an argument the group reads (hasFusionHazard
  // allows both: each thread reads its element first); the pointers then
  // alias and may not be __restrict__.
  bool aliased = false;
  for (auto &[input, inputName] : inputs)
    for (auto &[output, outputName] : outputs)
      aliased |= writer.getPlace(input) == writer.getPlace(output);
  const char *restrict = aliased ? " *" : " *__restrict__ ";
  k << "__global__ void " << kernel << "(";
  bool first = true;
  for (auto &[value, name] : inputs) {
    k << (first ? "" : ", ") << "const " << StepWriter::getElementCType(value)
      << restrict << name;
    first = false;
  }
  for (auto &[value, name] : outputs) {
    k << (first ? "" : ", ") << "float" << restrict << name;
    first = false;
  }
  k << ") {\n"
    << loads
    << "  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < "
    << count << "; i += int64_t(gridDim.x) * blockDim.x) {\n"
    << compute.str() << "  }\n}\n\n";

  llvm::raw_string_ostream &body = writer.body();
  body << "  remat_rt::currentOp = " << StepWriter::getOpLabel(group.back())
       << ";\n  " << kernel << "<<<remat_rt::blocksFor(" << count
       << "), 256, 0, ctx.stream>>>(";
  first = true;
  for (auto &[value, name] : inputs) {
    body << (first ? "" : ", ") << writer.getConstPointer(value);
    first = false;
  }
  for (auto &[value, name] : outputs) {
    body << (first ? "" : ", ") << writer.getPointer(value);
    first = false;
  }
  body << ");\n  REMAT_CHECK_LAUNCH();\n";
}
