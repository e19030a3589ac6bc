//===- ForwardOps.h - forward ops and their modules ------------*- C++ -*-===//
//
// What a user names in --checkpoints: the forward ops of a training step,
// by remat.name or by the module path of the module whose output they are
// (resnet18's `layer1.1` is its op `layer1.1.relu.relu.2`), as `remat ops`
// lists them.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_FORWARDOPS_H
#define REMAT_DRIVER_FORWARDOPS_H

#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::remat {

struct ForwardOp {
  Operation *op = nullptr;
  std::string name;
  /// The op's name without its dialect (`conv2d`).
  std::string kind;
  /// The bytes of its results.
  int64_t resultBytes = 0;
  /// The module that computed it and every module around that one, outer
  /// first (`blocks`, `blocks.0`, `blocks.0.attn`); none for the top
  /// module's own ops (and the loss autodiff adds).
  std::vector<std::string> modules;
  /// The modules whose output it is, outer first: the last op each
  /// computes (batch norm's running-statistics update aside).
  std::vector<std::string> outputOf;
};

/// The forward ops of `step`'s one function, in order, with the modules
/// `origins` (from the import) says they come from.
FailureOr<std::vector<ForwardOp>>
listForwardOps(ModuleOp step, ArrayRef<ImportedOpOrigin> origins);

/// The op names `names` mean: a module path means the module's output op
/// (also where an op is named like the module: resnet18's residual add
/// `layer1.1`), else an op's name means that op. Fails for an unknown name with
/// `error` saying so, with the nearest names and `hint`.
FailureOr<std::vector<std::string>>
resolveCheckpoints(ArrayRef<ForwardOp> ops, ArrayRef<std::string> names,
                   llvm::StringRef hint, std::string &error);

} // namespace mlir::remat

#endif // REMAT_DRIVER_FORWARDOPS_H
