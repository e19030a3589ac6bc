//===- remat-translate.cpp - translations into and out of remat's IR ------===//
//
// An mlir-translate for remat: `--import-graph-json` reads a public
// rematerialization benchmark graph into a function of remat.graph_node ops;
// `--emit-cuda` writes a planned step as one CUDA C++ source (docs/cuda.md).
//
// Its own main rather than mlirTranslateMain, which truncates `-o` before it
// reads the input: here the result goes to a temporary that replaces `-o`
// only when the translation succeeded (Support/OutputFile.h), so a failure
// leaves an existing `-o` as it was and `-o` may name the input. The
// options are mlir-translate's: --split-input-file, --output-split-marker,
// --verify-diagnostics, --allow-unregistered-dialect, the printer's.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/OutputFile.h"
#include "remat/Support/ToolDiagnostics.h"
#include "remat/Support/ToolMain.h"
#include "remat/Support/Version.h"
#include "remat/Target/Cuda/CudaEmitter.h"
#include "remat/Target/GraphJson/GraphJsonImport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;
namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFilename(cl::Positional, cl::desc("<input file>"), cl::init("-"));
static cl::opt<std::string>
    outputFilename("o", cl::desc("Output filename (default: - for stdout)"),
                   cl::value_desc("filename"), cl::init("-"));
static cl::opt<bool> allowUnregisteredDialects(
    "allow-unregistered-dialect",
    cl::desc("Allow operations of unregistered dialects (testing only)"),
    cl::init(false));
static cl::opt<std::string> inputSplitMarker(
    "split-input-file", cl::ValueOptional,
    cl::callback([](const std::string &marker) {
      // Without a value: the default marker.
      if (marker.empty())
        inputSplitMarker.setValue(kDefaultSplitMarker);
    }),
    cl::desc("Split the input at the given or default marker and translate "
             "each chunk on its own"),
    cl::init(""));
static cl::opt<std::string>
    outputSplitMarker("output-split-marker",
                      cl::desc("Marker between the outputs of the chunks"),
                      cl::init(""));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check that the diagnostics match the expected-* comments"),
    cl::init(false));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "remat-translate: error: " << message << "\n";
  return 1;
}

/// Runs `translation` on one chunk of the input, writing to `os`.
static LogicalResult translateChunk(const Translation &translation,
                                    std::unique_ptr<llvm::MemoryBuffer> buffer,
                                    raw_ostream &os) {
  // Translations may expect a null-terminated buffer; a chunk is not.
  if (!buffer->getBuffer().ends_with('\0'))
    buffer = llvm::MemoryBuffer::getMemBufferCopy(
        buffer->getBuffer(), buffer->getBufferIdentifier());
  MLIRContext context;
  context.allowUnregisteredDialects(allowUnregisteredDialects);
  // Never the op after a diagnostic: for a function, the whole function.
  context.printOpOnDiagnostic(false);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  if (verifyDiagnostics) {
    // The translation is expected to fail; what counts is the diagnostics.
    SourceMgrDiagnosticVerifierHandler handler(*sourceMgr, &context);
    (void)translation(sourceMgr, os, &context);
    return handler.verify();
  }
  ToolDiagnosticHandler handler(*sourceMgr, &context);
  return translation(sourceMgr, os, &context);
}

/// The tool itself; main runs it at the tool's edge (ToolMain.h).
static int runTool(int argc, char **argv) {
  mlir::remat::setVersionPrinter("remat-translate");
  registerGraphJsonImport();
  registerCudaEmitter();
  cl::list<const Translation *, bool, TranslationParser> translations(
      "", cl::desc("Translation to perform"), cl::Required);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerTranslationCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "remat translation driver\n");
  if (translations.size() != 1)
    return fail("name one translation");
  const Translation &translation = *translations.front();

  // The output first, so that an unwritable destination, or one that names
  // the input, fails before any work; it is a temporary until the
  // translation succeeded.
  std::string error;
  OutputGroup outputs;
  if (failed(outputs.addInput(inputFilename, error)))
    return fail(error);
  FailureOr<OutputFile *> output = outputs.addFile(outputFilename, error, "-o");
  if (failed(output))
    return fail(error);
  std::unique_ptr<llvm::MemoryBuffer> input;
  if (std::optional<llvm::Align> alignment = translation.getInputAlignment())
    input = openInputFile(inputFilename, *alignment, &error);
  else
    input = openInputFile(inputFilename, &error);
  if (!input)
    return fail(error);
  auto translate = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                       raw_ostream &os) {
    return translateChunk(translation, std::move(chunk), os);
  };
  if (failed(splitAndProcessBuffer(std::move(input), translate, (*output)->os(),
                                   inputSplitMarker, outputSplitMarker)))
    return 1;
  if (failed(outputs.commit(error)))
    return fail(error);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return mlir::remat::runToolMain("remat-translate",
                                  [&] { return runTool(argc, argv); });
}
