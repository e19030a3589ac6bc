//===- InitAll.h - register everything remat provides -----------*- C++ -*-===//
//
// Entry points that a tool or another compiler calls to make remat's
// dialects (and the upstream dialects a training step uses) known to a
// context.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INITALL_H
#define REMAT_INITALL_H

namespace mlir {
class DialectRegistry;

namespace remat {

/// Adds the nn and remat dialects to `registry`.
void registerRematDialects(DialectRegistry &registry);

/// Registers remat's passes (remat-rematerialize, remat-plan-memory,
/// remat-report) and its named pipeline (remat-pipeline{budget=...}) with
/// the global pass registry, for --pass-pipeline strings and mlir-opt-like
/// tools.
void registerRematPasses();

/// Adds remat's dialects, the upstream dialects that training steps and
/// remat's tests use (func, arith, cf, tensor, linalg), and the cost models of
/// the upstream ones.
void registerAllDialects(DialectRegistry &registry);

} // namespace remat
} // namespace mlir

#endif // REMAT_INITALL_H
