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

#include <string>
#include <utility>

namespace mlir::remat {

/// Creates the backward ops of one forward op: at the insertion point of
/// `builder`, with the forward op's location, named
/// "<forward op's remat.name>.<suffix>" and marked `remat.phase = backward`.
class GradientBuilder {
public:
  GradientBuilder(OpBuilder &builder, Operation *forward);

  template <typename OpT, typename... Args>
  OpT create(llvm::StringRef suffix, Args &&...args) {
    OpT op = OpT::create(builder, loc, std::forward<Args>(args)...);
    tag(op, suffix);
    return op;
  }

  Operation *getForward() const { return forward; }
  OpBuilder &getBuilder() { return builder; }

private:
  void tag(Operation *op, llvm::StringRef suffix);

  OpBuilder &builder;
  Operation *forward;
  Location loc;
  std::string baseName;
};

} // namespace mlir::remat

#include "remat/Interfaces/GradientOpInterface.h.inc"

#endif // REMAT_INTERFACES_GRADIENTOPINTERFACE_H
