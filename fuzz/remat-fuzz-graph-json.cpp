//===- remat-fuzz-graph-json.cpp - fuzz the graph-JSON importer -----------===//
//
// The input is a benchmark graph (networkx node-link JSON, as
// `remat-translate --import-graph-json` reads it). The importer either
// rejects it with a diagnostic or returns a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"
#include "remat/Target/GraphJson/GraphJsonImport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry();
    remat::registerAllDialects(*registry);
    return registry;
  }();
  // A fresh context per input: nothing carries over from one input to the
  // next, so every crash reproduces from its input alone.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diagnostic) {
    diagnostics += diagnostic.str() + "\n";
    return success();
  });
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.json",
      /*RequiresNullTerminator=*/false);
  OwningOpRef<ModuleOp> module = remat::importGraphJson(*buffer, &context);
  if (module && failed(verify(*module))) {
    llvm::errs() << "the imported module does not verify:\n" << diagnostics;
    abort();
  }
  return 0;
}
