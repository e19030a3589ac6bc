//===- remat.cpp - the user's driver: largest batch, compile, sweep -------===//
//
//   remat max-batch MODEL.pt --sample-shape=3x224x224xf32 --budget=2.5GB
//         [--device=gtx970m] [--optimizer=adam] [--policies=none,sqrt,auto]
//         [--checkpoints=OP,OP,...] [--max-batch=N] [--json]
//   remat compile MODEL.pt --input-shape=31x3x224x224xf32 --budget=2.5GB
//         -o step.mlir [--solver=auto] [--report=F.json] [--timeline=F.svg]
//   remat sweep MODEL.pt --input-shape=31x3x224x224xf32 [--points=8]
//         [--solver=auto] [--svg=F.svg] [--json]
//
// A thin layer over the library: the TorchScript importer, remat-autodiff,
// the rematerialization planner and the report (Driver/BatchSearch.h).
// Every file is written to a temporary and renamed into place once the
// whole command succeeded (Support/OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "DriverOptions.h"
#include "DriverOutput.h"

#include "remat/Driver/BatchSearch.h"
#include "remat/InitAll.h"
#include "remat/Report/StepReport.h"
#include "remat/Support/OutputFile.h"
#include "remat/Support/ToolDiagnostics.h"
#include "remat/Target/TorchScript/TorchScriptImport.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::driver;

static void progress(const std::string &line) {
  llvm::errs() << "remat: " << line << "\n";
}

static int runMaxBatch(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, sampleShapes, "--sample-shape");
  FailureOr<int64_t> budget = getBudgetBytes();
  FailureOr<std::vector<Policy>> policies = getPolicies();
  FailureOr<const DeviceProfile *> device = getDevice(context);
  if (failed(spec) || failed(budget) || failed(policies) || failed(device))
    return 1;
  if (maxBatchOption < 1)
    return fail("--max-batch must be at least 1, got " +
                std::to_string(maxBatchOption));
  CostModel costModel(**device);
  TrainingStepBuilder steps(&context, *spec);
  std::vector<MaxBatchResult> results;
  for (const Policy &policy : *policies) {
    FailureOr<MaxBatchResult> result =
        findMaxBatch(steps, policy, *budget, costModel, maxBatchOption,
                     progress, rematOptions);
    if (failed(result))
      return 1;
    results.push_back(*result);
  }
  progress("built the step at " + std::to_string(steps.getBuiltCount()) +
           " batch sizes");
  if (llvm::none_of(results, [](const MaxBatchResult &r) { return r.batch; })) {
    int64_t smallest = INT64_MAX;
    for (const MaxBatchResult &result : results)
      smallest = std::min(smallest, result.evaluation.bytes);
    return fail("the budget " + rematOptions.budget.str() + " (" +
                std::to_string(*budget) +
                " bytes) cannot hold the step at batch 1 under any policy; "
                "the smallest budget that fits batch 1 is " +
                std::to_string(smallest) + " bytes");
  }
  if (jsonOutput)
    printMaxBatchJson(llvm::outs(), *spec, *budget, **device, results);
  else
    printMaxBatchTable(llvm::outs(), *spec, *budget, **device, results);
  return 0;
}

static int runCompile(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, inputShapes, "--input-shape");
  if (failed(spec))
    return 1;
  if (!rematOptions.budget.isSet())
    return fail("--budget is required (2.5GB, 512MiB, 123456, 80%)");
  if (outputFile == "-" && weightsOption.empty())
    return fail("writing the MLIR to stdout needs --weights=DIR");
  FailureOr<int64_t> batch = splitBatch(*spec);
  if (failed(batch))
    return 1;
  std::string weightsPath =
      weightsOption.empty() ? outputFile + ".weights" : weightsOption;
  // Every output is a temporary until the step is compiled and written:
  // an unwritable destination fails here, before any work, and a failure
  // later leaves the old files as they were. The report pass writes into
  // the temporaries of --report and --timeline.
  std::string error;
  OutputGroup outputs;
  FailureOr<OutputDirectory *> weights =
      outputs.addDirectory(weightsPath, error);
  if (failed(weights))
    return fail(error);
  FailureOr<OutputFile *> report, timeline;
  if (!reportPath.empty() &&
      failed(report = outputs.addFile(reportPath, error)))
    return fail(error);
  if (!timelinePath.empty() &&
      failed(timeline = outputs.addFile(timelinePath, error)))
    return fail(error);
  FailureOr<OutputFile *> output = outputs.addFile(outputFile, error);
  if (failed(output))
    return fail(error);

  // The same step max-batch and sweep search over, at this batch.
  FailureOr<TorchScriptImport> step =
      buildTrainingStep(*spec, *batch, &context, weightsPath);
  if (failed(step))
    return 1;
  PassManager pm(&context);
  RematOptions options = rematOptions;
  options.recordSolveTime = !reportPath.empty();
  buildRematPipeline(pm, options);
  if (!reportPath.empty() || !timelinePath.empty()) {
    RematReportPassOptions reportOptions;
    if (!reportPath.empty()) {
      reportOptions.path = (*report)->getTemporaryPath().str();
      // The extension of the user's file, not of its temporary.
      reportOptions.format =
          stringifyReportFormat(getReportFormatForPath(reportPath)).str();
    }
    if (!timelinePath.empty())
      reportOptions.timeline = (*timeline)->getTemporaryPath().str();
    reportOptions.device = rematOptions.device;
    pm.addPass(createRematReportPass(reportOptions));
  }
  if (failed(pm.run(*step->module)))
    return 1;
  if (!writeWeights((*weights)->getTemporaryPath(), step->weights, error))
    return fail(error);
  step->module->print((*output)->os());
  // In the order added: the weights, the report, the timeline, -o last.
  if (failed(outputs.commit(error)))
    return fail(error);
  return 0;
}

static int runSweep(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, inputShapes, "--input-shape");
  FailureOr<const DeviceProfile *> device = getDevice(context);
  if (failed(spec) || failed(device))
    return 1;
  if (pointsOption < 2)
    return fail("--points must be at least 2");
  ModelSpec shown = *spec; // with the batch, for the output
  FailureOr<int64_t> batch = splitBatch(*spec);
  if (failed(batch))
    return 1;
  TrainingStepBuilder steps(&context, *spec);
  FailureOr<ModuleOp> step = steps.getStep(*batch);
  if (failed(step))
    return 1;
  CostModel costModel(**device);
  Policy policy{rematOptions.solver.str(), rematOptions.solver, {}};
  FailureOr<std::vector<SweepPoint>> sweep =
      sweepBudgets(*step, policy, pointsOption, costModel, rematOptions);
  if (failed(sweep))
    return 1;
  if (!svgPath.empty()) {
    std::string error;
    FailureOr<OutputFile> svg = OutputFile::create(svgPath, error);
    if (failed(svg))
      return fail(error);
    printSweepSvg(svg->os(), shown, policy, *sweep);
    if (failed(svg->commit(error)))
      return fail(error);
  }
  if (jsonOutput)
    printSweepJson(llvm::outs(), shown, policy, **device, *sweep);
  else
    printSweepTable(llvm::outs(), shown, policy, **device, *sweep);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(driver::getToolCategory());
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "remat: the largest batch that fits, a compiled training step, or "
      "extra compute against budget, for a TorchScript model\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  ToolDiagnosticHandler handler(sourceMgr, &context);
  if (maxBatchCommand)
    return runMaxBatch(context);
  if (compileCommand)
    return runCompile(context);
  if (sweepCommand)
    return runSweep(context);
  return fail("name a command: max-batch, compile or sweep (see --help)");
}
