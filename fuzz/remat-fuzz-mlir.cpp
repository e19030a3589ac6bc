//===- remat-fuzz-mlir.cpp - fuzz the parser, verifiers and pipeline ------===//
//
// The input is MLIR text with remat's dialects (nn, remat) and the upstream
// ones a training step uses. It is parsed, which runs every verifier; a
// module that verifies goes through remat-pipeline (rematerialize, plan
// memory) with a small work and time limit, so that each input stays fast.
// An input may start with a line `// budget=SIZE` to choose the budget
// (default 70%), so budgets are fuzzed together with the IR.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  remat::registerRematPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry();
    remat::registerAllDialects(*registry);
    return registry;
  }();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);

  std::string budget = "70%";
  if (text.consume_front("// budget=")) {
    auto [line, rest] = text.split('\n');
    // Pipeline syntax: the budget is one option value.
    if (line.find_first_of(" {}\r\t") != llvm::StringRef::npos)
      return 0;
    budget = line.str();
    text = rest;
  }

  // A fresh context per input: nothing carries over from one input to the
  // next, so every crash reproduces from its input alone.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  // Diagnostics are expected (most inputs are invalid) and dropped, unless
  // REMAT_FUZZ_VERBOSE is set, for looking at one input.
  static const bool verbose = getenv("REMAT_FUZZ_VERBOSE") != nullptr;
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &diagnostic) {
    if (verbose)
      llvm::errs() << diagnostic.getLocation() << ": " << diagnostic << "\n";
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 0;

  // The pipeline on the top-level module: `builtin.module(...)` here would
  // nest it, and run it on nested modules only.
  auto pm = PassManager::on<ModuleOp>(&context);
  bool defaultBudget = budget == "70%";
  if (failed(parsePassPipeline(
          "remat-pipeline{budget=" + budget +
              " strict=false work-limit=2000 "
              "time-limit=0.2}",
          pm, verbose || defaultBudget ? llvm::errs() : llvm::nulls()))) {
    // With the default budget the pipeline must parse: if an option is
    // renamed, fail loudly rather than fuzz the parser alone.
    if (defaultBudget)
      abort();
    return 0;
  }
  (void)pm.run(*module);
  return 0;
}
