//===- UpstreamCostModels.h - cost facts of upstream ops --------*- C++ -*-===//
//
// External models of the cost op interface for the upstream dialects a
// training step may use besides nn: arith, tensor and linalg, so that the
// analyses and passes work on another compiler's IR too.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INTERFACES_UPSTREAMCOSTMODELS_H
#define REMAT_INTERFACES_UPSTREAMCOSTMODELS_H

namespace mlir {
class DialectRegistry;

namespace remat {

/// Attaches CostOpInterface to every op of arith, tensor and linalg (the
/// structured ops) when those dialects load:
/// - arith: one FLOP per result element (constants: none);
/// - tensor: no FLOPs (data movement only, costed by its bytes);
/// - linalg: the iteration space times the payload's op count.
void registerUpstreamCostModels(DialectRegistry &registry);

} // namespace remat
} // namespace mlir

#endif // REMAT_INTERFACES_UPSTREAMCOSTMODELS_H
