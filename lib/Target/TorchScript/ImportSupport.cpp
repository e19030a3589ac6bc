//===- ImportSupport.cpp - shapes from the command line, weights to disk --===//
//
// The LibTorch-free helpers of the importer's tools.
//
//===----------------------------------------------------------------------===//

#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

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

bool mlir::remat::writeWeights(llvm::StringRef dir,
                               const std::vector<ImportedWeight> &weights,
                               std::string &error) {
  for (const ImportedWeight &weight : weights) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, weight.name + ".npy");
    if (!writeNpy(path, weight.array, error))
      return false;
  }
  return true;
}
