//===- StepReport.h - the memory and cost report of a step ------*- C++ -*-===//
//
// What remat tells a user about one training step: its memory (arguments,
// arena, the peak and what it is made of), its compute cost, what the solver
// did, and every op; as JSON (docs/report.md lists the keys) and as an SVG
// timeline of live bytes over the schedule.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REPORT_STEPREPORT_H
#define REMAT_REPORT_STEPREPORT_H

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/PeakMemory.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

/// One op of the schedule as the report shows it.
struct OpRecord {
  std::string name;
  std::string kind;
  std::string phase;
  int64_t flops = 0;
  /// In the report's cost unit.
  double cost = 0.0;
  int64_t workspaceBytes = 0;
  std::vector<int64_t> resultBytes;
  std::vector<int64_t> resultOffsets;
  /// The value this op recomputes (`remat.recompute_of`), if any.
  std::string recomputeOf;
};

struct StepReport {
  std::string function;
  std::optional<int64_t> budgetBytes;
  /// The budget as the user typed it (`1.5GB`, `80%`), when recorded.
  std::string budgetAsTyped;
  int64_t argumentBytes = 0;
  /// The arguments whose buffers receive their new value (weights,
  /// optimizer state, running statistics, the step counter), by name, and
  /// their bytes: part of argumentBytes, no arena bytes for the new values.
  std::vector<std::string> updatedInPlace;
  int64_t updatedInPlaceBytes = 0;
  int64_t arenaBytes = 0;
  int64_t peakBytesBefore = 0;
  int64_t peakBytesAfter = 0;
  MemoryBreakdown peakBreakdown;
  /// The op at the peak (after), for the timeline.
  std::string peakOp;
  CostUnit costUnit = CostUnit::Seconds;
  double computeCostBefore = 0.0;
  double computeCostAfter = 0.0;
  std::string solver = "none";
  std::string status = "none";
  std::optional<double> lowerBoundCost;
  double solveSeconds = 0.0;
  /// The time limit cut the solve short (the result may vary between runs).
  bool timedOut = false;
  /// The budget limits arguments + arena (fit-arena), else the peak alone.
  bool fitArena = true;
  std::vector<std::string> kept;
  /// The values that recomputing ops reproduce, each once, in the order of
  /// their first recomputation, with how many ops recompute each (a value
  /// can be recomputed for several separate uses).
  std::vector<std::string> recomputed;
  std::vector<int64_t> recomputeCounts;
  std::vector<OpRecord> ops;
  /// Live bytes at each step before and after rematerialization.
  std::vector<int64_t> liveBytesBefore;
  std::vector<int64_t> liveBytesAfter;
  /// For each op of `ops`, its step in the schedule before
  /// rematerialization (an index into liveBytesBefore), or -1 for a
  /// recomputing op; empty when the two schedules cannot be matched.
  std::vector<int64_t> stepBefore;

  /// Whether rematerialization ran (the step has a schedule before it).
  bool hasBefore() const { return solver != "none" || status != "none"; }
};

/// The formats of the report file.
enum class ReportFormat { Json, Html };

/// `json` or `html`; std::nullopt for anything else.
std::optional<ReportFormat> parseReportFormat(StringRef text);

/// `json` or `html`.
StringRef stringifyReportFormat(ReportFormat format);

/// The format a report file's extension asks for: `.html` or `.htm` is HTML,
/// anything else JSON.
ReportFormat getReportFormatForPath(StringRef path);

/// Builds the report of `function` as it stands. The figures before
/// rematerialization, the budget, the solver and its status come from the
/// function's `remat.solve`; without it the report says no rematerialization
/// ran (before = after, solver and status "none"). Uses the function's
/// memory plan when it has one, else plans it without changing the IR. Emits an
/// error and fails when the function cannot be analyzed or mixes graph costs
/// with estimated ones.
FailureOr<StepReport> buildStepReport(FunctionOpInterface function,
                                      const CostModel &costModel);

/// Writes one report as a JSON object, several as an array.
void writeReportJson(raw_ostream &os, ArrayRef<StepReport> reports);

/// Writes the reports as one self-contained HTML page (no network): per
/// function its figures, the timeline, what was recomputed, the solver's
/// bound and a sortable table of the ops.
void writeReportHtml(raw_ostream &os, ArrayRef<StepReport> reports);

/// Writes the timeline of one report: live bytes over the schedule before
/// and after rematerialization, op for op (recomputing ops inserted as
/// shaded columns), the budget as a line, the peak marked.
void writeTimelineSvg(raw_ostream &os, const StepReport &report);

/// One budget of a sweep, for its chart.
struct SweepChartPoint {
  int64_t budgetBytes = 0;
  bool fits = false;
  /// Extra time over the step without recomputation, as a fraction.
  double extraTime = 0.0;
  /// The solver whose schedule won at this budget.
  std::string solver;
};

/// Writes the sweep's chart: extra time against budget, one point per
/// budget labelled with its solver, budgets that cannot be met marked as
/// such above the plot.
void writeSweepSvg(raw_ostream &os, StringRef title,
                   ArrayRef<SweepChartPoint> points);

} // namespace mlir::remat

#endif // REMAT_REPORT_STEPREPORT_H
