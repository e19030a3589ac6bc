//===- GradientOpInterface.h - reverse-mode rules per op --------*- C++ -*-===//
//
// The gradient op interface (GradientOpInterface.td) and the builder its
// rules create backward ops with.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INTERFACES_GRADIENTOPINTERFACE_H
#define REMAT_INTERFACES_GRADIENTOPINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <utility>

namespace mlir::remat {

/// Names and marks a backward op a rule created, given its suffix (the
/// training step's conventions, which the interface does not know).
using BackwardOpTagger =
    llvm::function_ref<void(Operation *op, llvm::StringRef suffix)>;

/// Creates the backward ops of one forward op: at the insertion point of
/// `builder`, with the forward op's location, each passed to `tag` with the
/// suffix its rule gives it (`tag` must outlive the builder).
class GradientBuilder {
public:
  GradientBuilder(OpBuilder &builder, Operation *forward, BackwardOpTagger tag)
      : builder(builder), forward(forward), loc(forward->getLoc()), tag(tag) {}

  template <typename OpT, typename... Args>
  OpT create(llvm::StringRef suffix, Args &&...args) {
    OpT op = OpT::create(builder, loc, std::forward<Args>(args)...);
    tag(op, suffix);
    return op;
  }

  Operation *getForward() const { return forward; }
  OpBuilder &getBuilder() { return builder; }

private:
  OpBuilder &builder;
  Operation *forward;
  Location loc;
  BackwardOpTagger tag;
};

} // namespace mlir::remat

#include "remat/Interfaces/GradientOpInterface.h.inc"

#endif // REMAT_INTERFACES_GRADIENTOPINTERFACE_H
