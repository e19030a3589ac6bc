//===- NNTraits.cpp - traits shared by every nn op ------------------------===//

#include "remat/Dialect/NN/IR/NNTraits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;

bool mlir::nn::fitsElementType(double value, Type elementType) {
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    if (!std::isfinite(value))
      return true;
    llvm::APFloat converted(value);
    bool losesInfo;
    llvm::APFloat::opStatus status =
        converted.convert(floatType.getFloatSemantics(),
                          llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return !(status & llvm::APFloat::opOverflow);
  }
  if (auto integerType = dyn_cast<IntegerType>(elementType)) {
    unsigned width = integerType.getWidth();
    if (width >= 64)
      return std::isfinite(value) && value >= -std::ldexp(1.0, 63) &&
             value < std::ldexp(1.0, 64);
    return std::isfinite(value) && value >= -std::ldexp(1.0, width - 1) &&
           value <= std::ldexp(1.0, width) - 1;
  }
  return false;
}

LogicalResult mlir::nn::verifyScalarAttributesFit(Operation *op) {
  if (op->getNumResults() == 0)
    return success();
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (!type)
    return success();
  Type elementType = type.getElementType();
  for (NamedAttribute attribute : op->getAttrs()) {
    auto value = dyn_cast<FloatAttr>(attribute.getValue());
    if (!value || fitsElementType(value.getValueAsDouble(), elementType))
      continue;
    std::string text;
    llvm::raw_string_ostream(text)
        << llvm::format("%g", value.getValueAsDouble());
    return op->emitOpError()
           << "has '" << attribute.getName().getValue() << "' = " << text
           << ", which overflows its element type " << elementType;
  }
  return success();
}
