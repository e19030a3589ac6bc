//===- ImportSupport.cpp - shapes from the command line, weights to disk --===//
//
// The LibTorch-free helpers of the importer's tools.
//
//===----------------------------------------------------------------------===//

#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace mlir::remat;

FailureOr<RankedTensorType> mlir::remat::parseTensorSpec(llvm::StringRef text,
                                                        MLIRContext *context) {
  // Keep the parser's own diagnostics out: the caller says what is wrong.
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
  Type type = parseType(("tensor<" + text + ">").str(), context);
  auto tensor = llvm::dyn_cast_if_present<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return failure();
  return tensor;
}

bool mlir::remat::writeWeightsDirectory(
    llvm::StringRef dir, const std::vector<ImportedWeight> &weights,
    std::string &error) {
  std::string staging =
      (dir + ".tmp" + llvm::Twine(llvm::sys::Process::getProcessId())).str();
  llvm::sys::fs::remove_directories(staging);
  if (std::error_code code = llvm::sys::fs::create_directories(staging)) {
    error = "cannot create '" + staging + "': " + code.message();
    return false;
  }
  for (const ImportedWeight &weight : weights) {
    llvm::SmallString<256> path(staging);
    llvm::sys::path::append(path, weight.name + ".npy");
    if (!writeNpy(path, weight.array, error)) {
      llvm::sys::fs::remove_directories(staging);
      return false;
    }
  }
  llvm::sys::fs::remove_directories(dir);
  if (std::error_code code = llvm::sys::fs::rename(staging, dir)) {
    llvm::sys::fs::remove_directories(staging);
    error = ("cannot write '" + dir + "': " + code.message()).str();
    return false;
  }
  return true;
}
