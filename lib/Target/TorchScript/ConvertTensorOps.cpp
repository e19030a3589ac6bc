//===- ConvertTensorOps.cpp - element-wise, shape ops and reductions ------===//
//
// Activations, arithmetic with tensors and scalars, reshapes and other
// layout changes, concatenation and slicing, sums and means, and constant
// fills.
//
//===----------------------------------------------------------------------===//

#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNOps.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
using Node = torch::jit::Node;

// The nodes that are one nn op each, operands from their tensor inputs in
// order (the op table's atenImport): kAtenOneToOneOps.
#define GEN_NN_ATEN_IMPORTS
#include "remat/Dialect/NN/IR/NNOpTable.inc"

std::optional<LogicalResult>
NodeConverter::convertTensorOp(Node *node, llvm::StringRef kind) {
  for (const AtenOneToOneOp &entry : kAtenOneToOneOps)
    if (kind == entry.kind)
      return convertOneToOne(node, entry.numInputs, entry.create);
  if (kind == "aten::gelu" || kind == "aten::hardtanh" ||
      kind == "aten::relu6" || kind == "aten::clamp" ||
      kind == "aten::clamp_min" || kind == "aten::clamp_max")
    return convertUnary(node, kind);
  if (kind == "aten::add" || kind == "aten::sub" || kind == "aten::mul" ||
      kind == "aten::div" || kind == "aten::rsub")
    return convertBinary(node, kind);
  if (kind == "aten::pow" || kind == "aten::square")
    return convertPow(node, kind);
  if (kind == "aten::neg") {
    // -x (rotate_half of rotary embeddings): x * -1.
    FailureOr<Value> self = getTensor(node, 0);
    if (failed(self))
      return failure();
    finish(node, nn::MulScalarOp::create(builder, loc, *self,
                                         builder.getF64FloatAttr(-1.0)));
    return success();
  }
  if (kind == "aten::view" || kind == "aten::reshape" ||
      kind == "aten::flatten" || kind == "aten::unflatten" ||
      kind == "aten::unsqueeze" || kind == "aten::squeeze" ||
      kind == "aten::view_as" || kind == "aten::reshape_as")
    return convertReshape(node);
  if (kind == "aten::transpose" || kind == "aten::swapaxes" ||
      kind == "aten::swapdims")
    return convertTranspose(node, /*isT=*/false);
  if (kind == "aten::t")
    return convertTranspose(node, /*isT=*/true);
  if (kind == "aten::repeat" || kind == "aten::tile")
    return convertRepeat(node);
  if (kind == "aten::permute")
    return convertPermute(node);
  if (kind == "aten::expand" || kind == "aten::expand_as")
    return convertExpand(node);
  if (kind == "aten::broadcast_tensors")
    return convertBroadcastTensors(node);
  if (kind == "aten::cat")
    return convertConcat(node);
  if (kind == "aten::stack")
    return convertStack(node);
  if (kind == "aten::slice")
    return convertSlice(node);
  if (kind == "aten::select")
    return convertSelect(node);
  if (kind == "aten::linalg_vector_norm")
    return convertVectorNorm(node);
  if (kind == "aten::sum")
    return convertReduction(node, /*isMean=*/false);
  if (kind == "aten::mean")
    return convertReduction(node, /*isMean=*/true);
  if (kind == "aten::chunk" || kind == "aten::unsafe_chunk" ||
      kind == "aten::split" || kind == "aten::unsafe_split" ||
      kind == "aten::split_with_sizes" ||
      kind == "aten::unsafe_split_with_sizes" || kind == "aten::unbind")
    return convertSplit(node, kind);
  if (kind == "prim::ListUnpack" && isTensorList(node, 0))
    return convertListUnpack(node);
  if (kind == "aten::__getitem__" && isTensorList(node, 0))
    return convertListIndex(node);
  if (kind == "aten::roll")
    return convertRoll(node);
  if (kind == "aten::constant_pad_nd" || kind == "aten::pad")
    return convertPad(node, kind);
  if (kind == "aten::index")
    return convertIndex(node);
  if (kind == "aten::empty" || kind == "aten::empty_like" ||
      kind == "aten::new_empty")
    return convertEmpty(node);
  if (kind == "aten::zeros" || kind == "aten::ones" || kind == "aten::full" ||
      kind == "aten::zeros_like" || kind == "aten::ones_like" ||
      kind == "aten::full_like")
    return convertFill(node, kind);
  return std::nullopt;
}

static std::optional<double> getScalar(const std::optional<c10::IValue> &value);

LogicalResult NodeConverter::convertUnary(Node *node, llvm::StringRef kind) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  Operation *op;
  if (kind == "aten::gelu") {
    FailureOr<std::string> approximate = getString(node, 1);
    if (failed(approximate))
      return failure();
    op = nn::GeluOp::create(builder, loc, *input, *approximate);
  } else {
    // hardtanh(self, min_val, max_val); relu6(self) is hardtanh(self, 0, 6);
    // clamp with constant bounds, a missing one infinite (F.normalize's
    // clamp_min of the norm). A value exactly at a bound gets no gradient
    // from hardtanh, where PyTorch's clamp passes it.
    double minVal = 0.0, maxVal = 6.0;
    if (kind.starts_with("aten::clamp")) {
      double inf = std::numeric_limits<double>::infinity();
      auto getBound = [&](size_t index, double missing) -> FailureOr<double> {
        if (isNone(node, index))
          return missing;
        std::optional<double> bound = getScalar(getConstant(node, index));
        if (!bound)
          return emitInputError(node, index)
                 << "is not supported: only a constant number (not a "
                    "tensor of bounds)";
        return *bound;
      };
      bool isMax = kind == "aten::clamp_max";
      FailureOr<double> low =
          isMax ? FailureOr<double>(-inf) : getBound(1, -inf);
      FailureOr<double> high = kind == "aten::clamp" ? getBound(2, inf)
                               : isMax               ? getBound(1, inf)
                                                     : FailureOr<double>(inf);
      if (failed(low) || failed(high))
        return failure();
      if (*low > *high)
        return emitNodeError(node)
               << "has its lower bound above its upper bound ("
               << llvm::formatv("{0} > {1}", llvm::format("%g", *low),
                                llvm::format("%g", *high))
                      .str()
               << ")";
      minVal = *low;
      maxVal = *high;
    } else if (kind == "aten::hardtanh") {
      FailureOr<double> low = getDouble(node, 1);
      FailureOr<double> high = getDouble(node, 2);
      if (failed(low) || failed(high))
        return failure();
      if (*low > *high)
        return emitInputError(node, 2)
               << "must not be less than 'min_val' ("
               << llvm::formatv("{0}", llvm::format("%g", *low)).str() << ")";
      minVal = *low;
      maxVal = *high;
    }
    op = nn::HardtanhOp::create(builder, loc, *input,
                                builder.getF64FloatAttr(minVal),
                                builder.getF64FloatAttr(maxVal));
  }
  finish(node, op);
  return success();
}

LogicalResult NodeConverter::convertOneToOne(
    Node *node, unsigned numInputs,
    Operation *(*create)(OpBuilder &, Location, ArrayRef<Value>)) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < numInputs; ++i) {
    FailureOr<Value> input = getTensor(node, i);
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  finish(node, create(builder, loc, inputs));
  return success();
}

/// The scalar value of a constant operand (a number, or a 0-d constant
/// tensor as traced graphs record Python numbers), if it is one.
static std::optional<double> getScalar(const std::optional<c10::IValue> &value) {
  if (!value)
    return std::nullopt;
  if (value->isDouble())
    return value->toDouble();
  if (value->isInt())
    return static_cast<double>(value->toInt());
  if (value->isTensor() && value->toTensor().dim() == 0)
    return value->toTensor().item<double>();
  return std::nullopt;
}

LogicalResult NodeConverter::convertPow(Node *node, llvm::StringRef kind) {
  // pow(Tensor self, Scalar exponent); square(self) is pow(self, 2).
  FailureOr<Value> self = getTensor(node, 0);
  if (failed(self))
    return failure();
  std::optional<double> exponent = 2.0;
  if (kind == "aten::pow")
    exponent = getScalar(getConstant(node, 1));
  if (!exponent)
    return emitInputError(node, 1)
           << "is not supported: only a constant number exponent";
  finish(node, nn::PowScalarOp::create(builder, loc, *self,
                                       builder.getF64FloatAttr(*exponent)));
  return success();
}

LogicalResult NodeConverter::convertBinary(Node *node, llvm::StringRef kind) {
  // add/sub/rsub take (self, other, alpha); div may take a rounding mode.
  bool hasAlpha = kind == "aten::add" || kind == "aten::sub" ||
                  kind == "aten::rsub";
  double alpha = 1.0;
  if (hasAlpha) {
    FailureOr<double> value = getDouble(node, 2);
    if (failed(value))
      return failure();
    alpha = *value;
  }
  if (kind == "aten::div" && node->inputs().size() > 2 && !isNone(node, 2))
    return emitInputError(node, 2) << "is not supported (only None)";
  FailureOr<Value> self = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(self) || failed(type))
    return failure();

  Value other = materialize(node->input(1));
  std::optional<double> scalar = getScalar(getConstant(node, 1));
  if (!other && !scalar)
    return emitInputError(node, 1) << "must be a tensor or a number constant";

  Operation *op;
  if (scalar) {
    // x op (alpha * c); rsub: alpha * c - x = (x * -1) + alpha * c.
    double c = hasAlpha ? alpha * *scalar : *scalar;
    if (kind == "aten::add")
      op = nn::AddScalarOp::create(builder, loc, *self, builder.getF64FloatAttr(c));
    else if (kind == "aten::sub")
      op = nn::SubScalarOp::create(builder, loc, *self, builder.getF64FloatAttr(c));
    else if (kind == "aten::mul")
      op = nn::MulScalarOp::create(builder, loc, *self, builder.getF64FloatAttr(c));
    else if (kind == "aten::div")
      op = nn::DivScalarOp::create(builder, loc, *self, builder.getF64FloatAttr(c));
    else
      op = nn::AddScalarOp::create(
          builder, loc,
          nn::MulScalarOp::create(builder, loc, *self,
                                  builder.getF64FloatAttr(-1.0)),
          builder.getF64FloatAttr(c));
    finish(node, op);
    return success();
  }
  if (alpha != 1.0)
    other = nn::MulScalarOp::create(builder, loc, other, builder.getF64FloatAttr(alpha));
  if (kind == "aten::add")
    op = nn::AddOp::create(builder, loc, *type, *self, other);
  else if (kind == "aten::sub")
    op = nn::SubOp::create(builder, loc, *type, *self, other);
  else if (kind == "aten::rsub")
    op = nn::SubOp::create(builder, loc, *type, other, *self);
  else if (kind == "aten::mul")
    op = nn::MulOp::create(builder, loc, *type, *self, other);
  else
    op = nn::DivOp::create(builder, loc, *type, *self, other);
  finish(node, op);
  return success();
}

LogicalResult NodeConverter::convertReshape(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(type))
    return failure();
  if (input->getType() == *type) {
    map(node->output(), *input);
    return success();
  }
  if (node->kind().toQualString() == llvm::StringRef("aten::flatten")) {
    int64_t rank = cast<RankedTensorType>(input->getType()).getRank();
    FailureOr<int64_t> start = getDim(node, 1, rank);
    FailureOr<int64_t> end = getDim(node, 2, rank);
    if (failed(start) || failed(end))
      return failure();
    finish(node,
           nn::FlattenOp::create(builder, loc, *type, *input, *start, *end));
    return success();
  }
  finish(node, nn::ReshapeOp::create(builder, loc, *type, *input));
  return success();
}

LogicalResult NodeConverter::convertTranspose(Node *node, bool isT) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(type))
    return failure();
  int64_t rank = type->getRank();
  int64_t dim0 = 0, dim1 = 1;
  if (!isT) {
    FailureOr<int64_t> first = getDim(node, 1, rank);
    FailureOr<int64_t> second = getDim(node, 2, rank);
    if (failed(first) || failed(second))
      return failure();
    dim0 = *first;
    dim1 = *second;
  }
  if (rank < 2 || dim0 == dim1) {
    map(node->output(), *input);
    return success();
  }
  finish(node,
         nn::TransposeOp::create(builder, loc, *type, *input, dim0, dim1));
  return success();
}

LogicalResult NodeConverter::convertPermute(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> dims = getIntList(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(dims) || failed(type))
    return failure();
  for (int64_t &dim : *dims)
    if (dim < 0)
      dim += type->getRank();
  finish(node, nn::PermuteOp::create(builder, loc, *type, *input, *dims));
  return success();
}

LogicalResult NodeConverter::convertExpand(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(type))
    return failure();
  if (input->getType() == *type) {
    map(node->output(), *input);
    return success();
  }
  finish(node, nn::BroadcastToOp::create(builder, loc, *type, *input));
  return success();
}

LogicalResult NodeConverter::convertBroadcastTensors(Node *node) {
  // torch.broadcast_tensors (F.mse_loss and F.l1_loss call it): each tensor
  // broadcast to the shape they share, as a list that ListUnpack reads.
  FailureOr<SmallVector<Value>> tensors = getTensorList(node, 0);
  if (failed(tensors))
    return failure();
  SmallVector<int64_t> shape;
  for (Value tensor : *tensors) {
    ArrayRef<int64_t> dims =
        cast<RankedTensorType>(tensor.getType()).getShape();
    if (dims.size() > shape.size())
      shape.insert(shape.begin(), dims.size() - shape.size(), 1);
    for (auto [index, dim] : llvm::enumerate(dims)) {
      int64_t &shared = shape[shape.size() - dims.size() + index];
      if (shared != dim && shared != 1 && dim != 1)
        return emitInputError(node, 0)
               << "holds tensors whose shapes do not broadcast (a size "
               << shared << " against " << dim << ")";
      if (shared == 1)
        shared = dim;
    }
  }
  SmallVector<Value> broadcast;
  for (Value tensor : *tensors) {
    auto type = cast<RankedTensorType>(tensor.getType());
    auto target = RankedTensorType::get(shape, type.getElementType());
    broadcast.push_back(type == target
                            ? tensor
                            : record(node, nn::BroadcastToOp::create(
                                               builder, loc, target, tensor)));
  }
  tensorLists[node->output()] = std::move(broadcast);
  return success();
}

LogicalResult NodeConverter::convertRepeat(Node *node) {
  // x.repeat(r0, ..., rm-1) (and torch.tile): x as [1, d0, 1, d1, ...]
  // (leading 1s where the repeats outnumber x's dims), broadcast to
  // [r0, d0, r1, d1, ...], then merged pairwise to [r0 * d0, ...].
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> repeats = getIntList(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(repeats) || failed(type))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  SmallVector<int64_t> sizes(inputType.getShape());
  bool isTile = node->kind().toQualString() == llvm::StringRef("aten::tile");
  // tile pads the repeats with leading 1s, repeat refuses fewer repeats.
  if (isTile && repeats->size() < sizes.size())
    repeats->insert(repeats->begin(), sizes.size() - repeats->size(), 1);
  if (repeats->size() < sizes.size() ||
      llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return emitInputError(node, 1)
           << "must have a non-negative count for each of the input's "
           << sizes.size() << " dimensions";
  sizes.insert(sizes.begin(), repeats->size() - sizes.size(), 1);
  SmallVector<int64_t> spread, broadcast;
  for (auto [repeat, size] : llvm::zip_equal(*repeats, sizes)) {
    spread.append({1, size});
    broadcast.append({repeat, size});
  }
  Type element = type->getElementType();
  Value value = *input;
  if (inputType.getShape() != ArrayRef<int64_t>(spread))
    value = record(
        node, nn::ReshapeOp::create(
                  builder, loc, RankedTensorType::get(spread, element), value));
  value = record(node, nn::BroadcastToOp::create(
                           builder, loc,
                           RankedTensorType::get(broadcast, element), value));
  finish(node, nn::ReshapeOp::create(builder, loc, *type, value));
  return success();
}

LogicalResult NodeConverter::convertConcat(Node *node) {
  FailureOr<SmallVector<Value>> list = getTensorList(node, 0);
  if (failed(list))
    return failure();
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(type))
    return failure();
  FailureOr<int64_t> dim = getDim(node, 1, type->getRank());
  if (failed(dim))
    return failure();
  if (list->size() == 1) {
    map(node->output(), list->front());
    return success();
  }
  finish(node, nn::ConcatOp::create(builder, loc, *type, *list, *dim));
  return success();
}

LogicalResult NodeConverter::convertStack(Node *node) {
  // torch.stack(tensors, dim): each tensor with a dimension of 1 inserted
  // at dim (nn.reshape), then concatenated along it.
  FailureOr<SmallVector<Value>> list = getTensorList(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(list) || failed(type))
    return failure();
  FailureOr<int64_t> dim = getDim(node, 1, type->getRank());
  if (failed(dim))
    return failure();
  SmallVector<Value> pieces;
  for (Value tensor : *list) {
    auto tensorType = cast<RankedTensorType>(tensor.getType());
    if (tensorType.getRank() + 1 != type->getRank())
      return emitInputError(node, 0) << "holds a " << tensorType
                                     << ", which does not stack into " << *type;
    SmallVector<int64_t> shape(tensorType.getShape());
    shape.insert(shape.begin() + *dim, 1);
    pieces.push_back(record(
        node, nn::ReshapeOp::create(
                  builder, loc,
                  RankedTensorType::get(shape, tensorType.getElementType()),
                  tensor)));
  }
  if (pieces.size() == 1) {
    map(node->output(), pieces.front());
    return success();
  }
  finish(node, nn::ConcatOp::create(builder, loc, *type, pieces, *dim));
  return success();
}

/// Python's rule for a slice bound: negative counts from the end, then
/// clamped into [0, size].
static int64_t normalizeBound(int64_t bound, int64_t size) {
  if (bound < 0)
    bound += size;
  return std::clamp<int64_t>(bound, 0, size);
}

LogicalResult NodeConverter::convertSlice(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  FailureOr<int64_t> dim = getDim(node, 1, inputType.getRank());
  FailureOr<int64_t> step = getInt(node, 4);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(dim) || failed(step) || failed(type))
    return failure();
  int64_t size = inputType.getDimSize(*dim);
  int64_t start = 0, end = size;
  if (!isNone(node, 2)) {
    FailureOr<int64_t> value = getInt(node, 2);
    if (failed(value))
      return failure();
    start = normalizeBound(*value, size);
  }
  if (!isNone(node, 3)) {
    FailureOr<int64_t> value = getInt(node, 3);
    if (failed(value))
      return failure();
    end = std::max(start, normalizeBound(*value, size));
  }
  if (start == 0 && end == size && *step == 1) {
    map(node->output(), *input);
    return success();
  }
  finish(node, nn::SliceOp::create(builder, loc, *type, *input, *dim, start,
                                   end, *step));
  return success();
}

LogicalResult NodeConverter::convertSelect(Node *node) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  FailureOr<int64_t> dim = getDim(node, 1, inputType.getRank());
  FailureOr<int64_t> index = getInt(node, 2);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(dim) || failed(index) || failed(type))
    return failure();
  int64_t size = inputType.getDimSize(*dim);
  int64_t start = *index < 0 ? *index + size : *index;
  if (start < 0 || start >= size)
    return emitInputError(node, 2)
           << "is " << *index << ", out of range for size " << size;
  SmallVector<int64_t> slicedShape(inputType.getShape());
  slicedShape[*dim] = 1;
  auto sliced = nn::SliceOp::create(
      builder, loc, RankedTensorType::get(slicedShape, type->getElementType()),
      *input, *dim, start, start + 1, 1);
  createdOps.push_back({sliced, getModulePath(node)});
  finish(node, nn::ReshapeOp::create(builder, loc, *type, sliced));
  return success();
}

LogicalResult NodeConverter::convertVectorNorm(Node *node) {
  // linalg_vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None), as
  // F.normalize and x.norm() call it: sqrt(sum(x * x)) over dim (every
  // dimension when None). Like PyTorch's, the gradient at a zero vector is
  // not finite; F.normalize clamps the norm, not its gradient.
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> ord = getDouble(node, 1);
  FailureOr<bool> keepdim = getBool(node, 3);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(ord) || failed(keepdim) || failed(type))
    return failure();
  if (*ord != 2.0)
    return emitInputError(node, 1)
           << "is " << llvm::formatv("{0}", llvm::format("%g", *ord)).str()
           << ": only the 2-norm is supported";
  if (!isNone(node, 4))
    return emitInputError(node, 4) << "is not supported (only None)";
  FailureOr<SmallVector<int64_t>> dims = getReducedDims(
      node, 2, cast<RankedTensorType>(input->getType()).getRank());
  if (failed(dims))
    return failure();
  Value squares = record(
      node, nn::MulOp::create(builder, loc, input->getType(), *input, *input));
  Value sum = record(
      node, nn::SumOp::create(builder, loc, *type, squares, *dims, *keepdim));
  finish(node, nn::PowScalarOp::create(builder, loc, sum,
                                       builder.getF64FloatAttr(0.5)));
  return success();
}

FailureOr<SmallVector<int64_t>>
NodeConverter::getReducedDims(Node *node, size_t index, int64_t rank) {
  // None or [] reduces every dimension.
  SmallVector<int64_t> dims;
  if (index < node->inputs().size() && !isNone(node, index)) {
    FailureOr<SmallVector<int64_t>> list = getIntList(node, index);
    if (failed(list))
      return failure();
    dims = *list;
  }
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  for (int64_t &dim : dims) {
    if (dim < -rank || dim >= rank)
      return emitInputError(node, index)
             << "holds " << dim << ", out of range for rank " << rank;
    if (dim < 0)
      dim += rank;
  }
  llvm::sort(dims);
  return dims;
}

LogicalResult NodeConverter::convertReduction(Node *node, bool isMean) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(type))
    return failure();
  int64_t rank = cast<RankedTensorType>(input->getType()).getRank();
  // sum(x, dtype) and mean(x, dtype) reduce everything; the .dim forms
  // take (x, dims, keepdim, dtype).
  bool isDimForm = node->inputs().size() == 4;
  bool keepdim = false;
  size_t dtypeIndex = isDimForm ? 3 : 1;
  if (isDimForm) {
    FailureOr<bool> keep = getBool(node, 2);
    if (failed(keep))
      return failure();
    keepdim = *keep;
  }
  if (!isNone(node, dtypeIndex))
    return emitInputError(node, dtypeIndex) << "is not supported (only None)";
  FailureOr<SmallVector<int64_t>> dims =
      isDimForm ? getReducedDims(node, 1, rank)
                : getReducedDims(node, node->inputs().size(), rank);
  if (failed(dims))
    return failure();
  Operation *op =
      isMean ? nn::MeanOp::create(builder, loc, *type, *input, *dims, keepdim)
                   .getOperation()
             : nn::SumOp::create(builder, loc, *type, *input, *dims, keepdim)
                   .getOperation();
  finish(node, op);
  return success();
}

LogicalResult NodeConverter::convertFill(Node *node, llvm::StringRef kind) {
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(type))
    return failure();
  double value = kind.contains("ones") ? 1.0 : 0.0;
  if (kind == "aten::full" || kind == "aten::full_like") {
    FailureOr<double> fill = getDouble(node, 1);
    if (failed(fill))
      return failure();
    value = *fill;
  }
  if (!isa<FloatType>(type->getElementType()))
    return emitNodeError(node) << "fills of integer tensors are not supported";
  pendingFills.insert_or_assign(
      node->output(), PendingFill{*type, value, loc, getModulePath(node)});
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor lists: chunk, split, unbind and their readers
//===----------------------------------------------------------------------===//

LogicalResult NodeConverter::convertSplit(Node *node, llvm::StringRef kind) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  bool isUnbind = kind == "aten::unbind";
  FailureOr<int64_t> dim = getDim(node, isUnbind ? 1 : 2, inputType.getRank());
  if (failed(dim))
    return failure();
  int64_t size = inputType.getDimSize(*dim);
  // Piece sizes: chunk(n) takes ceil(size / n) per piece, split(k) k per
  // piece, the last one what is left; split(sizes) the sizes; unbind 1.
  SmallVector<int64_t> sizes;
  if (isUnbind) {
    sizes.assign(size, 1);
  } else {
    std::optional<c10::IValue> second = getConstant(node, 1);
    if (second && second->isIntList()) {
      for (int64_t piece : second->toIntVector())
        sizes.push_back(piece);
      int64_t total = 0;
      for (int64_t piece : sizes) {
        if (piece < 0)
          return emitInputError(node, 1) << "holds a negative size";
        if (llvm::AddOverflow(total, piece, total))
          return emitInputError(node, 1) << "sums past the int64 range";
      }
      if (total != size)
        return emitInputError(node, 1)
               << "sums to " << total << ", not the size " << size
               << " of dimension " << *dim;
    } else {
      FailureOr<int64_t> count = getInt(node, 1);
      if (failed(count))
        return failure();
      bool isChunk = kind.ends_with("chunk");
      if (*count <= 0)
        return emitInputError(node, 1) << "is " << *count
                                       << "; it must be positive";
      int64_t step =
          isChunk ? size / *count + (size % *count != 0 ? 1 : 0) : *count;
      if (size == 0)
        return emitNodeError(node) << "splits an empty dimension";
      for (int64_t start = 0; start < size; start += step)
        sizes.push_back(std::min(step, size - start));
    }
  }
  SlicedList list{*input, *dim, {}, isUnbind, loc, getModulePath(node), {}};
  int64_t start = 0;
  for (int64_t piece : sizes) {
    list.bounds.push_back({start, start + piece});
    start += piece;
  }
  list.pieces.assign(sizes.size(), Value());
  slicedLists.insert_or_assign(node->output(), std::move(list));
  return success();
}

FailureOr<Value> NodeConverter::getSlicedPiece(SlicedList &list,
                                               int64_t element) {
  Value &piece = list.pieces[element];
  if (piece)
    return piece;
  auto inputType = cast<RankedTensorType>(list.input.getType());
  auto [start, end] = list.bounds[element];
  Value value = list.input;
  if (start != 0 || end != inputType.getDimSize(list.dim)) {
    SmallVector<int64_t> shape(inputType.getShape());
    shape[list.dim] = end - start;
    auto slice = nn::SliceOp::create(
        builder, list.loc,
        RankedTensorType::get(shape, inputType.getElementType()), value,
        list.dim, start, end, 1);
    createdOps.push_back({slice, list.modulePath});
    value = slice;
  }
  if (list.squeeze) {
    SmallVector<int64_t> shape(inputType.getShape());
    shape.erase(shape.begin() + list.dim);
    auto reshape = nn::ReshapeOp::create(
        builder, list.loc,
        RankedTensorType::get(shape, inputType.getElementType()), value);
    createdOps.push_back({reshape, list.modulePath});
    value = reshape;
  }
  piece = value;
  return piece;
}

bool NodeConverter::isTensorList(Node *node, size_t index) const {
  if (index >= node->inputs().size())
    return false;
  const torch::jit::Value *list = node->input(index);
  return tensorLists.contains(list) || slicedLists.count(list);
}

FailureOr<Value> NodeConverter::getListElement(Node *node, size_t index,
                                               int64_t element) {
  const torch::jit::Value *list = node->input(index);
  auto fromValues = [&](size_t count) -> FailureOr<int64_t> {
    int64_t normalized = element < 0 ? element + count : element;
    if (normalized < 0 || normalized >= static_cast<int64_t>(count))
      return emitNodeError(node) << "index " << element
                                 << " is out of range for a list of "
                                 << count << " tensors";
    return normalized;
  };
  if (auto built = tensorLists.find(list); built != tensorLists.end()) {
    FailureOr<int64_t> at = fromValues(built->second.size());
    if (failed(at))
      return failure();
    return built->second[*at];
  }
  auto sliced = slicedLists.find(list);
  if (sliced == slicedLists.end())
    return emitInputError(node, index)
           << "must be a list of tensors built in the graph or returned by "
              "chunk, split or unbind";
  FailureOr<int64_t> at = fromValues(sliced->second.bounds.size());
  if (failed(at))
    return failure();
  return getSlicedPiece(sliced->second, *at);
}

FailureOr<SmallVector<Value>> NodeConverter::getTensorList(Node *node,
                                                          size_t index) {
  if (auto built = tensorLists.find(node->input(index));
      built != tensorLists.end())
    return built->second;
  auto sliced = slicedLists.find(node->input(index));
  if (sliced == slicedLists.end())
    return emitInputError(node, index)
           << "must be a list of tensors built in the graph or returned by "
              "chunk, split or unbind";
  SmallVector<Value> elements;
  for (size_t i = 0; i < sliced->second.bounds.size(); ++i) {
    FailureOr<Value> piece = getSlicedPiece(sliced->second, i);
    if (failed(piece))
      return failure();
    elements.push_back(*piece);
  }
  return elements;
}

LogicalResult NodeConverter::convertListUnpack(Node *node) {
  auto count = node->outputs().size();
  for (size_t i = 0; i < count; ++i) {
    if (!node->output(i)->hasUses())
      continue;
    FailureOr<Value> element = getListElement(node, 0, i);
    if (failed(element))
      return failure();
    FailureOr<RankedTensorType> type = getResultType(node, i);
    if (failed(type))
      return failure();
    if (element->getType() != *type)
      return emitNodeError(node) << "element " << i << " has type "
                                 << element->getType()
                                 << ", but shape propagation gave " << *type;
    map(node->output(i), *element);
  }
  // The list's length must match, as prim::ListUnpack checks at run time.
  size_t length = tensorLists.contains(node->input(0))
                      ? tensorLists.find(node->input(0))->second.size()
                      : slicedLists.find(node->input(0))->second.bounds.size();
  if (length != count)
    return emitNodeError(node) << "unpacks " << count
                               << " tensors from a list of " << length;
  return success();
}

LogicalResult NodeConverter::convertListIndex(Node *node) {
  FailureOr<int64_t> index = getInt(node, 1);
  if (failed(index))
    return failure();
  FailureOr<Value> element = getListElement(node, 0, *index);
  if (failed(element))
    return failure();
  map(node->output(), *element);
  return success();
}

LogicalResult NodeConverter::convertEmpty(Node *node) {
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(type))
    return failure();
  if (!isa<FloatType>(type->getElementType()))
    return emitNodeError(node) << "empty integer tensors are not supported";
  pendingFills.insert_or_assign(
      node->output(), PendingFill{*type, 0.0, loc, getModulePath(node)});
  return success();
}

//===----------------------------------------------------------------------===//
// Roll, constant padding and indexing by one integer tensor
//===----------------------------------------------------------------------===//

Value NodeConverter::createSlice(Node *node, Value input, int64_t dim,
                                 int64_t start, int64_t end) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = end - start;
  auto slice = nn::SliceOp::create(
      builder, loc, RankedTensorType::get(shape, type.getElementType()), input,
      dim, start, end, 1);
  createdOps.push_back({slice, getModulePath(node)});
  return slice;
}

Value NodeConverter::createConcat(Node *node, ArrayRef<Value> pieces,
                                  int64_t dim) {
  auto first = cast<RankedTensorType>(pieces.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value piece : pieces)
    shape[dim] += cast<RankedTensorType>(piece.getType()).getDimSize(dim);
  auto concat = nn::ConcatOp::create(
      builder, loc, RankedTensorType::get(shape, first.getElementType()),
      pieces, dim);
  createdOps.push_back({concat, getModulePath(node)});
  return concat;
}

LogicalResult NodeConverter::convertRoll(Node *node) {
  // roll(x, shifts, dims): along each dim, the last `shift` elements move to
  // the front: concat(x[n - s:], x[:n - s]).
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> shifts = getIntList(node, 1);
  FailureOr<SmallVector<int64_t>> dims = getIntList(node, 2);
  if (failed(input) || failed(shifts) || failed(dims))
    return failure();
  if (dims->empty() || dims->size() != shifts->size())
    return emitInputError(node, 2)
           << "must give one dimension per shift (rolling the flattened "
              "tensor is not supported)";
  auto type = cast<RankedTensorType>(input->getType());
  Value value = *input;
  for (auto [shift, rawDim] : llvm::zip(*shifts, *dims)) {
    int64_t rank = type.getRank();
    if (rawDim < -rank || rawDim >= rank)
      return emitInputError(node, 2) << "holds " << rawDim
                                     << ", out of range for rank " << rank;
    int64_t dim = rawDim < 0 ? rawDim + rank : rawDim;
    int64_t size = type.getDimSize(dim);
    int64_t s = size == 0 ? 0 : ((shift % size) + size) % size;
    if (s == 0)
      continue;
    Value tail = createSlice(node, value, dim, size - s, size);
    Value head = createSlice(node, value, dim, 0, size - s);
    value = createConcat(node, {tail, head}, dim);
  }
  map(node->output(), value);
  return success();
}

LogicalResult NodeConverter::convertPad(Node *node, llvm::StringRef kind) {
  // constant_pad_nd(x, pad, value); pad(x, pad, mode, value). The pad list
  // holds (before, after) pairs from the last dimension backwards; a
  // negative amount crops.
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> pad = getIntList(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(pad) || failed(type))
    return failure();
  size_t valueIndex = 2;
  if (kind == "aten::pad") {
    FailureOr<std::string> mode = getString(node, 2);
    if (failed(mode))
      return failure();
    if (*mode != "constant")
      return emitInputError(node, 2)
             << "is '" << *mode << "'; only 'constant' is supported";
    valueIndex = 3;
  }
  double fill = 0.0;
  if (!isNone(node, valueIndex)) {
    FailureOr<double> value = getDouble(node, valueIndex);
    if (failed(value))
      return failure();
    fill = *value;
  }
  auto inputType = cast<RankedTensorType>(input->getType());
  int64_t rank = inputType.getRank();
  if (pad->size() % 2 != 0 || static_cast<int64_t>(pad->size()) > 2 * rank)
    return emitInputError(node, 1)
           << "must hold pairs, at most one per dimension";
  Value value = *input;
  for (size_t pair = 0; pair < pad->size() / 2; ++pair) {
    int64_t dim = rank - 1 - pair;
    int64_t before = (*pad)[2 * pair], after = (*pad)[2 * pair + 1];
    int64_t size = cast<RankedTensorType>(value.getType()).getDimSize(dim);
    // Bounds first, so that negating and adding below cannot overflow.
    constexpr int64_t kLargestPad = int64_t(1) << 40;
    if (before < -size || after < -size)
      return emitInputError(node, 1) << "crops more than dimension " << dim
                                     << " holds";
    if (before > kLargestPad || after > kLargestPad)
      return emitInputError(node, 1) << "pads dimension " << dim
                                     << " by more than 2^40 elements";
    int64_t start = before < 0 ? -before : 0;
    int64_t end = after < 0 ? size + after : size;
    if (start > end)
      return emitInputError(node, 1) << "crops more than dimension " << dim
                                     << " holds";
    if (start != 0 || end != size)
      value = createSlice(node, value, dim, start, end);
    SmallVector<Value> pieces;
    auto addFill = [&](int64_t amount) {
      auto current = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(current.getShape());
      shape[dim] = amount;
      auto full = nn::FullOp::create(
          builder, loc, RankedTensorType::get(shape, current.getElementType()),
          builder.getF64FloatAttr(fill));
      createdOps.push_back({full, getModulePath(node)});
      pieces.push_back(full);
    };
    if (before > 0)
      addFill(before);
    pieces.push_back(value);
    if (after > 0)
      addFill(after);
    if (pieces.size() > 1)
      value = createConcat(node, pieces, dim);
  }
  if (value.getType() != *type)
    return emitNodeError(node) << "padded to " << value.getType()
                               << ", but shape propagation gave " << *type;
  map(node->output(), value);
  return success();
}

LogicalResult NodeConverter::convertIndex(Node *node) {
  // index(x, [None, ..., idx]): slices of x along dimension d (the position
  // of the one index tensor after leading Nones, as x[:, idx]) picked by an
  // integer tensor. An embedding of x with d moved first, seen as [n,
  // rest] (whose gradient scatter-adds into x); the picked rows go where d
  // was, as PyTorch places them.
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(input) || failed(type))
    return failure();
  torch::jit::Node *list = node->input(1)->node();
  size_t dim = 0;
  if (list->kind() == c10::prim::ListConstruct)
    while (dim + 1 < list->inputs().size() && isNone(list, dim))
      ++dim;
  if (list->kind() != c10::prim::ListConstruct ||
      dim + 1 != list->inputs().size())
    return emitInputError(node, 1)
           << "must be one index tensor after leading Nones (x[idx], "
              "x[:, idx])";
  FailureOr<Value> indices = getTensor(list, dim);
  if (failed(indices))
    return failure();
  auto indicesType = cast<RankedTensorType>(indices->getType());
  if (!isa<IntegerType>(indicesType.getElementType()) ||
      indicesType.getElementType().getIntOrFloatBitWidth() < 32)
    return emitInputError(node, 1)
           << "must be a tensor of integer indices (boolean masks are not "
              "supported)";
  auto inputType = cast<RankedTensorType>(input->getType());
  int64_t rank = inputType.getRank();
  if (rank < int64_t(dim) + 1)
    return emitInputError(node, 0)
           << "must have a dimension " << dim << " to index";
  Type element = inputType.getElementType();
  Value table = *input;
  // d first: [x_d, x_0, ..., x_d-1, x_d+1, ...].
  SmallVector<int64_t> toFront = {int64_t(dim)};
  for (int64_t d = 0; d < rank; ++d)
    if (d != int64_t(dim))
      toFront.push_back(d);
  SmallVector<int64_t> others;
  for (int64_t d : ArrayRef<int64_t>(toFront).drop_front())
    others.push_back(inputType.getDimSize(d));
  if (dim != 0) {
    SmallVector<int64_t> shape = {inputType.getDimSize(dim)};
    shape.append(others);
    table = record(node,
                   nn::PermuteOp::create(builder, loc,
                                         RankedTensorType::get(shape, element),
                                         table, toFront));
  }
  int64_t rows = inputType.getDimSize(dim);
  int64_t width = 1;
  for (int64_t size : others)
    width *= size;
  auto tableType = RankedTensorType::get({rows, width}, element);
  if (table.getType() != tableType)
    table = record(node, nn::ReshapeOp::create(builder, loc, tableType, table));
  SmallVector<int64_t> pickedShape(indicesType.getShape());
  pickedShape.push_back(width);
  Value picked = record(
      node, nn::EmbeddingOp::create(builder, loc,
                                    RankedTensorType::get(pickedShape, element),
                                    table, *indices, /*padding_idx=*/-1));
  // [idx..., x_0, ..., x_d-1, x_d+1, ...], then the leading dims before idx.
  int64_t indexRank = indicesType.getRank();
  SmallVector<int64_t> unpacked(indicesType.getShape());
  unpacked.append(others);
  auto unpackedType = RankedTensorType::get(unpacked, element);
  if (picked.getType() != unpackedType)
    picked =
        record(node, nn::ReshapeOp::create(builder, loc, unpackedType, picked));
  if (dim != 0) {
    SmallVector<int64_t> order;
    for (int64_t d = 0; d < int64_t(dim); ++d)
      order.push_back(indexRank + d);
    for (int64_t d = 0; d < indexRank; ++d)
      order.push_back(d);
    for (int64_t d = indexRank + dim; d < int64_t(unpacked.size()); ++d)
      order.push_back(d);
    picked =
        record(node, nn::PermuteOp::create(builder, loc, *type, picked, order));
  }
  if (picked.getType() != *type)
    return emitNodeError(node) << "computes " << picked.getType()
                               << " where the graph has " << *type;
  map(node->output(0), picked);
  return success();
}
