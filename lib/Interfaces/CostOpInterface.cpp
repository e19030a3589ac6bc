//===- CostOpInterface.cpp - per-op cost facts for remat ------------------===//
//
// The byte-size helpers behind the memory model ("bytes of a value = element
// count x element size, from its static type") and the generated interface
// definitions.
//
//===----------------------------------------------------------------------===//

#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

std::optional<int64_t> mlir::remat::getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (static_cast<int64_t>(type.getIntOrFloatBitWidth()) + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = getElementBytes(complex.getElementType());
    return part ? std::optional<int64_t>(2 * *part) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> mlir::remat::getTypeBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasStaticShape())
      return std::nullopt;
    std::optional<int64_t> element = getElementBytes(shaped.getElementType());
    if (!element)
      return std::nullopt;
    return shaped.getNumElements() * *element;
  }
  return getElementBytes(type);
}

int64_t mlir::remat::getElementCount(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.hasStaticShape() ? shaped.getNumElements() : 0;
  return type.isIntOrIndexOrFloat() ? 1 : 0;
}

int64_t mlir::remat::getOperandAndResultBytes(Operation *op) {
  int64_t total = 0;
  for (Type type : op->getOperandTypes())
    total += getTypeBytes(type).value_or(0);
  for (Type type : op->getResultTypes())
    total += getTypeBytes(type).value_or(0);
  return total;
}

#include "remat/Interfaces/CostOpInterface.cpp.inc"
