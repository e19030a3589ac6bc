//===- TorchScriptImport.h - TorchScript models as nn functions -*- C++ -*-===//
//
// Imports a program saved by torch.export.save (a PT2 archive of a
// training-mode torch.export.export) or a module saved by torch.jit.save
// (scripted or traced) as one forward function in the nn dialect: the model
// stays in training mode, every parameter and buffer becomes a named
// function argument, shapes come from the program or from the caller's full
// input types, and ATen ops become nn ops. This header is LibTorch-free; the
// library behind it is one of the two that include LibTorch.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TARGET_TORCHSCRIPT_TORCHSCRIPTIMPORT_H
#define REMAT_TARGET_TORCHSCRIPT_TORCHSCRIPTIMPORT_H

#include "remat/Execution/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir::remat {

struct TorchScriptImportOptions {
  /// One full type per input of the model's forward, batch included, in
  /// the order of forward's parameters (optional for a torch.export program).
  std::vector<RankedTensorType> inputTypes;
  /// The option that gave inputTypes, as diagnostics name it.
  std::string inputTypesOption = "--input-shape";
  /// The name of the imported function.
  std::string functionName = "forward";
  /// The value of the function's `remat.weights` attribute (the weights
  /// directory as the caller will write it); empty: no attribute.
  std::string weightsPath;
};

/// A parameter's or buffer's value, named like its function argument.
struct ImportedWeight {
  std::string name;
  NpyArray array;
};

/// Where an imported op comes from.
struct ImportedOpOrigin {
  /// The op's remat.name.
  std::string name;
  /// The path of the module whose forward computed it (`layer1.1.relu`;
  /// empty for the top module's own ops).
  std::string modulePath;
  /// An op of that module beside what it computes (batch norm's
  /// running-statistics update): never the module's output.
  bool auxiliary = false;
};

struct TorchScriptImport {
  OwningOpRef<ModuleOp> module;
  std::vector<ImportedWeight> weights;
  /// Every op of the imported function, in the order created.
  std::vector<ImportedOpOrigin> opOrigins;
};

/// Loads the file at `path`, a torch.export program (.pt2) or a TorchScript
/// module, and imports the program or the module's `forward` method. A
/// program's inputs have the exported shapes: `inputTypes` may be empty, and
/// must otherwise equal them.
/// The function's results are the forward's tensor outputs (`output`, or
/// `output.K`), then each batch-norm running statistic the step updates
/// (`<buffer>.new`). Emits errors with the TorchScript source location of the
/// offending op (or the file's location) and returns failure on unreadable
/// files, wrong input counts, unsupported ops and control flow that does not
/// fold away for the given shapes.
FailureOr<TorchScriptImport>
importTorchScript(llvm::StringRef path, const TorchScriptImportOptions &options,
                  MLIRContext *context);

/// The input types of the torch.export program at `path`, as it was
/// exported (a program is specialized to its shapes), or an empty vector
/// when the file is no such program (a TorchScript module, whose input
/// shapes the caller must give). Fails with an error when the program
/// cannot be prepared for import.
FailureOr<std::vector<RankedTensorType>>
getExportedInputTypes(llvm::StringRef path, MLIRContext *context);

/// Parses a tensor type written as on the command line: dimensions and an
/// element type, `31x3x224x224xf32`, or only an element type (`i64`, a 0-d
/// tensor). Fails on anything else.
FailureOr<RankedTensorType> parseTensorSpec(llvm::StringRef text,
                                            MLIRContext *context);

/// Writes each weight as <dir>/<name>.npy into the existing directory
/// `dir`: normally the temporary of an OutputDirectory (Support/OutputFile.h)
/// that the tool commits with the MLIR naming it. On failure returns false
/// and sets `error`.
bool writeWeights(llvm::StringRef dir,
                  const std::vector<ImportedWeight> &weights,
                  std::string &error);

} // namespace mlir::remat

#endif // REMAT_TARGET_TORCHSCRIPT_TORCHSCRIPTIMPORT_H
