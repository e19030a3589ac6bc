//===- NNOpsTest.cpp - unit tests of nn ops through the C++ API -----------===//
//
// Checks that every nn op implements the cost interface and that the FLOP
// counts of the ops that dominate a training step match hand computation.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/InitAll.h"
#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class NNOpsTest : public ::testing::Test {
protected:
  NNOpsTest() {
    DialectRegistry registry;
    remat::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `body` as the body of a function with `signature` and returns
  /// the first op of type OpTy in it.
  template <typename OpTy>
  OpTy parseFirst(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "failed to parse:\n" << source.str();
    OpTy found;
    module->walk([&](OpTy op) {
      if (!found)
        found = op;
    });
    EXPECT_TRUE(found);
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(NNOpsTest, EveryOpImplementsTheCostInterface) {
  int count = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "nn")
      continue;
    ++count;
    EXPECT_TRUE(name.hasInterface<remat::CostOpInterface>())
        << name.getStringRef().str();
  }
  EXPECT_GE(count, 60);
}

TEST_F(NNOpsTest, ConvolutionFlops) {
  auto conv = parseFirst<nn::Conv2dOp>(R"mlir(
    func.func @f(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>)
        -> tensor<2x6x4x4xf32> {
      %0 = nn.conv2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2}
          : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
      return %0 : tensor<2x6x4x4xf32>
    })mlir");
  ASSERT_TRUE(conv);
  // 2*6*4*4 outputs, each 2 x (4/2 channels x 3 x 3) FLOPs, plus the bias.
  int64_t outputs = 2 * 6 * 4 * 4;
  auto cost = cast<remat::CostOpInterface>(conv.getOperation());
  EXPECT_EQ(cost.getFlopCount(), outputs * 2 * 2 * 3 * 3 + outputs);
  EXPECT_EQ(cost.getBytesMoved(),
            4 * (2 * 4 * 8 * 8 + 6 * 2 * 3 * 3 + 6 + outputs));
  EXPECT_EQ(cost.getWorkspaceBytes(), 0);
  EXPECT_TRUE(cost.isRecomputable());
}

TEST_F(NNOpsTest, LinearAndMatmulFlops) {
  auto linear = parseFirst<nn::LinearOp>(R"mlir(
    func.func @f(%x: tensor<3x5x16xf32>, %w: tensor<10x16xf32>) -> tensor<3x5x10xf32> {
      %0 = nn.linear %x, %w : (tensor<3x5x16xf32>, tensor<10x16xf32>) -> tensor<3x5x10xf32>
      return %0 : tensor<3x5x10xf32>
    })mlir");
  ASSERT_TRUE(linear);
  EXPECT_EQ(cast<remat::CostOpInterface>(linear.getOperation()).getFlopCount(),
            2 * 15 * 16 * 10);

  auto matmul = parseFirst<nn::MatmulOp>(R"mlir(
    func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
      %0 = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
      return %0 : tensor<2x3x5xf32>
    })mlir");
  ASSERT_TRUE(matmul);
  EXPECT_EQ(cast<remat::CostOpInterface>(matmul.getOperation()).getFlopCount(),
            2 * 2 * 3 * 5 * 4);
}

TEST_F(NNOpsTest, OptimizerUpdatesAreNotRecomputable) {
  auto sgd = parseFirst<nn::SgdOp>(R"mlir(
    func.func @f(%p: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> {
      %0 = nn.sgd %p, %g {lr = 0.1 : f64} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32>
    })mlir");
  ASSERT_TRUE(sgd);
  auto cost = cast<remat::CostOpInterface>(sgd.getOperation());
  EXPECT_FALSE(cost.isRecomputable());
  EXPECT_EQ(cost.getFlopCount(), 2 * 8);
}

TEST_F(NNOpsTest, EmbeddingMovesOnlyTheRowsItReads) {
  auto embedding = parseFirst<nn::EmbeddingOp>(R"mlir(
    func.func @f(%w: tensor<1000x16xf32>, %i: tensor<4xi64>) -> tensor<4x16xf32> {
      %0 = nn.embedding %w, %i : (tensor<1000x16xf32>, tensor<4xi64>) -> tensor<4x16xf32>
      return %0 : tensor<4x16xf32>
    })mlir");
  ASSERT_TRUE(embedding);
  EXPECT_EQ(
      cast<remat::CostOpInterface>(embedding.getOperation()).getBytesMoved(),
      4 * 8 + 2 * 4 * 16 * 4);
}

} // namespace
