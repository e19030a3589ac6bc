//===- remat-opt.cpp - the remat optimizer driver -------------------------===//
//
// An mlir-opt for remat: parses, verifies, runs passes over and prints MLIR
// with remat's dialects, passes and test passes registered. Tool options
// are shorthands for passes after the ones the standard options name:
//   --budget=SIZE [--solver=S] [--work-limit=N] [--time-limit=S] [...]
//       remat-pipeline{budget=SIZE ...}: rematerialize, then plan memory;
//       the flags are the pipeline's own options (RematOptions.h)
//   --report=FILE.json --timeline=FILE.svg   remat-report{path= timeline=}
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::remat::test {
void registerTestPeakMemoryPass();
} // namespace mlir::remat::test

namespace cl = llvm::cl;

static cl::OptionCategory rematCategory("remat options");

/// The rematerialization options of --budget's pipeline (and --device for
/// --report), bound to the one declaration of those options.
static mlir::remat::RematOptions rematOptions;
static cl::opt<std::string>
    reportPath("report", cl::cat(rematCategory), cl::value_desc("FILE.json"),
               cl::desc("Write the remat report of the result to FILE.json "
                        "(remat-report at the end of the pipeline)"));

static cl::opt<std::string> timelinePath(
    "timeline", cl::cat(rematCategory), cl::value_desc("FILE.svg"),
    cl::desc("Write the live-bytes timeline of the result to FILE.svg"));

/// Appends the passes the tool options stand for to the pipeline that the
/// standard options describe.
static mlir::MlirOptMainConfig
addShorthandPasses(const mlir::MlirOptMainConfig &base) {
  bool report = !reportPath.empty() || !timelinePath.empty();
  if (!report && !rematOptions.budget.isSet())
    return base;
  mlir::MlirOptMainConfig config = base;
  config.setPassPipelineSetupFn([base, report](mlir::PassManager &pm) {
    if (mlir::failed(base.setupPassPipeline(pm)))
      return mlir::failure();
    if (rematOptions.budget.isSet()) {
      mlir::remat::RematOptions options = rematOptions;
      options.recordSolveTime |= report;
      mlir::remat::buildRematPipeline(pm, options);
    }
    if (report) {
      mlir::remat::RematReportPassOptions options;
      options.path = reportPath;
      options.timeline = timelinePath;
      options.device = rematOptions.device;
      pm.addPass(mlir::remat::createRematReportPass(options));
    }
    return mlir::success();
  });
  return config;
}

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::remat::registerRematPasses();
  mlir::remat::test::registerTestPeakMemoryPass();
  mlir::DialectRegistry registry;
  mlir::remat::registerAllDialects(registry);
  mlir::remat::RematOptionFlags rematFlags(rematOptions, rematCategory);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "remat optimizer driver: rematerialization of training steps",
      registry);
  mlir::MlirOptMainConfig config =
      addShorthandPasses(mlir::MlirOptMainConfig::createFromCLOptions());

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     config)))
    return 1;
  output->keep();
  return 0;
}
