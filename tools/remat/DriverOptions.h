//===- DriverOptions.h - the remat driver's command line -------*- C++ -*-===//

#ifndef REMAT_TOOLS_REMAT_DRIVEROPTIONS_H
#define REMAT_TOOLS_REMAT_DRIVEROPTIONS_H

#include "remat/Analysis/CostModel.h"
#include "remat/Driver/BatchSearch.h"
#include "remat/Transforms/RematOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::remat::driver {

/// The driver's own options: --help lists these, not LLVM's.
llvm::cl::OptionCategory &getToolCategory();

extern llvm::cl::SubCommand maxBatchCommand;
extern llvm::cl::SubCommand compileCommand;
extern llvm::cl::SubCommand sweepCommand;
extern llvm::cl::SubCommand opsCommand;
extern llvm::cl::SubCommand planCommand;

extern llvm::cl::opt<std::string> modelFile;
extern llvm::cl::list<std::string> sampleShapes;
extern llvm::cl::list<std::string> inputShapes;
/// The rematerialization options of the command line (--budget, --solver,
/// --device, --work-limit, --time-limit, --fit-arena, ...).
extern RematOptions rematOptions;
extern llvm::cl::opt<int64_t> maxBatchOption;
extern llvm::cl::opt<int> pointsOption;
extern llvm::cl::opt<bool> jsonOutput;
extern llvm::cl::opt<std::string> outputFile;
extern llvm::cl::opt<std::string> weightsOption;
extern llvm::cl::opt<std::string> reportPath;
extern llvm::cl::opt<std::string> timelinePath;
extern llvm::cl::opt<std::string> unplannedPath;
extern llvm::cl::list<std::string> checkpointsOption;
extern llvm::cl::opt<std::string> svgPath;
extern llvm::cl::opt<int64_t> batchOption;
extern llvm::cl::opt<std::string> planOutputFile;
extern llvm::cl::opt<std::string> measuredProfileOption;

/// Prints "remat: error: MESSAGE" and returns 1.
int fail(const llvm::Twine &message);

/// The model and its shapes (from `shapes`, named `flag` in errors) and the
/// autodiff options of the command line.
FailureOr<ModelSpec> getModelSpec(MLIRContext &context,
                                  const std::vector<std::string> &shapes,
                                  llvm::StringRef flag);

/// Turns full input types into sample types; returns the batch, the leading
/// dimension every input shares.
FailureOr<int64_t> splitBatch(ModelSpec &spec);

/// --budget in bytes: required, and not a percentage.
FailureOr<int64_t> getBudgetBytes();

/// The policies of --policies and --checkpoints (as given: names or
/// module paths).
FailureOr<std::vector<Policy>> getPolicies();

/// The solvers of plan's --policies.
FailureOr<std::vector<Policy>> getPlanPolicies();

FailureOr<const DeviceProfile *> getDevice(MLIRContext &context);

/// The cost model of `device`, with --measured-profile's times and
/// saturation when given; then its keys are checked against the step
/// `buildStep` returns, a step of the model without accumulation (whose
/// names the `micro<i>.` copies of an accumulated step repeat;
/// CostModel.h). Emits an error and fails for an unreadable profile or a
/// key that names no op of that step.
FailureOr<CostModel>
getCostModel(MLIRContext &context, const DeviceProfile &device,
             llvm::function_ref<FailureOr<ModuleOp>()> buildStep);

/// max-batch's --max-overhead as a fraction (20% -> 0.2); none when not
/// given.
FailureOr<std::optional<double>> getMaxOverhead();

} // namespace mlir::remat::driver

#endif // REMAT_TOOLS_REMAT_DRIVEROPTIONS_H
