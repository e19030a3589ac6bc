//===- CostOpInterface.h - per-op cost facts for remat ----------*- C++ -*-===//
//
// Declares the cost op interface (generated from CostOpInterface.td) and the
// byte-size helpers that define "bytes of a value" for the whole project:
// element count times element size, from the value's static type.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INTERFACES_COSTOPINTERFACE_H
#define REMAT_INTERFACES_COSTOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Types.h"

#include <cstdint>
#include <optional>

namespace mlir::remat {

/// Returns the bytes of one element of `type` (sub-byte types round up to a
/// whole byte), or std::nullopt when `type` has no fixed size.
std::optional<int64_t> getElementBytes(Type type);

/// Returns the bytes a value of `type` occupies: element count times element
/// size for statically shaped tensors, the scalar size for integer, index and
/// float scalars, and std::nullopt for anything without a static size.
std::optional<int64_t> getTypeBytes(Type type);

/// Returns the number of elements of a statically shaped tensor, 1 for a
/// scalar, 0 when unknown.
int64_t getElementCount(Type type);

/// Returns the bytes of every operand and result of `op` whose size is known.
int64_t getOperandAndResultBytes(Operation *op);

} // namespace mlir::remat

#include "remat/Interfaces/CostOpInterface.h.inc"

#endif // REMAT_INTERFACES_COSTOPINTERFACE_H
