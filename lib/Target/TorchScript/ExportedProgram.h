//===- ExportedProgram.h - torch.export programs as graphs ------*- C++ -*-===//
//
// Internal to the TorchScript importer (includes LibTorch). Reads a program
// saved by torch.export.save into the TorchScript graph that the importer
// converts (ExportedProgram.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TARGET_TORCHSCRIPT_EXPORTEDPROGRAM_H
#define REMAT_LIB_TARGET_TORCHSCRIPT_EXPORTEDPROGRAM_H

#include "TorchGraph.h"

#include <string>
#include <vector>

namespace caffe2::serialize {
class PyTorchStreamReader;
} // namespace caffe2::serialize

namespace mlir::remat::torchscript {

/// The archive's programs: its records models/<name>.json.
std::vector<std::string>
getModelRecords(caffe2::serialize::PyTorchStreamReader &reader);

/// Whether the archive holds a torch.export program (a PT2 archive) rather
/// than a TorchScript module.
bool isExportedProgram(caffe2::serialize::PyTorchStreamReader &reader);

/// Builds and prepares the graph of the archive's program (the one program,
/// or the one called `model`) as prepareGraph does a module's forward: its
/// inputs typed from the program (`inputTypes`, when given, must equal
/// them: a program exported with static shapes is specialized to them), its
/// parameters, buffers and constants lifted under their fully qualified
/// names. Emits an error at `fileLoc` or at the source line of the offending
/// op (the last frame of its stack trace) and returns failure otherwise.
FailureOr<PreparedGraph>
prepareExportedProgram(caffe2::serialize::PyTorchStreamReader &reader,
                       ArrayRef<RankedTensorType> inputTypes,
                       StringRef inputTypesOption, Location fileLoc);

} // namespace mlir::remat::torchscript

#endif // REMAT_LIB_TARGET_TORCHSCRIPT_EXPORTEDPROGRAM_H
