//===- NNOps.h - ops of the nn dialect --------------------------*- C++ -*-===//
//
// Declares the generated op classes of the nn dialect.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNOPS_H
#define REMAT_DIALECT_NN_IR_NNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Dialect/NN/IR/NNTraits.h"
#include "remat/Interfaces/CostOpInterface.h"

#define GET_OP_CLASSES
#include "remat/Dialect/NN/IR/NNOps.h.inc"

namespace mlir::nn {

/// The exclusive upper bound of the integers `indices` holds, from the ops
/// that read it: the classes of a cross entropy, the rows of an embedding;
/// 2 when neither reads it. The executors fill integer arguments below it.
int64_t getIndexBound(Value indices);

} // namespace mlir::nn

#endif // REMAT_DIALECT_NN_IR_NNOPS_H
