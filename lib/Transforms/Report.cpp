//===- Report.cpp - the remat-report pass ---------------------------------===//
//
// Builds the report of every function of the module, then writes the
// report (JSON or an HTML page) and the timeline. Nothing is written unless every report could be built;
// both files are written to temporaries first and renamed into place
// together when the pass finishes (Support/OutputFile.h).
//
//===----------------------------------------------------------------------===//

#include "remat/Report/StepReport.h"
#include "remat/Support/OutputFile.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::remat;

namespace mlir::remat {
#define GEN_PASS_DEF_REMATREPORTPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace mlir::remat

namespace {

/// Adds `path` to `outputs` and writes it through `write`, or emits an
/// error at `loc`.
LogicalResult writeFile(OutputGroup &outputs, StringRef path, Location loc,
                        function_ref<void(raw_ostream &)> write) {
  std::string error;
  FailureOr<OutputFile *> file = outputs.addFile(path, error);
  if (failed(file))
    return emitError(loc) << error;
  write((*file)->os());
  return success();
}

struct RematReportPass
    : public remat::impl::RematReportPassBase<RematReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CostModel> costModel = makeCostModel(module);
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
    ReportFormat reportFormat = getReportFormatForPath(path);
    if (!format.empty()) {
      std::optional<ReportFormat> parsed = parseReportFormat(format);
      if (!parsed) {
        emitError(module.getLoc(), "remat-report: unknown format '")
            << format << "' (expected json or html)";
        return signalPassFailure();
      }
      reportFormat = *parsed;
    }
    OutputGroup outputs;
    if (!path.empty() &&
        failed(writeFile(outputs, path, module.getLoc(), [&](raw_ostream &os) {
          if (reportFormat == ReportFormat::Html)
            writeReportHtml(os, reports);
          else
            writeReportJson(os, reports);
        })))
      return signalPassFailure();
    if (!timeline.empty() &&
        failed(writeFile(outputs, timeline, module.getLoc(),
                         [&](raw_ostream &os) {
                           writeTimelineSvg(os, reports.front());
                         })))
      return signalPassFailure();
    std::string error;
    if (failed(outputs.commit(error))) {
      emitError(module.getLoc()) << error;
      return signalPassFailure();
    }
    // The IR is as it was but for the solve time, an optional field of a
    // record the dialect verified: no need to verify the module again.
    markAllAnalysesPreserved();
  }

  /// The solve time was recorded for this report only: dropping it keeps
  /// the IR the pipeline prints the same from run to run.
  static void dropSolveTime(FunctionOpInterface function) {
    auto solve = function->getAttrOfType<SolveRecordAttr>(attr::kSolve);
    if (solve && solve.getSolveSeconds())
      function->setAttr(attr::kSolve, solve.withoutSolveTime());
  }

  FailureOr<CostModel> makeCostModel(ModuleOp module) {
    Location loc = module.getLoc();
    FailureOr<const DeviceProfile *> profile = lookupDeviceProfile(device, loc);
    if (failed(profile))
      return failure();
    if (measuredProfile.empty())
      return CostModel(**profile);
    FailureOr<MeasuredProfile> measured =
        readMeasuredProfile(measuredProfile, loc);
    if (failed(measured) || failed(checkMeasuredProfileKeys(
                                *measured, module, measuredProfile, loc)))
      return failure();
    return CostModel(**profile, std::move(*measured));
  }
};

} // namespace
