//===- NNTraits.h - traits shared by every nn op ----------------*- C++ -*-===//
//
// Constants an op carries as attributes (nn.full's value, a scalar op's
// scalar, an optimizer's learning rate) are applied to tensors of the op's
// element type: one the type cannot hold (1e300 in f32) is a verifier error,
// never an overflow the kernel finds at run time.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNTRAITS_H
#define REMAT_DIALECT_NN_IR_NNTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::nn {

/// Whether an element of `elementType` holds `value` without overflow: a
/// float type every finite value up to its largest finite one (infinities
/// and NaN as themselves); an integer type of width w the integers in
/// [-2^(w-1), 2^w - 1] (signed or unsigned). Other types hold nothing.
bool fitsElementType(double value, Type elementType);

/// Checks every float attribute of `op` against the element type of its
/// first result: emits an error naming the attribute and fails when one
/// does not fit.
LogicalResult verifyScalarAttributesFit(Operation *op);

/// The trait every nn op has: verifyScalarAttributesFit.
template <typename ConcreteType>
class ScalarAttributesFitElementType
    : public OpTrait::TraitBase<ConcreteType, ScalarAttributesFitElementType> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyScalarAttributesFit(op);
  }
};

} // namespace mlir::nn

#endif // REMAT_DIALECT_NN_IR_NNTRAITS_H
