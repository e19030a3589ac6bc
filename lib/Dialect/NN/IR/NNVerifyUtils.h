//===- NNVerifyUtils.h - checks shared by the nn verifiers ------*- C++ -*-===//
//
// Small checks that many nn verifiers make, each emitting one consistently
// worded diagnostic: ranks, shapes, element types, dimension attributes and
// window attributes. Verifiers read as a list of these checks.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_DIALECT_NN_IR_NNVERIFYUTILS_H
#define REMAT_LIB_DIALECT_NN_IR_NNVERIFYUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "remat/Dialect/NN/IR/NNShapes.h"

namespace mlir::nn {

/// Returns `value`'s type as a ranked tensor (nn operands always are).
RankedTensorType getTensorType(Value value);

/// Number of elements of a statically shaped tensor type (0 beyond int64).
int64_t getNumElements(Type type);

/// Formats a shape as "4x32x8x8" (or "scalar" for rank 0).
std::string formatShape(ArrayRef<int64_t> shape);

/// "expects <what> of rank <rank>".
LogicalResult expectRank(Operation *op, StringRef what, RankedTensorType type,
                         int64_t rank);

/// "expects <what> of rank at least <rank>".
LogicalResult expectMinRank(Operation *op, StringRef what,
                            RankedTensorType type, int64_t rank);

/// "expects <what> of shape <shape>".
LogicalResult expectShape(Operation *op, StringRef what, RankedTensorType type,
                          ArrayRef<int64_t> shape);

/// "expects <what> and <otherWhat> to have the same element type".
LogicalResult expectSameElementType(Operation *op, StringRef what,
                                    RankedTensorType type, StringRef otherWhat,
                                    RankedTensorType other);

/// Normalizes the dimension attribute `name` against `rank`, or emits
/// "expects '<name>' in [-rank, rank)".
FailureOr<int64_t> verifyDimAttr(Operation *op, StringRef name, int64_t dim,
                                 int64_t rank);

/// "expects every value of '<name>' to be positive".
LogicalResult expectPositive(Operation *op, StringRef name,
                             ArrayRef<int64_t> values);

/// "expects every value of '<name>' to be non-negative".
LogicalResult expectNonNegative(Operation *op, StringRef name,
                                ArrayRef<int64_t> values);

/// "expects '<name>' in [0, 1)".
LogicalResult expectProbability(Operation *op, StringRef name, double value);

/// Checks a sliding window (convolution or pooling) with one kernel size per
/// spatial dimension (2: over NCHW `input`, 3: over NCDHW) and returns the
/// output's spatial size, or emits an error naming the attribute that is
/// wrong or saying the window does not fit.
FailureOr<SmallVector<int64_t, 3>>
verifyWindow(Operation *op, RankedTensorType input, ArrayRef<int64_t> kernel,
             ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
             ArrayRef<int64_t> dilation, bool ceilMode);

} // namespace mlir::nn

#endif // REMAT_LIB_DIALECT_NN_IR_NNVERIFYUTILS_H
