//===- InitAll.cpp - register everything remat provides -------------------===//
//
// One place that lists remat's dialects, so that tools and library users
// register the same set.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"

#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Dialect/NN/Transforms/GradientRules.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/UpstreamCostModels.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::remat::registerRematDialects(DialectRegistry &registry) {
  registry.insert<nn::NNDialect, RematDialect>();
  nn::registerGradientRules(registry);
}

void mlir::remat::registerAllDialects(DialectRegistry &registry) {
  registerRematDialects(registry);
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                  linalg::LinalgDialect, tensor::TensorDialect>();
  registerUpstreamCostModels(registry);
}

void mlir::remat::registerRematPasses() {
  registerRematTransformsPasses();
  registerRematPipeline();
}
