//===- remat-opt.cpp - the remat optimizer driver -------------------------===//
//
// An mlir-opt for remat: parses, verifies, runs passes over and prints MLIR
// with remat's dialects, passes and test passes registered. Tool options
// are shorthands for passes after the ones the standard options name:
//   --budget=SIZE [--solver=S] [--work-limit=N] [--time-limit=S] [...]
//       remat-pipeline{budget=SIZE ...}: rematerialize, then plan memory;
//       the flags are the pipeline's own options (RematOptions.h)
//   --report=FILE.json --timeline=FILE.svg   remat-report{path= timeline=}
// Files are written whole, after every pass has run (Support/OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"
#include "remat/Report/StepReport.h"
#include "remat/Support/OutputFile.h"
#include "remat/Support/ToolDiagnostics.h"
#include "remat/Support/ToolMain.h"
#include "remat/Support/Version.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::remat::test {
void registerTestPeakMemoryPass();
} // namespace mlir::remat::test

namespace cl = llvm::cl;

static cl::OptionCategory rematCategory("remat options");

/// The rematerialization options of --budget's pipeline (and --device for
/// --report), bound to the one declaration of those options.
static mlir::remat::RematOptions rematOptions;
static cl::opt<std::string>
    reportPath("report", cl::cat(rematCategory), cl::value_desc("FILE"),
               cl::desc("Write the remat report of the result to FILE: JSON, "
                        "or one HTML page when FILE ends in .html "
                        "(remat-report at the end of the pipeline)"));

static cl::opt<std::string> timelinePath(
    "timeline", cl::cat(rematCategory), cl::value_desc("FILE.svg"),
    cl::desc("Write the live-bytes timeline of the result to FILE.svg"));

/// A copy of the input, for the diagnostic handler of the pipeline.
static llvm::SourceMgr inputCopy;

/// The handler of the pipeline's diagnostics. Never deleted: MlirOptMain
/// destroys the context it is registered with, and unregistering it
/// afterwards would touch freed memory; held here, it stays reachable (not
/// a leak to LeakSanitizer).
static mlir::remat::ToolDiagnosticHandler *pipelineDiagnostics = nullptr;

/// MlirOptMain prints diagnostics with SourceMgrDiagnosticHandler, which
/// quotes the source line of each, a function's whole signature included.
/// While the passes run, remat's handler (ToolDiagnosticHandler) takes them
/// first; not when diagnostics are verified or the input is split (each
/// chunk is its own buffer).
static mlir::MlirOptMainConfig
addDiagnosticHandler(const mlir::MlirOptMainConfig &base) {
  if (base.shouldVerifyDiagnostics() || !base.inputSplitMarker().empty())
    return base;
  mlir::MlirOptMainConfig config = base;
  config.setPassPipelineSetupFn([base](mlir::PassManager &pm) {
    if (!pipelineDiagnostics)
      pipelineDiagnostics =
          new mlir::remat::ToolDiagnosticHandler(inputCopy, pm.getContext());
    return base.setupPassPipeline(pm);
  });
  return config;
}

/// Appends the passes the tool options stand for to the pipeline that the
/// standard options describe. The report pass writes to `reportFile` and
/// `timelineFile`: the temporaries of --report and --timeline.
static mlir::MlirOptMainConfig
addShorthandPasses(const mlir::MlirOptMainConfig &base, std::string reportFile,
                   std::string timelineFile) {
  bool report = !reportPath.empty() || !timelinePath.empty();
  if (!report && !rematOptions.budget.isSet())
    return base;
  mlir::MlirOptMainConfig config = base;
  config.setPassPipelineSetupFn(
      [base, report, reportFile, timelineFile](mlir::PassManager &pm) {
        if (mlir::failed(base.setupPassPipeline(pm)))
          return mlir::failure();
        if (rematOptions.budget.isSet()) {
          mlir::remat::RematOptions options = rematOptions;
          options.recordSolveTime |= report;
          mlir::remat::buildRematPipeline(pm, options);
        }
        if (report) {
          mlir::remat::RematReportPassOptions options;
          options.path = reportFile;
          // The extension of the user's file, not of its temporary.
          options.format = mlir::remat::stringifyReportFormat(
                               mlir::remat::getReportFormatForPath(reportPath))
                               .str();
          options.timeline = timelineFile;
          options.device = rematOptions.device;
          pm.addPass(mlir::remat::createRematReportPass(options));
        }
        return mlir::success();
      });
  return config;
}

/// Adds `path`, when set, to `outputs`; returns where its writer writes
/// (the temporary), or "" when unset.
static mlir::FailureOr<std::string> addOutput(mlir::remat::OutputGroup &outputs,
                                              const std::string &path,
                                              llvm::StringRef option,
                                              std::string &error) {
  if (path.empty())
    return std::string();
  mlir::FailureOr<mlir::remat::OutputFile *> file =
      outputs.addFile(path, error, option);
  if (mlir::failed(file))
    return mlir::failure();
  return (*file)->getTemporaryPath().str();
}

static int fail(const std::string &message) {
  llvm::errs() << "remat-opt: error: " << message << "\n";
  return 1;
}

/// The tool itself; main runs it at the tool's edge (ToolMain.h).
static int runTool(int argc, char **argv) {
  mlir::remat::setVersionPrinter("remat-opt");
  mlir::registerTransformsPasses();
  mlir::remat::registerRematPasses();
  mlir::remat::test::registerTestPeakMemoryPass();
  mlir::DialectRegistry registry;
  mlir::remat::registerAllDialects(registry);
  mlir::remat::RematOptionFlags rematFlags(rematOptions, rematCategory);
  // Diagnostics never print the op after them (for a function, the whole
  // function): --mlir-print-op-on-diagnostic is off unless asked for.
  mlir::registerMLIRContextCLOptions();
  if (auto *printOp = static_cast<cl::opt<bool> *>(
          cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic")))
    printOp->setInitialValue(false);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "remat optimizer driver: rematerialization of training steps",
      registry);

  // Every output is a temporary until every pass has run and the result is
  // printed; then they are renamed into place, --report and --timeline
  // first, -o last. An unwritable destination, or one that names the input
  // or another output, fails before any pass runs, and a failure later
  // leaves the old files as they were.
  std::string errorMessage;
  mlir::remat::OutputGroup outputs;
  if (mlir::failed(outputs.addInput(inputFilename, errorMessage)))
    return fail(errorMessage);
  mlir::FailureOr<std::string> reportFile =
      addOutput(outputs, reportPath, "--report", errorMessage);
  if (mlir::failed(reportFile))
    return fail(errorMessage);
  mlir::FailureOr<std::string> timelineFile =
      addOutput(outputs, timelinePath, "--timeline", errorMessage);
  if (mlir::failed(timelineFile))
    return fail(errorMessage);
  mlir::FailureOr<mlir::remat::OutputFile *> output =
      outputs.addFile(outputFilename, errorMessage, "-o");
  if (mlir::failed(output))
    return fail(errorMessage);
  mlir::MlirOptMainConfig config = addDiagnosticHandler(
      addShorthandPasses(mlir::MlirOptMainConfig::createFromCLOptions(),
                         *reportFile, *timelineFile));

  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  inputCopy.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(input->getBuffer(),
                                           input->getBufferIdentifier()),
      llvm::SMLoc());
  if (mlir::failed(mlir::MlirOptMain((*output)->os(), std::move(input),
                                     registry, config)))
    return 1;
  if (mlir::failed(outputs.commit(errorMessage)))
    return fail(errorMessage);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return mlir::remat::runToolMain("remat-opt",
                                  [&] { return runTool(argc, argv); });
}
