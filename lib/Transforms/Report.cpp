//===- Report.cpp - the remat-report pass ---------------------------------===//
//
// Builds the report of every function of the module, then writes the JSON
// and the timeline. Nothing is written unless every report could be built,
// and each file is written whole (through a temporary) or not at all.
//
//===----------------------------------------------------------------------===//

#include "remat/Report/StepReport.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::remat;

namespace mlir::remat {
#define GEN_PASS_DEF_REMATREPORTPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace mlir::remat

namespace {

/// Writes `path` whole through `write`, or emits an error at `loc`.
LogicalResult writeFile(StringRef path, Location loc,
                        function_ref<void(raw_ostream &)> write) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << "cannot write '" << path << "': " << error;
  write(file->os());
  file->os().flush();
  if (file->os().has_error())
    return emitError(loc) << "cannot write '" << path
                          << "': " << file->os().error().message();
  file->keep();
  return success();
}

struct RematReportPass
    : public remat::impl::RematReportPassBase<RematReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CostModel> costModel = makeCostModel(module.getLoc());
    if (failed(costModel))
      return signalPassFailure();
    std::vector<StepReport> reports;
    for (FunctionOpInterface function : getFunctionsWithBodies(module)) {
      FailureOr<StepReport> report = buildStepReport(function, *costModel);
      if (failed(report))
        return signalPassFailure();
      reports.push_back(std::move(*report));
      dropSolveTime(function);
    }
    if (reports.empty()) {
      emitError(module.getLoc(), "remat-report found no function with a body");
      return signalPassFailure();
    }
    if (!timeline.empty() && reports.size() != 1) {
      emitError(module.getLoc(),
                "remat-report draws one timeline; the module has ")
          << reports.size() << " functions";
      return signalPassFailure();
    }
    if (!path.empty() &&
        failed(writeFile(path, module.getLoc(), [&](raw_ostream &os) {
          writeReportJson(os, reports);
        })))
      return signalPassFailure();
    if (timeline.empty())
      return;
    if (failed(writeFile(timeline, module.getLoc(), [&](raw_ostream &os) {
          writeTimelineSvg(os, reports.front());
        })))
      return signalPassFailure();
  }

  /// The solve time was recorded for this report only: dropping it keeps
  /// the IR the pipeline prints the same from run to run.
  static void dropSolveTime(FunctionOpInterface function) {
    auto solve = function->getAttrOfType<DictionaryAttr>("remat.solve");
    if (!solve || !solve.get("solve_seconds"))
      return;
    NamedAttrList entries(solve);
    entries.erase("solve_seconds");
    function->setAttr("remat.solve",
                      entries.getDictionary(function.getContext()));
  }

  FailureOr<CostModel> makeCostModel(Location loc) {
    FailureOr<const DeviceProfile *> profile = lookupDeviceProfile(device, loc);
    if (failed(profile))
      return failure();
    if (measuredProfile.empty())
      return CostModel(**profile);
    FailureOr<MeasuredProfile> measured =
        readMeasuredProfile(measuredProfile, loc);
    if (failed(measured))
      return failure();
    return CostModel(**profile, std::move(*measured));
  }
};

} // namespace
