//===- NNShapesTest.cpp - unit tests of the nn shape rules ----------------===//
//
// Window sizes are checked against values ATen computes for the same
// geometry (torch.nn.functional.conv2d / max_pool2d output shapes).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/NN/IR/NNShapes.h"

#include "gtest/gtest.h"

using namespace mlir::nn;

namespace {

TEST(WindowOutputSize, ConvolutionRoundsDown) {
  // ResNet's stem: 224 -> 112 with k7 s2 p3.
  EXPECT_EQ(getWindowOutputSize(224, {7, 2, 3, 1, false}), 112);
  // "Same" 3x3 convolution.
  EXPECT_EQ(getWindowOutputSize(32, {3, 1, 1, 1, false}), 32);
  // Stride 2 on an odd size rounds down.
  EXPECT_EQ(getWindowOutputSize(7, {3, 2, 1, 1, false}), 4);
  EXPECT_EQ(getWindowOutputSize(8, {3, 2, 1, 1, false}), 4);
}

TEST(WindowOutputSize, Dilation) {
  // Effective kernel 5: 10 - 5 + 1 = 6.
  EXPECT_EQ(getWindowOutputSize(10, {3, 1, 0, 2, false}), 6);
}

TEST(WindowOutputSize, CeilMode) {
  EXPECT_EQ(getWindowOutputSize(5, {2, 2, 0, 1, false}), 2);
  EXPECT_EQ(getWindowOutputSize(5, {2, 2, 0, 1, true}), 3);
  // A last window that would start in the right padding is dropped:
  // torch.nn.functional.max_pool2d(x[1x1x1x1], 2, 2, 1, ceil_mode=True) is 1x1.
  EXPECT_EQ(getWindowOutputSize(1, {2, 2, 1, 1, true}), 1);
}

TEST(WindowOutputSize, RejectsBadGeometry) {
  EXPECT_EQ(getWindowOutputSize(2, {3, 1, 0, 1, false}), std::nullopt);
  EXPECT_EQ(getWindowOutputSize(8, {0, 1, 0, 1, false}), std::nullopt);
  EXPECT_EQ(getWindowOutputSize(8, {3, 0, 0, 1, false}), std::nullopt);
  EXPECT_EQ(getWindowOutputSize(8, {3, 1, -1, 1, false}), std::nullopt);
  EXPECT_EQ(getWindowOutputSize(8, {3, 1, 0, 0, false}), std::nullopt);
  // Padding can make a window fit an input smaller than the kernel.
  EXPECT_EQ(getWindowOutputSize(2, {3, 1, 1, 1, false}), 2);
}

TEST(Broadcast, NumPyRules) {
  EXPECT_EQ(broadcastShapes({4, 1, 3}, {2, 1}),
            (llvm::SmallVector<int64_t>{4, 2, 3}));
  EXPECT_EQ(broadcastShapes({}, {2, 3}), (llvm::SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(broadcastShapes({5, 3}, {5, 3}), (llvm::SmallVector<int64_t>{5, 3}));
  EXPECT_EQ(broadcastShapes({3}, {4}), std::nullopt);
  EXPECT_EQ(broadcastShapes({2, 3}, {3, 3}), std::nullopt);
}

TEST(Broadcast, IsBroadcastableTo) {
  EXPECT_TRUE(isBroadcastableTo({1, 3}, {4, 3}));
  EXPECT_TRUE(isBroadcastableTo({}, {4, 3}));
  EXPECT_FALSE(isBroadcastableTo({4, 3}, {1, 3}));
  EXPECT_FALSE(isBroadcastableTo({2}, {4, 3}));
}

TEST(NormalizeDim, NegativeCountsFromTheEnd) {
  EXPECT_EQ(normalizeDim(0, 3), 0);
  EXPECT_EQ(normalizeDim(-1, 3), 2);
  EXPECT_EQ(normalizeDim(-3, 3), 0);
  EXPECT_EQ(normalizeDim(3, 3), std::nullopt);
  EXPECT_EQ(normalizeDim(-4, 3), std::nullopt);
}

TEST(ShapeProduct, ZeroDimIsOne) {
  EXPECT_EQ(getShapeProduct({}), 1);
  EXPECT_EQ(getShapeProduct({2, 3, 4}), 24);
}

} // namespace
