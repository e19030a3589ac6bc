//===- ShapeOps.cpp - reshapes, permutations and reductions ---------------===//
//
// Verifiers and costs of the data-movement ops. They do no arithmetic except
// the reductions (one add per input element; mean adds one division per
// output element); their time is the bytes they move, the interface default.
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNOps.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::nn;

/// Checks that input and result have the same element type.
static LogicalResult verifyElementTypes(Operation *op) {
  return expectSameElementType(op, "input", getTensorType(op->getOperand(0)),
                               "result", getTensorType(op->getResult(0)));
}

Value ReshapeOp::getViewSource() { return getInput(); }

LogicalResult ReshapeOp::verify() {
  if (failed(verifyElementTypes(*this)))
    return failure();
  if (getNumElements(getInput().getType()) != getNumElements(getType()))
    return emitOpError() << "expects as many elements in the result as in the "
                            "input, got "
                         << getType() << " for " << getInput().getType();
  return success();
}

int64_t ReshapeOp::getFlopCount() { return 0; }

Value FlattenOp::getViewSource() { return getInput(); }

LogicalResult FlattenOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyElementTypes(*this)) ||
      failed(expectMinRank(*this, "an input", input, 1)))
    return failure();
  FailureOr<int64_t> start =
      verifyDimAttr(*this, "start_dim", getStartDim(), input.getRank());
  if (failed(start))
    return failure();
  FailureOr<int64_t> end =
      verifyDimAttr(*this, "end_dim", getEndDim(), input.getRank());
  if (failed(end))
    return failure();
  if (*start > *end)
    return emitOpError("expects 'start_dim' not after 'end_dim'");
  ArrayRef<int64_t> shape = input.getShape();
  SmallVector<int64_t> flattened(shape.take_front(*start));
  flattened.push_back(getShapeProduct(shape.slice(*start, *end - *start + 1)));
  llvm::append_range(flattened, shape.drop_front(*end + 1));
  return expectShape(*this, "a result", getType(), flattened);
}

int64_t FlattenOp::getFlopCount() { return 0; }

LogicalResult TransposeOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyElementTypes(*this)))
    return failure();
  FailureOr<int64_t> dim0 =
      verifyDimAttr(*this, "dim0", getDim0(), input.getRank());
  if (failed(dim0))
    return failure();
  FailureOr<int64_t> dim1 =
      verifyDimAttr(*this, "dim1", getDim1(), input.getRank());
  if (failed(dim1))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  std::swap(shape[*dim0], shape[*dim1]);
  return expectShape(*this, "a result", getType(), shape);
}

int64_t TransposeOp::getFlopCount() { return 0; }

LogicalResult PermuteOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyElementTypes(*this)))
    return failure();
  int64_t rank = input.getRank();
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> shape;
  for (int64_t dim : getDims()) {
    std::optional<int64_t> normalized = normalizeDim(dim, rank);
    if (!normalized || seen.test(*normalized))
      break;
    seen.set(*normalized);
    shape.push_back(input.getDimSize(*normalized));
  }
  if (static_cast<int64_t>(getDims().size()) != rank || !seen.all())
    return emitOpError() << "expects 'dims' to be a permutation of the "
                         << rank << " input dimensions";
  return expectShape(*this, "a result", getType(), shape);
}

int64_t PermuteOp::getFlopCount() { return 0; }

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  RankedTensorType first = getTensorType(getInputs().front());
  FailureOr<int64_t> dim =
      verifyDimAttr(*this, "dim", getDim(), first.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[*dim] = 0;
  for (Value input : getInputs()) {
    RankedTensorType type = getTensorType(input);
    if (failed(expectSameElementType(*this, "inputs", first, "inputs", type)))
      return failure();
    SmallVector<int64_t> expected(shape);
    expected[*dim] = type.getRank() == first.getRank() ? type.getDimSize(*dim)
                                                       : 0;
    if (failed(expectShape(*this, "inputs that differ only along 'dim'", type,
                           expected)))
      return failure();
    shape[*dim] += type.getDimSize(*dim);
  }
  if (failed(expectSameElementType(*this, "inputs", first, "result",
                                   getType())))
    return failure();
  return expectShape(*this, "a result", getType(), shape);
}

int64_t ConcatOp::getFlopCount() { return 0; }

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

/// Checks a slice window over `whole` and that `part` is the slice.
template <typename SliceLikeOp>
static LogicalResult verifySlice(SliceLikeOp op, RankedTensorType whole,
                                 RankedTensorType part) {
  if (failed(expectSameElementType(op, "input", whole, "slice", part)))
    return failure();
  FailureOr<int64_t> dim =
      verifyDimAttr(op, "dim", op.getDim(), whole.getRank());
  if (failed(dim))
    return failure();
  int64_t start = op.getStart(), end = op.getEnd(), step = op.getStep();
  int64_t size = whole.getDimSize(*dim);
  if (step < 1)
    return op.emitOpError() << "expects a positive 'step', got " << step;
  if (start < 0 || start > end || end > size)
    return op.emitOpError() << "expects 0 <= start <= end <= " << size
                            << ", got start " << start << " and end " << end;
  SmallVector<int64_t> shape(whole.getShape());
  shape[*dim] = (end - start + step - 1) / step;
  return expectShape(op, "a slice", part, shape);
}

LogicalResult SliceOp::verify() {
  return verifySlice(*this, getInput().getType(), getType());
}

int64_t SliceOp::getFlopCount() { return 0; }

LogicalResult SliceBackwardOp::verify() {
  return verifySlice(*this, getType(), getGradOutput().getType());
}

int64_t SliceBackwardOp::getFlopCount() { return 0; }

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Checks that `dims` names distinct dimensions of the input and that the
/// result drops them (or keeps them as 1 with keepdim).
static LogicalResult verifyReduction(Operation *op, RankedTensorType input,
                                     RankedTensorType result,
                                     ArrayRef<int64_t> dims, bool keepdim) {
  if (failed(expectSameElementType(op, "input", input, "result", result)))
    return failure();
  if (dims.empty())
    return op->emitOpError("expects at least one dimension in 'dims'");
  llvm::SmallBitVector reduced(input.getRank());
  for (int64_t dim : dims) {
    FailureOr<int64_t> normalized =
        verifyDimAttr(op, "dims", dim, input.getRank());
    if (failed(normalized))
      return failure();
    if (reduced.test(*normalized))
      return op->emitOpError() << "expects distinct dimensions in 'dims', got "
                               << dim << " twice";
    reduced.set(*normalized);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0, e = input.getRank(); i < e; ++i) {
    if (!reduced.test(i))
      shape.push_back(input.getDimSize(i));
    else if (keepdim)
      shape.push_back(1);
  }
  return expectShape(op, "a result", result, shape);
}

LogicalResult SumOp::verify() {
  return verifyReduction(*this, getInput().getType(), getType(), getDims(),
                         getKeepdim());
}

int64_t SumOp::getFlopCount() { return getNumElements(getInput().getType()); }

LogicalResult MeanOp::verify() {
  return verifyReduction(*this, getInput().getType(), getType(), getDims(),
                         getKeepdim());
}

int64_t MeanOp::getFlopCount() {
  return getNumElements(getInput().getType()) + getNumElements(getType());
}
