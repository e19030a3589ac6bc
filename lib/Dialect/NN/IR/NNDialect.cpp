//===- NNDialect.cpp - the nn dialect -------------------------------------===//
//
// Registers the nn dialect and its ops and holds the generated op
// definitions, with the FLOP counts of the op table (flopsPerElement).
// Verifiers and other cost methods live with their op family
// (ElementwiseOps.cpp, ConvPoolOps.cpp, ...).
//
//===----------------------------------------------------------------------===//

#include "NNVerifyUtils.h"
#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Dialect/NN/IR/NNOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::nn;

#include "remat/Dialect/NN/IR/NNOpsDialect.cpp.inc"

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "remat/Dialect/NN/IR/NNOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "remat/Dialect/NN/IR/NNOps.cpp.inc"

#define GEN_NN_FLOP_COUNTS
#include "remat/Dialect/NN/IR/NNOpTable.inc"
