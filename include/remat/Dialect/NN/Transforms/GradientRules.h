//===- GradientRules.h - the nn ops' reverse-mode derivatives ---*- C++ -*-===//
//
// Attaches the gradient op interface to every differentiable nn op: one rule
// per op, mirroring ATen's derivatives (derivatives.yaml), each building the
// nn backward ops that ATen's autograd would run.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_TRANSFORMS_GRADIENTRULES_H
#define REMAT_DIALECT_NN_TRANSFORMS_GRADIENTRULES_H

namespace mlir {
class DialectRegistry;

namespace nn {

/// Registers the gradient rules of the nn ops, attached when the nn dialect
/// loads.
void registerGradientRules(DialectRegistry &registry);

} // namespace nn
} // namespace mlir

#endif // REMAT_DIALECT_NN_TRANSFORMS_GRADIENTRULES_H
