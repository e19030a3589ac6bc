//===- NNOps.td - the nn dialect: all ops --------------------*- tablegen -*-===//
//
// The ops of the nn dialect, grouped by family, one file each.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNOPS
#define REMAT_DIALECT_NN_IR_NNOPS

include "remat/Dialect/NN/IR/NNBase.td"
include "remat/Dialect/NN/IR/NNElementwiseOps.td"
include "remat/Dialect/NN/IR/NNLinearOps.td"
include "remat/Dialect/NN/IR/NNConvPoolOps.td"
include "remat/Dialect/NN/IR/NNNormOps.td"
include "remat/Dialect/NN/IR/NNShapeOps.td"
include "remat/Dialect/NN/IR/NNAttentionOps.td"
include "remat/Dialect/NN/IR/NNLossOps.td"
include "remat/Dialect/NN/IR/NNOptimizerOps.td"

#endif // REMAT_DIALECT_NN_IR_NNOPS
