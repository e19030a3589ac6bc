//===- CostOpInterface.cpp - per-op cost facts for remat ------------------===//
//
// The byte-size helpers behind the memory model ("bytes of a value = element
// count x element size, from its static type") and the generated interface
// definitions.
//
//===----------------------------------------------------------------------===//

#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>

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

/// The element count of a static shape, or std::nullopt beyond int64.
static std::optional<int64_t> getCheckedElementCount(ShapedType shaped) {
  int64_t count = 1;
  for (int64_t dim : shaped.getShape()) {
    std::optional<int64_t> product = llvm::checkedMul(count, dim);
    if (!product)
      return std::nullopt;
    count = *product;
  }
  return count;
}

namespace {
/// The bytes of a type, told apart from "no static size" and "too large".
struct TypeBytes {
  std::optional<int64_t> bytes;
  bool tooLarge = false;
};
} // namespace

static TypeBytes computeTypeBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return {remat::getElementBytes(type), false};
  if (!shaped.hasStaticShape())
    return {};
  std::optional<int64_t> element =
      remat::getElementBytes(shaped.getElementType());
  if (!element)
    return {};
  std::optional<int64_t> count = getCheckedElementCount(shaped);
  std::optional<int64_t> bytes =
      count ? llvm::checkedMul(*count, *element) : std::nullopt;
  if (!bytes)
    return {std::nullopt, true};
  return {bytes, false};
}

std::optional<int64_t> mlir::remat::getTypeBytes(Type type) {
  return computeTypeBytes(type).bytes;
}

bool mlir::remat::exceedsByteRange(Type type) {
  return computeTypeBytes(type).tooLarge;
}

int64_t mlir::remat::getElementCount(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.hasStaticShape() ? getCheckedElementCount(shaped).value_or(0)
                                   : 0;
  return type.isIntOrIndexOrFloat() ? 1 : 0;
}

int64_t mlir::remat::getOperandAndResultBytes(Operation *op) {
  int64_t total = 0;
  for (Type type : op->getOperandTypes())
    total = llvm::checkedAdd(total, getTypeBytes(type).value_or(0))
                .value_or(std::numeric_limits<int64_t>::max());
  for (Type type : op->getResultTypes())
    total = llvm::checkedAdd(total, getTypeBytes(type).value_or(0))
                .value_or(std::numeric_limits<int64_t>::max());
  return total;
}

LogicalResult mlir::remat::verifyResultBytes(Operation *op) {
  for (OpResult result : op->getResults())
    if (exceedsByteRange(result.getType()))
      return op->emitOpError()
             << "result #" << result.getResultNumber() << " of type "
             << result.getType()
             << " has more bytes than the int64 range holds (2^63 - 1)";
  return success();
}

#include "remat/Interfaces/CostOpInterface.cpp.inc"
