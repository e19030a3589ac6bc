//===- IndexChecks.cpp - index operands checked before ATen ---------------===//
//
// ATen trusts most of the indices it is given: max pooling's backward scatters
// into whatever position an index names (out of bounds writes), and
// embedding_dense_backward drops rows past the table without a word. Every
// kernel that takes indices has them checked here first, so that a bad index
// is an error at the op that names the index, never memory corruption or a
// silently wrong gradient.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "llvm/ADT/TypeSwitch.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::remat;

/// Element `flat` of a C-order tensor of `sizes` as "[i, j, ...]".
static std::string formatPosition(at::IntArrayRef sizes, int64_t flat) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  std::string text = "[";
  for (auto [position, value] : llvm::enumerate(index))
    text += (position ? ", " : "") + std::to_string(value);
  return text + "]";
}

/// Fails with an error at `op` at the first element of `indices` outside
/// [0, count) that is not `allowed`; `what` names the operand and `range` the
/// count ("the 100 rows of the table").
static LogicalResult checkRange(Operation *op, const at::Tensor &indices,
                                int64_t count, llvm::StringRef what,
                                const llvm::Twine &range,
                                std::optional<int64_t> allowed = std::nullopt) {
  at::Tensor values = indices.to(at::kLong).contiguous();
  const int64_t *data = values.data_ptr<int64_t>();
  for (int64_t i = 0, e = values.numel(); i < e; ++i) {
    int64_t value = data[i];
    if ((value >= 0 && value < count) || (allowed && value == *allowed))
      continue;
    InFlightDiagnostic diagnostic = remat::emitOpError(op);
    diagnostic << "has " << what << " " << value << " at "
               << formatPosition(values.sizes(), i) << ", outside " << range;
    if (allowed)
      diagnostic << " (and not the ignore index " << *allowed << ")";
    return diagnostic;
  }
  return success();
}

/// The number of classes of cross-entropy logits [N, C].
static int64_t getClassCount(const at::Tensor &logits) {
  return logits.size(logits.dim() - 1);
}

LogicalResult mlir::remat::checkIndexOperands(Operation *op,
                                              llvm::ArrayRef<at::Tensor> in) {
  auto rows = [](Type type) {
    return cast<RankedTensorType>(type).getDimSize(0);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<nn::MaxPool2dBackwardOp, nn::MaxPool3dBackwardOp>([&](auto o) {
        // The flat index over the spatial dimensions of an input plane.
        int64_t plane = 1;
        for (int64_t size : o.getType().getShape().drop_front(2))
          plane *= size;
        return checkRange(op, in[1], plane, "index",
                          "the " + llvm::Twine(plane) +
                              " positions of an input plane");
      })
      .Case([&](nn::EmbeddingOp o) {
        int64_t count = rows(o.getWeight().getType());
        return checkRange(op, in[1], count, "index",
                          "the " + llvm::Twine(count) + " rows of the table");
      })
      .Case([&](nn::EmbeddingBackwardOp o) {
        int64_t count = rows(o.getType());
        return checkRange(op, in[1], count, "index",
                          "the " + llvm::Twine(count) + " rows of the table");
      })
      .Case([&](nn::CrossEntropyOp o) {
        int64_t count = getClassCount(in[0]);
        return checkRange(op, in[1], count, "label",
                          "the " + llvm::Twine(count) + " classes",
                          int64_t(o.getIgnoreIndex()));
      })
      .Case([&](nn::CrossEntropyBackwardOp o) {
        int64_t count = getClassCount(in[1]);
        return checkRange(op, in[2], count, "label",
                          "the " + llvm::Twine(count) + " classes",
                          int64_t(o.getIgnoreIndex()));
      })
      .Default([](Operation *) { return success(); });
}
