//===- remat.cpp - the user's driver: largest batch, plan, compile, sweep -===//
//
//   remat max-batch MODEL.pt --sample-shape=3x224x224xf32 --budget=2.5GB
//         [--device=gtx970m] [--optimizer=adam] [--policies=none,sqrt,auto]
//         [--checkpoints=OP,OP,...] [--max-batch=N] [--max-overhead=P%]
//         [--measured-profile=F.json] [--json]
//   remat compile MODEL.pt --input-shape=31x3x224x224xf32 --budget=2.5GB
//         -o step.mlir [--solver=auto] [--checkpoints=OP,...]
//         [--report=F.json] [--timeline=F.svg] [--write-unplanned=F.mlir]
//   remat sweep MODEL.pt --input-shape=31x3x224x224xf32 [--points=8]
//         [--solver=auto] [--svg=F.svg] [--json]
//   remat ops MODEL.pt --input-shape=31x3x224x224xf32 [--json]
//   remat plan MODEL.pt --sample-shape=3x224x224xf32 --batch=64
//         --budget=2.5GB [--policies=none,auto] [--measured-profile=F.json]
//         [--json] [-o step.mlir]
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
#include "remat/Driver/ForwardOps.h"
#include "remat/Driver/Plan.h"
#include "remat/InitAll.h"
#include "remat/Remat/SolverSpec.h"
#include "remat/Report/StepReport.h"
#include "remat/Support/OutputFile.h"
#include "remat/Support/ToolDiagnostics.h"
#include "remat/Support/ToolMain.h"
#include "remat/Support/Version.h"
#include "remat/Target/TorchScript/TorchScriptImport.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::driver;

static void progress(const std::string &line) {
  llvm::errs() << "remat: " << line << "\n";
}

static void warn(const llvm::Twine &message) {
  llvm::errs() << "remat: warning: " << message << "\n";
}

/// Where an unknown checkpoint name sends the user.
static std::string getOpsHint() {
  return "`remat ops " + modelFile + " --input-shape=...` lists the names";
}

/// The op names --checkpoints means in `step` (names or module paths).
static FailureOr<std::vector<std::string>>
resolveCheckpointOption(ModuleOp step, ArrayRef<ImportedOpOrigin> origins) {
  FailureOr<std::vector<ForwardOp>> ops = listForwardOps(step, origins);
  if (failed(ops))
    return failure();
  std::vector<std::string> names(checkpointsOption.begin(),
                                 checkpointsOption.end());
  std::string error;
  FailureOr<std::vector<std::string>> resolved =
      resolveCheckpoints(*ops, names, getOpsHint(), error);
  if (failed(resolved))
    return fail(error), failure();
  return resolved;
}

/// Checkpoints that leave the peak where it was save nothing.
static void warnIfSavesNothing(int64_t peakBefore, int64_t peakAfter) {
  if (peakAfter < peakBefore)
    return;
  std::string names = llvm::join(checkpointsOption, ",");
  warn("--checkpoints=" + names + " saves nothing: the step peaks at " +
       std::to_string(peakAfter) + " bytes with them, " +
       std::to_string(peakBefore) + " without");
}

static int runMaxBatch(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, sampleShapes, "--sample-shape");
  FailureOr<int64_t> budget = getBudgetBytes();
  FailureOr<std::vector<Policy>> policies = getPolicies();
  FailureOr<const DeviceProfile *> device = getDevice(context);
  FailureOr<std::optional<double>> maxOverhead = getMaxOverhead();
  if (failed(spec) || failed(budget) || failed(policies) || failed(device) ||
      failed(maxOverhead))
    return 1;
  if (maxBatchOption < 1)
    return fail("--max-batch must be at least 1, got " +
                std::to_string(maxBatchOption));
  TrainingStepBuilder steps(&context, *spec);
  // Names and module paths are the same at every batch.
  FailureOr<CostModel> costModel =
      getCostModel(context, **device, [&] { return steps.getStep(1); });
  if (failed(costModel))
    return 1;
  if (!checkpointsOption.empty()) {
    FailureOr<ModuleOp> first = steps.getStep(1);
    if (failed(first))
      return 1;
    FailureOr<std::vector<std::string>> names =
        resolveCheckpointOption(*first, steps.getOpOrigins());
    if (failed(names))
      return 1;
    for (Policy &policy : *policies)
      if (!policy.checkpoints.empty())
        policy.checkpoints = *names;
  }
  std::vector<MaxBatchResult> results;
  for (const Policy &policy : *policies) {
    FailureOr<MaxBatchResult> result =
        *maxOverhead
            ? findMaxBatchWithinOverhead(steps, policy, *budget, *costModel,
                                         maxBatchOption, **maxOverhead,
                                         progress, rematOptions)
            : findMaxBatch(steps, policy, *budget, *costModel, maxBatchOption,
                           progress, rematOptions);
    if (failed(result))
      return 1;
    results.push_back(*result);
  }
  progress("built the step at " + std::to_string(steps.getBuiltCount()) +
           " batch sizes");
  for (const MaxBatchResult &result : results)
    if (!result.policy.checkpoints.empty())
      warnIfSavesNothing(result.evaluation.peakBytesBefore,
                         result.evaluation.peakBytes);
  if (llvm::none_of(results, [](const MaxBatchResult &r) { return r.batch; })) {
    int64_t smallest = INT64_MAX;
    for (const MaxBatchResult &result : results)
      if (result.evaluation.notApplicable.empty())
        smallest = std::min(smallest, result.evaluation.bytes);
    if (smallest == INT64_MAX)
      return fail("no policy applies to the step: " +
                  results.front().policy.label + ": " +
                  results.front().evaluation.notApplicable);
    return fail("the budget " + rematOptions.budget.str() + " (" +
                std::to_string(*budget) +
                " bytes) cannot hold the step at batch 1 under any policy; "
                "the smallest budget that fits batch 1 is " +
                std::to_string(smallest) + " bytes");
  }
  if (jsonOutput)
    printMaxBatchJson(llvm::outs(), *spec, *budget, **device, results,
                      *maxOverhead);
  else
    printMaxBatchTable(llvm::outs(), *spec, *budget, **device, results,
                       *maxOverhead);
  return 0;
}

/// Prints the line compile ends with (DriverOutput.h), for the step's one
/// function with a body.
static LogicalResult printSummary(ModuleOp module, const RematOptions &options,
                                  const CostModel &costModel) {
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (function.isExternal())
      continue;
    FailureOr<StepReport> report = buildStepReport(function, costModel);
    if (failed(report))
      return failure();
    printCompileSummary(llvm::errs(), *report, options, costModel.getDevice());
    if (!checkpointsOption.empty())
      warnIfSavesNothing(report->peakBytesBefore, report->peakBytesAfter);
  }
  return success();
}

/// Where a written step's weights go: --weights, else beside `output`.
static std::string getWeightsPath(llvm::StringRef output) {
  return weightsOption.empty() ? (output + ".weights").str()
                               : std::string(weightsOption);
}

/// How messages name the weights directory.
static StringRef getWeightsName() {
  return weightsOption.empty() ? "the weights directory (<-o>.weights)"
                               : "--weights";
}

/// Claims the command's input files in `outputs`, so that an output naming
/// one is an error before any work.
static LogicalResult addInputs(OutputGroup &outputs, std::string &error) {
  if (failed(outputs.addInput(modelFile, error, "the model")))
    return failure();
  if (measuredProfileOption.empty())
    return success();
  return outputs.addInput(measuredProfileOption, error, "--measured-profile");
}

/// Writes a compiled step's weights and MLIR into their temporaries, then
/// commits every output of `outputs` in the order added.
static int writeStep(TorchScriptImport &step, OutputDirectory &weights,
                     OutputFile &output, OutputGroup &outputs) {
  std::string error;
  if (!writeWeights(weights.getTemporaryPath(), step.weights, error))
    return fail(error);
  step.module->print(output.os());
  if (failed(outputs.commit(error)))
    return fail(error);
  return 0;
}

/// The files `compile` writes, as temporaries until the step is written.
struct CompileOutputs {
  OutputGroup group;
  OutputDirectory *weights = nullptr;
  OutputFile *report = nullptr, *timeline = nullptr, *unplanned = nullptr;
  OutputFile *output = nullptr;
};

/// Every output is a temporary until the step is compiled and written: an
/// unwritable destination fails here, before any work, and a failure later
/// leaves the old files as they were.
static LogicalResult addCompileOutputs(CompileOutputs &outputs,
                                       StringRef weightsPath,
                                       std::string &error) {
  OutputGroup &group = outputs.group;
  if (failed(addInputs(group, error)))
    return failure();
  FailureOr<OutputDirectory *> weights =
      group.addDirectory(weightsPath, error, getWeightsName());
  if (failed(weights))
    return failure();
  outputs.weights = *weights;
  auto addFile = [&](StringRef path, StringRef option,
                     OutputFile *&file) -> LogicalResult {
    if (path.empty())
      return success();
    FailureOr<OutputFile *> added = group.addFile(path, error, option);
    if (failed(added))
      return failure();
    file = *added;
    return success();
  };
  return success(
      succeeded(addFile(reportPath, "--report", outputs.report)) &&
      succeeded(addFile(timelinePath, "--timeline", outputs.timeline)) &&
      succeeded(
          addFile(unplannedPath, "--write-unplanned", outputs.unplanned)) &&
      succeeded(addFile(outputFile, "-o", outputs.output)));
}

/// The report pass for --report and --timeline, writing into their
/// temporaries.
static void addReportPass(PassManager &pm, const CompileOutputs &outputs) {
  if (reportPath.empty() && timelinePath.empty())
    return;
  RematReportPassOptions reportOptions;
  if (!reportPath.empty()) {
    reportOptions.path = outputs.report->getTemporaryPath().str();
    // The extension of the user's file, not of its temporary.
    reportOptions.format =
        stringifyReportFormat(getReportFormatForPath(reportPath)).str();
  }
  if (!timelinePath.empty())
    reportOptions.timeline = outputs.timeline->getTemporaryPath().str();
  reportOptions.device = rematOptions.device;
  pm.addPass(createRematReportPass(reportOptions));
}

/// The option errors of `compile` found before any work, or "".
static std::string checkCompileOptions() {
  if (!rematOptions.budget.isSet())
    return "--budget is required (2.5GB, 512MiB, 123456, 80%)";
  if (!checkpointsOption.empty() && rematOptions.solver != SolverSpec() &&
      rematOptions.solver.getKind() != SolverKind::Marks)
    return "--checkpoints runs the marks solver; drop --solver=" +
           rematOptions.solver.str();
  if (outputFile == "-" && weightsOption.empty())
    return "writing the MLIR to stdout needs --weights=DIR";
  return "";
}

static int runCompile(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, inputShapes, "--input-shape");
  FailureOr<const DeviceProfile *> device = getDevice(context);
  if (failed(spec) || failed(device))
    return 1;
  if (std::string error = checkCompileOptions(); !error.empty())
    return fail(error);
  FailureOr<int64_t> batch = splitBatch(*spec);
  if (failed(batch))
    return 1;
  std::string weightsPath = getWeightsPath(outputFile);
  std::string error;
  CompileOutputs outputs;
  if (failed(addCompileOutputs(outputs, weightsPath, error)))
    return fail(error);

  // The same step max-batch and sweep search over, at this batch.
  FailureOr<TorchScriptImport> step =
      buildTrainingStep(*spec, *batch, &context, weightsPath);
  if (failed(step))
    return 1;
  if (outputs.unplanned)
    step->module->print(outputs.unplanned->os());
  RematOptions options = rematOptions;
  if (!checkpointsOption.empty()) {
    FailureOr<std::vector<std::string>> names =
        resolveCheckpointOption(*step->module, step->opOrigins);
    if (failed(names) || failed(markCheckpoints(*step->module, *names)))
      return 1;
    options.solver = SolverSpec(SolverKind::Marks);
  }
  PassManager pm(&context);
  options.recordSolveTime = !reportPath.empty();
  buildRematPipeline(pm, options);
  addReportPass(pm, outputs);
  if (failed(pm.run(*step->module)))
    return 1;
  if (failed(printSummary(*step->module, options, CostModel(**device))))
    return 1;
  // In the order added: the weights, the report, the timeline, -o last.
  return writeStep(*step, *outputs.weights, *outputs.output, outputs.group);
}

/// The files plan's -o writes: temporaries until the step is written.
struct PlanOutputs {
  OutputGroup group;
  std::string weightsPath;
  OutputDirectory *weights = nullptr;
  OutputFile *step = nullptr;
};

/// Opens -o and its weights directory, so that an unwritable destination
/// fails before any work.
static LogicalResult openPlanOutputs(PlanOutputs &outputs) {
  std::string error;
  outputs.weightsPath = getWeightsPath(planOutputFile);
  if (failed(addInputs(outputs.group, error)))
    return fail(error), failure();
  FailureOr<OutputDirectory *> weights =
      outputs.group.addDirectory(outputs.weightsPath, error, getWeightsName());
  if (failed(weights))
    return fail(error), failure();
  FailureOr<OutputFile *> step =
      outputs.group.addFile(planOutputFile, error, "-o");
  if (failed(step))
    return fail(error), failure();
  outputs.weights = *weights;
  outputs.step = *step;
  return success();
}

/// Rematerializes the step `chosen` stands for as plan evaluated it (the
/// same solver and options), plans its memory, and writes it with its
/// weights to -o.
static int writePlannedStep(MLIRContext &context, const ModelSpec &spec,
                            const PlanResult &plan, const CostModel &costModel,
                            PlanOutputs &outputs) {
  const PlanCandidate &chosen = plan.microBatches[*plan.chosen];
  FailureOr<TorchScriptImport> step =
      buildPlannedStep(spec, chosen, &context, outputs.weightsPath);
  if (failed(step))
    return 1;
  // The checkpoints policy keeps its checkpoints as evaluatePolicy marked
  // them: the marks solver then recomputes the rest.
  if (!chosen.policy->checkpoints.empty() &&
      failed(markCheckpoints(*step->module, chosen.policy->checkpoints)))
    return 1;
  RematOptions options = rematOptions;
  options.solver = chosen.policy->solver;
  // As evaluatePolicy solved it: the same schedule.
  options.lowerBound = false;
  for (FunctionOpInterface function : getFunctionsWithBodies(*step->module))
    if (failed(rematerializeFunction(function, costModel, options)))
      return 1;
  PassManager pm(&context);
  pm.addPass(createRematPlanMemoryPass());
  if (failed(pm.run(*step->module)) ||
      failed(printSummary(*step->module, options, costModel)))
    return 1;
  return writeStep(*step, *outputs.weights, *outputs.step, outputs.group);
}

/// Why no policy applied: the first evaluated micro-batch's reason.
static std::string describeNotApplicable(const PlanResult &plan) {
  for (const PlanCandidate &candidate : plan.microBatches)
    if (candidate.skipped.empty() &&
        !candidate.evaluation.notApplicable.empty())
      return candidate.evaluation.solver + ": " +
             candidate.evaluation.notApplicable;
  return "every micro-batch was skipped";
}

/// The option errors of `plan` found before any work, or "".
static std::string checkPlanOptions() {
  if (!batchOption.getNumOccurrences())
    return "--batch is required: the batch of one optimizer step";
  if (batchOption < 1)
    return "--batch must be at least 1, got " + std::to_string(batchOption);
  if (batchOption > kMaxPlanBatch)
    return "--batch must be at most " + std::to_string(kMaxPlanBatch) +
           " (max-batch's default --max-batch), got " +
           std::to_string(batchOption);
  if (planOutputFile == "-" && weightsOption.empty())
    return "writing the MLIR to stdout needs --weights=DIR";
  if (planOutputFile == "-" && jsonOutput)
    return "-o - and --json both write to stdout: write the step to a "
           "file, or drop --json";
  return "";
}

/// Gives the `checkpoints` policies the ops --checkpoints names. Names and
/// module paths are the same at every micro-batch (micro-step i > 0 of an
/// accumulated step keeps them with its `micro<i>.` prefix).
static LogicalResult resolvePlanCheckpoints(MLIRContext &context,
                                            const ModelSpec &spec,
                                            std::vector<Policy> &policies) {
  if (checkpointsOption.empty())
    return success();
  if (llvm::none_of(policies,
                    [](const Policy &p) { return !p.checkpoints.empty(); })) {
    fail("--checkpoints is a policy: name 'checkpoints' in --policies");
    return failure();
  }
  TrainingStepBuilder steps(&context, spec);
  FailureOr<ModuleOp> whole = steps.getStep(batchOption);
  if (failed(whole))
    return failure();
  FailureOr<std::vector<std::string>> names =
      resolveCheckpointOption(*whole, steps.getOpOrigins());
  if (failed(names))
    return failure();
  for (Policy &policy : policies)
    if (!policy.checkpoints.empty())
      policy.checkpoints = *names;
  return success();
}

/// Why no plan was chosen.
static std::string describeUnmetPlan(const PlanResult &plan, int64_t budget) {
  if (plan.getSmallestBytes() == INT64_MAX)
    return "no policy applies to the step at any micro-batch: " +
           describeNotApplicable(plan);
  return "the budget " + std::string(rematOptions.budget.str()) + " (" +
         std::to_string(budget) + " bytes) cannot hold the step at " +
         "batch " + std::to_string(batchOption) +
         " at any micro-batch under any policy; the smallest any "
         "schedule reached is " +
         std::to_string(plan.getSmallestBytes()) + " bytes";
}

static int runPlan(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, sampleShapes, "--sample-shape");
  FailureOr<int64_t> budget = getBudgetBytes();
  FailureOr<std::vector<Policy>> policies = getPlanPolicies();
  FailureOr<const DeviceProfile *> device = getDevice(context);
  if (failed(spec) || failed(budget) || failed(policies) || failed(device))
    return 1;
  if (std::string error = checkPlanOptions(); !error.empty())
    return fail(error);
  PlanOutputs outputs;
  if (!planOutputFile.empty() && failed(openPlanOutputs(outputs)))
    return 1;
  if (failed(resolvePlanCheckpoints(context, *spec, *policies)))
    return 1;
  // Keys name the ops of the step without accumulation, at micro-batch 1.
  FailureOr<TorchScriptImport> keyStep;
  FailureOr<CostModel> costModel =
      getCostModel(context, **device, [&]() -> FailureOr<ModuleOp> {
        keyStep = buildTrainingStep(*spec, 1, &context);
        if (failed(keyStep))
          return failure();
        return *keyStep->module;
      });
  if (failed(costModel))
    return 1;
  PlanOptions options;
  options.batch = batchOption;
  options.budgetBytes = *budget;
  options.policies = *policies;
  options.remat = rematOptions;
  options.progress = progress;
  FailureOr<PlanResult> plan =
      planTrainingBatch(*spec, &context, *costModel, options);
  if (failed(plan))
    return 1;
  if (!plan->chosen)
    return fail(describeUnmetPlan(*plan, *budget));
  if (!planOutputFile.empty() &&
      writePlannedStep(context, *spec, *plan, *costModel, outputs))
    return 1;
  // With -o - the step is stdout: the table goes to stderr.
  llvm::raw_ostream &os = planOutputFile == "-" ? llvm::errs() : llvm::outs();
  if (jsonOutput)
    printPlanJson(os, *spec, **device, *plan);
  else
    printPlanTable(os, *spec, **device, *plan);
  return 0;
}

static int runOps(MLIRContext &context) {
  FailureOr<ModelSpec> spec =
      getModelSpec(context, inputShapes, "--input-shape");
  if (failed(spec))
    return 1;
  ModelSpec shown = *spec; // with the batch, for the output
  FailureOr<int64_t> batch = splitBatch(*spec);
  if (failed(batch))
    return 1;
  // The training step's forward ops: the model's, and the loss.
  FailureOr<TorchScriptImport> step =
      buildTrainingStep(*spec, *batch, &context);
  if (failed(step))
    return 1;
  FailureOr<std::vector<ForwardOp>> ops =
      listForwardOps(*step->module, step->opOrigins);
  if (failed(ops))
    return 1;
  if (jsonOutput)
    printOpsJson(llvm::outs(), shown, *ops);
  else
    printOpsTable(llvm::outs(), shown, *ops);
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
  // --svg is a temporary until the sweep is drawn: an unwritable or
  // clashing destination fails before any work.
  std::string error;
  OutputGroup outputs;
  FailureOr<OutputFile *> svg;
  if (failed(addInputs(outputs, error)) ||
      (!svgPath.empty() &&
       failed(svg = outputs.addFile(svgPath, error, "--svg"))))
    return fail(error);
  ModelSpec shown = *spec; // with the batch, for the output
  FailureOr<int64_t> batch = splitBatch(*spec);
  if (failed(batch))
    return 1;
  TrainingStepBuilder steps(&context, *spec);
  FailureOr<ModuleOp> step = steps.getStep(*batch);
  if (failed(step))
    return 1;
  FailureOr<CostModel> costModel =
      getCostModel(context, **device, [&] { return step; });
  if (failed(costModel))
    return 1;
  Policy policy{rematOptions.solver.str(), rematOptions.solver, {}};
  FailureOr<std::vector<SweepPoint>> sweep =
      sweepBudgets(*step, policy, pointsOption, *costModel, rematOptions);
  if (failed(sweep))
    return 1;
  if (!svgPath.empty())
    printSweepSvg((*svg)->os(), shown, policy, *sweep);
  if (failed(outputs.commit(error)))
    return fail(error);
  if (jsonOutput)
    printSweepJson(llvm::outs(), shown, policy, **device, *sweep);
  else
    printSweepTable(llvm::outs(), shown, policy, **device, *sweep);
  return 0;
}

/// The tool itself; main runs it at the tool's edge (ToolMain.h).
static int runTool(int argc, char **argv) {
  mlir::remat::setVersionPrinter("remat");
  llvm::cl::HideUnrelatedOptions(driver::getToolCategory());
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "remat: the largest batch that fits, the fastest way to train at a "
      "batch, a compiled training step, or extra compute against budget, for "
      "a TorchScript model\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Long solves (the heuristic's best peak, exact's branch and bound) say
  // how they are doing, as each batch tried does.
  rematOptions.progress = progress;
  llvm::SourceMgr sourceMgr;
  ToolDiagnosticHandler handler(sourceMgr, &context);
  if (maxBatchCommand)
    return runMaxBatch(context);
  if (compileCommand)
    return runCompile(context);
  if (sweepCommand)
    return runSweep(context);
  if (opsCommand)
    return runOps(context);
  if (planCommand)
    return runPlan(context);
  return fail(
      "name a command: max-batch, plan, compile, sweep or ops (see --help)");
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return mlir::remat::runToolMain("remat", [&] { return runTool(argc, argv); });
}
