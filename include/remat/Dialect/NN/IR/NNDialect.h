//===- NNDialect.h - the nn dialect -----------------------------*- C++ -*-===//
//
// Declares the nn dialect: training-step ops on statically shaped tensors,
// mirroring ATen.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNDIALECT_H
#define REMAT_DIALECT_NN_IR_NNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "remat/Dialect/NN/IR/NNOpsDialect.h.inc"

#endif // REMAT_DIALECT_NN_IR_NNDIALECT_H
