//===- DriverOptions.cpp - the remat driver's command line ----------------===//

#include "DriverOptions.h"

#include "remat/Remat/Solvers.h"
#include "remat/Support/ByteSize.h"
#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::remat;
namespace cl = llvm::cl;

namespace mlir::remat::driver {

cl::OptionCategory &getToolCategory() {
  static cl::OptionCategory category("remat options");
  return category;
}

cl::SubCommand maxBatchCommand(
    "max-batch", "The largest batch whose training step fits the budget, per "
                 "policy");
cl::SubCommand
    compileCommand("compile",
                   "Import, differentiate, rematerialize and plan one step");
cl::SubCommand
    sweepCommand("sweep",
                 "Extra compute against budget for the step at one batch");
cl::SubCommand
    planCommand("plan",
                "The fastest way to train at a batch within the budget: "
                "rematerialization, gradient accumulation, or both");
cl::SubCommand
    opsCommand("ops",
               "The step's forward ops: name, kind, result bytes, and the "
               "modules they come from (the names --checkpoints takes)");

cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                               cl::desc("<model.pt>"), cl::sub(maxBatchCommand),
                               cl::sub(compileCommand), cl::sub(sweepCommand),
                               cl::sub(opsCommand), cl::sub(planCommand),
                               cl::cat(getToolCategory()));
cl::list<std::string> sampleShapes(
    "sample-shape", cl::CommaSeparated, cl::sub(maxBatchCommand),
    cl::sub(planCommand),
    cl::desc("Type of one sample of each input of forward, without the batch "
             "(3x224x224xf32; i64 for per-sample labels)"),
    cl::cat(getToolCategory()));
cl::list<std::string>
    inputShapes("input-shape", cl::CommaSeparated, cl::sub(compileCommand),
                cl::sub(sweepCommand), cl::sub(opsCommand),
                cl::desc("Full type of each input of forward, batch included "
                         "(31x3x224x224xf32); a torch.export program's own "
                         "by default"),
                cl::cat(getToolCategory()));
RematOptions rematOptions;
// The rematerialization options, bound to their one declaration
// (RematOptions.h) per command: max-batch compares --policies instead of one
// solver and asks only whether a batch fits; sweep chooses its own budgets.
static RematOptionFlags compileRematFlags(rematOptions, getToolCategory(),
                                          {&compileCommand},
                                          {"record-solve-time"});
static RematOptionFlags
    maxBatchRematFlags(rematOptions, getToolCategory(), {&maxBatchCommand},
                       {"solver", "strict", "record-solve-time"});
static RematOptionFlags
    planRematFlags(rematOptions, getToolCategory(), {&planCommand},
                   {"solver", "strict", "record-solve-time"});
static RematOptionFlags
    sweepRematFlags(rematOptions, getToolCategory(), {&sweepCommand},
                    {"budget", "strict", "record-solve-time"});
static cl::opt<std::string> policiesOption(
    "policies", cl::init("none,checkpoints,sqrt,auto"),
    cl::sub(maxBatchCommand),
    cl::desc("Policies to compare: solvers, and 'checkpoints' for "
             "--checkpoints (left out when --checkpoints is not given) "
             "(default: none,checkpoints,sqrt,auto)"),
    cl::cat(getToolCategory()));
cl::list<std::string> checkpointsOption(
    "checkpoints", cl::CommaSeparated, cl::sub(maxBatchCommand),
    cl::sub(compileCommand), cl::sub(planCommand),
    cl::desc("Forward ops whose results are kept, as "
             "torch.utils.checkpoint keeps segment inputs, by remat.name or "
             "module path (the module's output op; `remat ops` lists both); "
             "every other forward op is recomputed (the marks solver)"),
    cl::cat(getToolCategory()));
cl::opt<int64_t> maxBatchOption("max-batch", cl::init(65536),
                                cl::sub(maxBatchCommand),
                                cl::desc("The largest batch tried (default: "
                                         "65536)"),
                                cl::cat(getToolCategory()));
// max-batch --max-overhead.
static cl::opt<std::string> maxOverheadOption(
    "max-overhead", cl::sub(maxBatchCommand),
    cl::desc("Also the largest batch whose extra estimated time stays within "
             "this percentage (20%) of the same batch's without "
             "recomputation (default: none)"),
    cl::cat(getToolCategory()));
// The cost model's measured profile: the commands whose
// own code builds the cost model that plans.
cl::opt<std::string> measuredProfileOption(
    "measured-profile", cl::sub(maxBatchCommand), cl::sub(planCommand),
    cl::sub(sweepCommand),
    cl::desc("Measured op times (JSON: op name or kind -> seconds) and "
             "saturation keys (remat.saturation_flops, "
             "remat.saturation_bytes, remat.minimum_fill) replacing the "
             "device's estimates, as remat-report's measured-profile "
             "(default: none)"),
    cl::cat(getToolCategory()));
cl::opt<int> pointsOption("points", cl::init(8), cl::sub(sweepCommand),
                          cl::desc("Budgets in the sweep (default: 8)"),
                          cl::cat(getToolCategory()));
static cl::opt<std::string> optimizerOption(
    "optimizer", cl::init("none"), cl::sub(maxBatchCommand),
    cl::sub(compileCommand), cl::sub(sweepCommand), cl::sub(planCommand),
    cl::desc("The step's update: none (gradients), sgd, adam or adamw "
             "(PyTorch's defaults: AdamW's weight decay 0.01) (default: "
             "none)"),
    cl::cat(getToolCategory()));
static cl::opt<double> lrOption("lr", cl::init(0.0), cl::sub(maxBatchCommand),
                                cl::sub(compileCommand), cl::sub(sweepCommand),
                                cl::sub(planCommand),
                                cl::desc("Learning rate (default 0: the "
                                         "optimizer's own, SGD 0.01, Adam "
                                         "0.001)"),
                                cl::cat(getToolCategory()));
static cl::opt<double>
    momentumOption("momentum", cl::init(0.0), cl::sub(maxBatchCommand),
                   cl::sub(compileCommand), cl::sub(sweepCommand),
                   cl::sub(planCommand), cl::desc("SGD momentum (default: 0)"),
                   cl::cat(getToolCategory()));
static cl::opt<std::string> lossReductionOption(
    "loss-reduction", cl::init("mean"), cl::sub(maxBatchCommand),
    cl::sub(compileCommand), cl::sub(sweepCommand), cl::sub(planCommand),
    cl::desc("For a model that returns its own loss: mean or sum over the "
             "batch's samples, which decides how gradient accumulation "
             "scales it (default: mean, each micro-step's loss / k)"),
    cl::cat(getToolCategory()));
static cl::opt<int64_t> classesOption(
    "classes", cl::init(0), cl::sub(maxBatchCommand), cl::sub(compileCommand),
    cl::sub(sweepCommand), cl::sub(planCommand),
    cl::desc("Classes of the model's output (checked when given; default "
             "0: not checked)"),
    cl::cat(getToolCategory()));
cl::opt<bool> jsonOutput("json", cl::sub(maxBatchCommand),
                         cl::sub(sweepCommand), cl::sub(opsCommand),
                         cl::sub(planCommand),
                         cl::desc("Print JSON instead of a table"),
                         cl::cat(getToolCategory()));
cl::opt<std::string> outputFile("o", cl::init("-"), cl::sub(compileCommand),
                                cl::desc("Output MLIR file (default: - for "
                                         "stdout)"),
                                cl::cat(getToolCategory()));
cl::opt<std::string>
    weightsOption("weights", cl::sub(compileCommand), cl::sub(planCommand),
                  cl::desc("Weights directory (default: <output>.weights)"),
                  cl::cat(getToolCategory()));
// remat plan's own options.
cl::opt<int64_t> batchOption("batch", cl::sub(planCommand),
                             cl::desc("The batch of one optimizer step, "
                                      "split into micro-batches that divide "
                                      "it (required, at most 65536)"),
                             cl::cat(getToolCategory()));
static cl::opt<std::string> planPoliciesOption(
    "policies", cl::init("none,auto"), cl::sub(planCommand),
    cl::desc("Solvers tried at each micro-batch, and 'checkpoints' for "
             "--checkpoints (default: none,auto)"),
    cl::cat(getToolCategory()));
cl::opt<std::string> planOutputFile(
    "o", cl::sub(planCommand),
    cl::desc("Write the chosen step to FILE.mlir, with its weights (default: "
             "not written)"),
    cl::cat(getToolCategory()));

cl::opt<std::string> reportPath("report", cl::sub(compileCommand),
                                cl::desc("Write the report to FILE: JSON, "
                                         "or one HTML page when FILE ends "
                                         "in .html"),
                                cl::cat(getToolCategory()));
cl::opt<std::string> unplannedPath(
    "write-unplanned", cl::sub(compileCommand),
    cl::desc("Also write the step before rematerialization and planning to "
             "FILE.mlir, the reference of remat-run --reference (default: "
             "none)"),
    cl::cat(getToolCategory()));
cl::opt<std::string> timelinePath("timeline", cl::sub(compileCommand),
                                  cl::desc("Write the timeline to FILE.svg"),
                                  cl::cat(getToolCategory()));
cl::opt<std::string> svgPath("svg", cl::sub(sweepCommand),
                             cl::desc("Write the sweep's chart to FILE.svg"),
                             cl::cat(getToolCategory()));

int fail(const llvm::Twine &message) {
  llvm::errs() << "remat: error: " << message << "\n";
  return 1;
}

FailureOr<ModelSpec> getModelSpec(MLIRContext &context,
                                  const std::vector<std::string> &shapes,
                                  llvm::StringRef flag) {
  ModelSpec spec;
  spec.modelPath = modelFile;
  spec.shapeOption = flag.str();
  if (shapes.empty() && flag == "--input-shape") {
    // A torch.export program holds its input shapes.
    FailureOr<std::vector<RankedTensorType>> exported =
        getExportedInputTypes(modelFile, &context);
    if (failed(exported))
      return failure();
    spec.sampleTypes = *exported;
  }
  if (shapes.empty() && spec.sampleTypes.empty())
    return fail(flag + " is required: one per input of the model's forward" +
                (flag == "--input-shape"
                     ? " (a torch.export program has them)"
                     : "")),
           failure();
  for (const std::string &text : shapes) {
    FailureOr<RankedTensorType> type = parseTensorSpec(text, &context);
    if (failed(type))
      return fail(flag + " '" + text +
                  "' is not a shape and element type such as " +
                  (flag == "--sample-shape" ? "3x224x224xf32"
                                            : "31x3x224x224xf32")),
             failure();
    spec.sampleTypes.push_back(*type);
  }
  spec.autodiff.optimizer = optimizerOption;
  spec.autodiff.lr = lrOption;
  spec.autodiff.momentum = momentumOption;
  spec.autodiff.lossReduction = lossReductionOption;
  spec.classes = classesOption;
  // AdamW's weight decay is PyTorch's default (the driver takes none).
  if (optimizerOption == "adamw")
    spec.autodiff.weightDecay = 0.01;
  if (optimizerOption != "none" && optimizerOption != "sgd" &&
      optimizerOption != "adam" && optimizerOption != "adamw")
    return fail("--optimizer '" + optimizerOption +
                "' is not none, sgd, adam or adamw"),
           failure();
  if (lossReductionOption != "mean" && lossReductionOption != "sum")
    return fail("--loss-reduction '" + lossReductionOption +
                "' is not mean or sum"),
           failure();
  if (std::optional<std::string> invalid =
          findInvalidOptimizerValue(spec.autodiff))
    return fail("--" + *invalid), failure();
  return spec;
}

FailureOr<int64_t> splitBatch(ModelSpec &spec) {
  int64_t batch = -1;
  for (RankedTensorType &type : spec.sampleTypes) {
    if (type.getRank() == 0 || (batch >= 0 && type.getDimSize(0) != batch))
      return fail("every --input-shape needs the same leading (batch) "
                  "dimension"),
             failure();
    batch = type.getDimSize(0);
    type = RankedTensorType::get(type.getShape().drop_front(),
                                 type.getElementType());
  }
  return batch;
}

FailureOr<int64_t> getBudgetBytes() {
  const ByteSize &budget = rematOptions.budget;
  if (!budget.isSet())
    return fail("--budget is required (2.5GB, 512MiB, 123456)"), failure();
  if (budget.isPercent())
    return fail("--budget must be bytes here (2.5GB, 512MiB, 123456): a "
                "percentage of which step's peak?"),
           failure();
  return budget.getBytes();
}

/// The policies of a --policies list. `checkpoints` needs --checkpoints
/// (only a default list leaves it out quietly); `marks` is refused where
/// the steps carry no remat.policy marks (plan's).
static FailureOr<std::vector<Policy>>
parsePolicies(const llvm::cl::opt<std::string> &option, bool acceptMarks) {
  std::vector<Policy> policies;
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(option).split(names, ',', -1, false);
  for (llvm::StringRef name : names) {
    if (name == "checkpoints") {
      if (checkpointsOption.empty() && option.getNumOccurrences())
        return fail("--policies names 'checkpoints', which needs "
                    "--checkpoints=OP,... (`remat ops` lists the names)"),
               failure();
      if (checkpointsOption.empty())
        continue;
      std::vector<std::string> ops(checkpointsOption.begin(),
                                   checkpointsOption.end());
      policies.push_back({"checkpoints", SolverSpec(SolverKind::Marks), ops});
      continue;
    }
    if (name == "marks" && !acceptMarks)
      return fail("--policies names 'marks', which follows remat.policy "
                  "marks that plan's steps do not have: use 'checkpoints' "
                  "with --checkpoints=OP,..."),
             failure();
    std::string error;
    std::optional<SolverSpec> solver = SolverSpec::parse(name, error);
    if (!solver)
      return fail("--policies: " + error), failure();
    policies.push_back({name.str(), *solver, {}});
  }
  if (policies.empty())
    return fail("--policies names no policy"), failure();
  return policies;
}

FailureOr<std::vector<Policy>> getPolicies() {
  return parsePolicies(policiesOption, /*acceptMarks=*/true);
}

FailureOr<std::vector<Policy>> getPlanPolicies() {
  return parsePolicies(planPoliciesOption, /*acceptMarks=*/false);
}

FailureOr<const DeviceProfile *> getDevice(MLIRContext &context) {
  return lookupDeviceProfile(rematOptions.device,
                             FileLineColLoc::get(&context, "--device", 0, 0));
}

FailureOr<CostModel>
getCostModel(MLIRContext &context, const DeviceProfile &device,
             llvm::function_ref<FailureOr<ModuleOp>()> buildStep) {
  if (measuredProfileOption.empty())
    return CostModel(device);
  Location loc = FileLineColLoc::get(&context, "--measured-profile", 0, 0);
  FailureOr<MeasuredProfile> measured =
      readMeasuredProfile(measuredProfileOption, loc);
  if (failed(measured))
    return failure();
  FailureOr<ModuleOp> step = buildStep();
  if (failed(step) || failed(checkMeasuredProfileKeys(
                          *measured, *step, measuredProfileOption, loc)))
    return failure();
  return CostModel(device, std::move(*measured));
}

FailureOr<std::optional<double>> getMaxOverhead() {
  if (!maxOverheadOption.getNumOccurrences())
    return std::optional<double>();
  llvm::StringRef text = llvm::StringRef(maxOverheadOption).trim();
  double percent = 0.0;
  // A percentage: a bare number is taken as one too.
  text.consume_back("%");
  if (text.trim().getAsDouble(percent) || !std::isfinite(percent) ||
      percent < 0.0)
    return fail("--max-overhead '" + maxOverheadOption +
                "' is not a non-negative percentage such as 20%"),
           failure();
  return std::optional<double>(percent / 100.0);
}

} // namespace mlir::remat::driver
