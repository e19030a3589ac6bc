//===- remat-opt.cpp - the remat optimizer driver -------------------------===//
//
// An mlir-opt for remat: parses, verifies, runs passes over and prints MLIR
// with remat's dialects, passes and test passes registered. Tool options
// are shorthands for passes after the ones the standard options name:
//   --budget=SIZE [--solver=S] [--work-limit=N] [--time-limit=S]
//       remat-pipeline{budget=SIZE ...}: rematerialize, then plan memory
//   --report=FILE.json --timeline=FILE.svg   remat-report{path= timeline=}
// Files are written whole, after every pass has run (Support/OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"
#include "remat/Support/OutputFile.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlir::remat::test {
void registerTestPeakMemoryPass();
} // namespace mlir::remat::test

namespace cl = llvm::cl;

static cl::OptionCategory rematCategory("remat options");

static cl::opt<mlir::remat::ByteSize> budget(
    "budget", cl::cat(rematCategory),
    cl::desc("Rematerialize every function so that arguments + arena fit "
             "this budget (2.5GB, 512MiB, 123456, 80%), then plan memory"));

static cl::opt<std::string>
    solver("solver", cl::cat(rematCategory), cl::init("auto"),
           cl::desc("Solver for --budget: none, segments=K, sqrt, marks, chain, "
                    "heuristic, exact, auto"));

static cl::opt<int64_t>
    workLimit("work-limit", cl::cat(rematCategory), cl::init(0),
              cl::desc("Search steps per solver for --budget (0: default)"));

static cl::opt<double>
    timeLimit("time-limit", cl::cat(rematCategory), cl::init(60.0),
              cl::desc("Seconds per solve for --budget (0: none)"));

static cl::opt<bool>
    strictBudget("strict", cl::cat(rematCategory), cl::init(true),
                 cl::desc("An unmet --budget is an error (false: a warning)"));

static cl::opt<std::string>
    device("device", cl::cat(rematCategory), cl::init("h200"),
           cl::desc("Device profile for --budget and --report: h200, a100, "
                    "v100, gtx970m, cpu"));

static cl::opt<std::string>
    reportPath("report", cl::cat(rematCategory), cl::value_desc("FILE.json"),
               cl::desc("Write the remat report of the result to FILE.json "
                        "(remat-report at the end of the pipeline)"));

static cl::opt<std::string> timelinePath(
    "timeline", cl::cat(rematCategory), cl::value_desc("FILE.svg"),
    cl::desc("Write the live-bytes timeline of the result to FILE.svg"));

/// Appends the passes the tool options stand for to the pipeline that the
/// standard options describe. The report pass writes to `reportFile` and
/// `timelineFile`: the temporaries of --report and --timeline.
static mlir::MlirOptMainConfig
addShorthandPasses(const mlir::MlirOptMainConfig &base, std::string reportFile,
                   std::string timelineFile) {
  bool report = !reportPath.empty() || !timelinePath.empty();
  if (!report && !budget.getValue().isSet())
    return base;
  mlir::MlirOptMainConfig config = base;
  config.setPassPipelineSetupFn([base, report, reportFile,
                                 timelineFile](mlir::PassManager &pm) {
    if (mlir::failed(base.setupPassPipeline(pm)))
      return mlir::failure();
    if (budget.getValue().isSet()) {
      mlir::remat::RematPipelineOptions options;
      options.budget = budget.getValue();
      options.solver = solver.getValue();
      options.workLimit = workLimit.getValue();
      options.timeLimit = timeLimit.getValue();
      options.strict = strictBudget.getValue();
      options.device = device.getValue();
      options.recordSolveTime = report;
      mlir::remat::buildRematPipeline(pm, options);
    }
    if (report) {
      mlir::remat::RematReportPassOptions options;
      options.path = reportFile;
      options.timeline = timelineFile;
      options.device = device.getValue();
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
                                              std::string &error) {
  if (path.empty())
    return std::string();
  mlir::FailureOr<mlir::remat::OutputFile *> file =
      outputs.addFile(path, error);
  if (mlir::failed(file))
    return mlir::failure();
  return (*file)->getTemporaryPath().str();
}

static int fail(const std::string &message) {
  llvm::errs() << "remat-opt: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::remat::registerRematPasses();
  mlir::remat::test::registerTestPeakMemoryPass();
  mlir::DialectRegistry registry;
  mlir::remat::registerAllDialects(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "remat optimizer driver: rematerialization of training steps",
      registry);

  // Every output is a temporary until every pass has run and the result is
  // printed; then they are renamed into place, --report and --timeline
  // first, -o last. An unwritable destination fails before any pass runs,
  // a failure later leaves the old files as they were, and -o may name the
  // input (which stays mapped, unchanged, while it is read).
  std::string errorMessage;
  mlir::remat::OutputGroup outputs;
  mlir::FailureOr<std::string> reportFile =
      addOutput(outputs, reportPath, errorMessage);
  if (mlir::failed(reportFile))
    return fail(errorMessage);
  mlir::FailureOr<std::string> timelineFile =
      addOutput(outputs, timelinePath, errorMessage);
  if (mlir::failed(timelineFile))
    return fail(errorMessage);
  mlir::FailureOr<mlir::remat::OutputFile *> output =
      outputs.addFile(outputFilename, errorMessage);
  if (mlir::failed(output))
    return fail(errorMessage);
  mlir::MlirOptMainConfig config =
      addShorthandPasses(mlir::MlirOptMainConfig::createFromCLOptions(),
                         *reportFile, *timelineFile);

  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain((*output)->os(), std::move(input),
                                     registry, config)))
    return 1;
  if (mlir::failed(outputs.commit(errorMessage)))
    return fail(errorMessage);
  return 0;
}
