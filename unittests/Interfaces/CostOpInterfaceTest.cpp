//===- CostOpInterfaceTest.cpp - unit tests of the byte-size rules --------===//
//
// The memory model's "bytes of a value": element count x element size, from
// the static type.
//
//===----------------------------------------------------------------------===//

#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

TEST(TypeBytes, StaticTensors) {
  MLIRContext context;
  Builder b(&context);
  EXPECT_EQ(remat::getTypeBytes(RankedTensorType::get({2, 3}, b.getF32Type())),
            24);
  EXPECT_EQ(remat::getTypeBytes(RankedTensorType::get({7}, b.getI8Type())), 7);
  EXPECT_EQ(remat::getTypeBytes(RankedTensorType::get({4}, b.getBF16Type())),
            8);
  EXPECT_EQ(remat::getTypeBytes(RankedTensorType::get({}, b.getI64Type())), 8);
  // Sub-byte elements take a whole byte each.
  EXPECT_EQ(remat::getTypeBytes(RankedTensorType::get({5}, b.getI1Type())), 5);
}

TEST(TypeBytes, ScalarsAndUnknowns) {
  MLIRContext context;
  Builder b(&context);
  EXPECT_EQ(remat::getTypeBytes(b.getF64Type()), 8);
  EXPECT_EQ(remat::getTypeBytes(b.getIndexType()), 8);
  EXPECT_EQ(remat::getTypeBytes(RankedTensorType::get({ShapedType::kDynamic, 3},
                                                      b.getF32Type())),
            std::nullopt);
  EXPECT_EQ(remat::getTypeBytes(UnrankedTensorType::get(b.getF32Type())),
            std::nullopt);
  EXPECT_EQ(remat::getTypeBytes(b.getNoneType()), std::nullopt);
}

TEST(ElementCount, TensorsAndScalars) {
  MLIRContext context;
  Builder b(&context);
  EXPECT_EQ(remat::getElementCount(RankedTensorType::get({2, 3, 4},
                                                         b.getF32Type())),
            24);
  EXPECT_EQ(remat::getElementCount(b.getF32Type()), 1);
  EXPECT_EQ(remat::getElementCount(RankedTensorType::get({ShapedType::kDynamic},
                                                         b.getF32Type())),
            0);
}

} // namespace
