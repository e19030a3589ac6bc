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
/// float scalars, and std::nullopt for anything without a static size or
/// whose size does not fit in int64 (see exceedsByteRange).
std::optional<int64_t> getTypeBytes(Type type);

/// Returns true when `type` has a static size that exceeds the int64 range
/// (`tensor<100000000000x100000000000xf32>`): such a value is an error, not a
/// size.
bool exceedsByteRange(Type type);

/// Returns the number of elements of a statically shaped tensor, 1 for a
/// scalar, 0 when unknown or beyond the int64 range.
int64_t getElementCount(Type type);

/// Returns the bytes of every operand and result of `op` whose size is known
/// (saturated at INT64_MAX).
int64_t getOperandAndResultBytes(Operation *op);

/// The verifier every op implementing the interface gets: each result's
/// bytes fit in int64.
LogicalResult verifyResultBytes(Operation *op);

} // namespace mlir::remat

#include "remat/Interfaces/CostOpInterface.h.inc"

#endif // REMAT_INTERFACES_COSTOPINTERFACE_H
