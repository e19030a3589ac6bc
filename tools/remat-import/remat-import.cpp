//===- remat-import.cpp - PyTorch models into the nn dialect --------------===//
//
//   remat-import MODEL.pt2 [-o MODEL.mlir]
//   remat-import MODEL.pt --input-shape=31x3x224x224xf32 [...] -o MODEL.mlir
//                [--weights=DIR] [--function-name=NAME]
//
// Imports a program saved by torch.export.save, or the forward method of a
// module saved by torch.jit.save (scripted or traced), as one nn function, in training mode, with every parameter and
// buffer a named argument, and writes the weights as a directory of
// <argument name>.npy files that the function's `remat.weights` names
// (MODEL.mlir.weights beside the output, or --weights). Nothing is written
// when the import fails: the weights and the MLIR are written to
// temporaries and renamed into place, the weights first, once both are
// complete (Support/OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "remat/Support/OutputFile.h"
#include "remat/Support/ToolDiagnostics.h"
#include "remat/Support/ToolMain.h"
#include "remat/Support/Version.h"
#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;
namespace cl = llvm::cl;

/// The tool's own options: --help lists these, not LLVM's.
static cl::OptionCategory &getToolCategory() {
  static cl::OptionCategory category("remat-import options");
  return category;
}

static cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                                      cl::desc("<model.pt2 | model.pt>"),
                                      cl::cat(getToolCategory()));
static cl::opt<std::string>
    outputFile("o", cl::init("-"),
               cl::desc("Output MLIR file (default: - for stdout)"),
               cl::value_desc("filename"), cl::cat(getToolCategory()));
static cl::list<std::string> inputShapes(
    "input-shape", cl::CommaSeparated,
    cl::desc("Full type of each input of forward, in order, batch included; "
             "for a .pt2 program optional, and then its exported shapes "
             "(31x3x224x224xf32, 31xi64)"),
    cl::cat(getToolCategory()));
static cl::opt<std::string>
    weightsOption("weights",
                  cl::desc("Weights directory (default: <output>.weights; "
                           "required when the MLIR goes to stdout)"),
                  cl::value_desc("dir"), cl::cat(getToolCategory()));
static cl::opt<std::string>
    functionName("function-name", cl::init("forward"),
                 cl::desc("Name of the function (default: forward)"),
                 cl::cat(getToolCategory()));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "remat-import: error: " << message << "\n";
  return 1;
}

/// An MLIR bare identifier, which a symbol name prints as without quotes:
/// a letter or `_`, then letters, digits, `_`, `$` and `.`.
static bool isBareIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  });
}

/// The tool itself; main runs it at the tool's edge (ToolMain.h).
static int runTool(int argc, char **argv) {
  mlir::remat::setVersionPrinter("remat-import");
  // --mlir-print-debuginfo writes each op's location: the Python source
  // line it came from.
  registerAsmPrinterCLOptions();
  cl::getRegisteredOptions()["mlir-print-debuginfo"]->addCategory(
      getToolCategory());
  cl::HideUnrelatedOptions(getToolCategory());
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-import: a torch.export program or a TorchScript model as an nn "
      "function\n");
  if (outputFile == "-" && weightsOption.empty())
    return fail("writing the MLIR to stdout needs --weights=DIR for the "
                "weights");
  if (!isBareIdentifier(functionName))
    return fail("--function-name '" + functionName +
                "' is not a function name: expected a letter or '_', then "
                "letters, digits, '_', '$' or '.'");

  MLIRContext context;
  TorchScriptImportOptions options;
  for (const std::string &shape : inputShapes) {
    FailureOr<RankedTensorType> type = parseTensorSpec(shape, &context);
    if (failed(type) || type->getRank() == 0)
      return fail("--input-shape '" + shape +
                  "' is not a full shape and element type such as "
                  "31x3x224x224xf32");
    options.inputTypes.push_back(*type);
  }
  options.functionName = functionName;
  options.weightsPath =
      weightsOption.empty() ? outputFile + ".weights" : weightsOption;

  // The outputs are temporaries until everything is written: an unwritable
  // destination fails here, before the import, and a failure later leaves
  // the old files as they were.
  std::string error;
  OutputGroup outputs;
  if (failed(outputs.addInput(modelFile, error, "the model")))
    return fail(error);
  FailureOr<OutputDirectory *> weights = outputs.addDirectory(
      options.weightsPath, error,
      weightsOption.empty() ? "the weights directory (<-o>.weights)"
                            : "--weights");
  if (failed(weights))
    return fail(error);
  FailureOr<OutputFile *> output = outputs.addFile(outputFile, error, "-o");
  if (failed(output))
    return fail(error);

  llvm::SourceMgr sourceMgr;
  context.printOpOnDiagnostic(false);
  ToolDiagnosticHandler handler(sourceMgr, &context);
  FailureOr<TorchScriptImport> imported =
      importTorchScript(modelFile, options, &context);
  if (failed(imported))
    return 1;
  if (!writeWeights((*weights)->getTemporaryPath(), imported->weights, error))
    return fail(error);
  imported->module->print((*output)->os(), OpPrintingFlags());
  // The weights first: the MLIR names them.
  if (failed(outputs.commit(error)))
    return fail(error);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return mlir::remat::runToolMain("remat-import",
                                  [&] { return runTool(argc, argv); });
}
