//===- ReportHtml.cpp - the report as one self-contained HTML page --------===//
//
// One page that needs nothing but itself (inline CSS, SVG and script, no
// network): per function, the figures a reader looks for first (budget,
// peak before and after, arena, compute cost, solver, status and bound), the
// timeline, what was recomputed and how often, what is kept for the backward
// pass, and a table of every op that sorts by any column on a click.
//
//===----------------------------------------------------------------------===//

#include "Chart.h"

#include "remat/Remat/MemoryModel.h"

#include "remat/Report/StepReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::chart;

namespace {

const char *const kStyle = R"css(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1100px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; }
h3 { font-size: 15px; margin-top: 22px; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.summary th { background: #f4f6f8; font-weight: normal; width: 220px; }
table.ops th { background: #f4f6f8; cursor: pointer; user-select: none; }
table.ops th:after { content: " \2195"; color: #aaa; }
table.ops th.asc:after { content: " \2191"; color: #222; }
table.ops th.desc:after { content: " \2193"; color: #222; }
tr.recompute td { background: #fff1e5; }
.fits { color: #2a7a2a; font-weight: bold; }
.over { color: #c62828; font-weight: bold; }
figure { margin: 12px 0; } svg { max-width: 100%; height: auto; }
)css";

/// Sorts a table.ops by the clicked column: numbers by their data-v value,
/// text as text; a second click reverses.
const char *const kScript = R"js(
document.querySelectorAll('table.ops').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var ascending = !th.classList.contains('asc');
      table.querySelectorAll('th').forEach(function (other) {
        other.classList.remove('asc', 'desc');
      });
      th.classList.add(ascending ? 'asc' : 'desc');
      var numeric = th.classList.contains('num');
      rows.sort(function (a, b) {
        var x = a.cells[column], y = b.cells[column];
        var order = numeric
            ? Number(x.dataset.v) - Number(y.dataset.v)
            : x.textContent.localeCompare(y.textContent);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
)js";

/// Seconds in s, ms or us with three significant digits; graph costs as
/// numbers.
std::string formatCost(double cost, CostUnit unit) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (unit != CostUnit::Seconds) {
    os << llvm::format("%.6g", cost);
    return text;
  }
  double magnitude = std::fabs(cost);
  if (magnitude != 0 && magnitude < 1e-3)
    os << llvm::format("%.3g", cost * 1e6) << " &#181;s";
  else if (magnitude != 0 && magnitude < 1)
    os << llvm::format("%.3g", cost * 1e3) << " ms";
  else
    os << llvm::format("%.3g", cost) << " s";
  return text;
}

class PageWriter {
public:
  PageWriter(raw_ostream &os, const StepReport &report)
      : os(os), report(report),
        units(getUnitsOfTyped(report.budgetAsTyped)) {}

  void write() {
    os << "<section class=\"step\">\n<h2>@" << escape(report.function)
       << "</h2>\n";
    writeSummary();
    os << "<figure>\n";
    writeTimelineSvg(os, report);
    os << "</figure>\n";
    writeRecomputed();
    writeKept();
    writeOps();
    os << "</section>\n";
  }

private:
  /// Bytes in the budget's units, exact bytes on hover.
  std::string bytes(int64_t value) {
    std::string text;
    llvm::raw_string_ostream(text)
        << "<span title=\"" << value << " bytes\">"
        << formatBytes(value, units) << "</span>";
    return text;
  }

  void row(StringRef key, StringRef value) {
    os << "<tr><th>" << key << "</th><td>" << value << "</td></tr>\n";
  }

  void writeSummary() {
    os << "<table class=\"summary\">\n";
    // The report may run without rematerialization: a sum that leaves the
    // int64 range is shown as such, not wrapped.
    std::optional<int64_t> needs =
        addBytes(report.argumentBytes, report.arenaBytes);
    if (report.budgetBytes) {
      std::string budget = bytes(*report.budgetBytes);
      if (!report.budgetAsTyped.empty())
        budget = escape(report.budgetAsTyped) + " = " + budget;
      row("Budget", budget);
    } else {
      row("Budget", "none (no rematerialization ran)");
    }
    if (report.hasBefore())
      row("Peak before rematerialization", bytes(report.peakBytesBefore));
    std::string total = needs ? bytes(*needs) : std::string("beyond int64");
    // The budget limits arguments + arena under fit-arena, else the peak
    // alone: the verdict goes on the row of the figure it limits.
    bool limitsPeak = report.budgetBytes && !report.fitArena;
    std::optional<int64_t> limited =
        limitsPeak ? std::optional(report.peakBytesAfter) : needs;
    std::string verdict;
    if (report.budgetBytes)
      verdict = limited && *limited <= *report.budgetBytes
                    ? " <span class=\"fits\">within the budget</span>"
                    : " <span class=\"over\">over the budget</span>";
    std::string peakKey =
        report.hasBefore() ? "Peak after rematerialization" : "Peak";
    if (limitsPeak)
      peakKey += " (the budget limits it: fit-arena=false)";
    row(peakKey, bytes(report.peakBytesAfter) + " at " + escape(report.peakOp) +
                     (limitsPeak ? verdict : ""));
    row("Arguments", bytes(report.argumentBytes));
    row("Arena", bytes(report.arenaBytes));
    row("Arguments + arena", total + (limitsPeak ? "" : verdict));
    writeCostRows();
    row("Solver", escape(report.solver));
    row("Status", escape(report.status) +
                      (report.timedOut ? " (the time limit cut it short)" : ""));
    row("Lower bound on the cost",
        report.lowerBoundCost
            ? formatCost(*report.lowerBoundCost, report.costUnit)
            : std::string("none proven"));
    std::string seconds;
    llvm::raw_string_ostream(seconds)
        << llvm::format("%.3f s", report.solveSeconds);
    row("Solve time", seconds);
    os << "</table>\n";
  }

  void writeCostRows() {
    std::string after = formatCost(report.computeCostAfter, report.costUnit);
    if (!report.hasBefore()) {
      row("Compute cost", after);
      return;
    }
    row("Compute cost before", formatCost(report.computeCostBefore,
                                          report.costUnit));
    if (report.computeCostBefore > 0) {
      llvm::raw_string_ostream(after) << llvm::format(
          " (%+.2f%%)",
          100.0 * (report.computeCostAfter / report.computeCostBefore - 1.0));
    }
    row("Compute cost after", after);
  }

  void writeRecomputed() {
    os << "<h3>Recomputed</h3>\n";
    if (report.recomputed.empty()) {
      os << "<p>Nothing was recomputed.</p>\n";
      return;
    }
    size_t ops = 0;
    for (int64_t count : report.recomputeCounts)
      ops += count;
    os << "<p>" << report.recomputed.size() << " values, by " << ops
       << " recomputing ops (a value recomputed for several separate uses "
          "counts once per recomputation).</p>\n";
    os << "<table class=\"ops\"><thead><tr><th>value</th>"
          "<th class=\"num\">times recomputed</th></tr></thead><tbody>\n";
    for (auto [name, count] :
         llvm::zip(report.recomputed, report.recomputeCounts))
      os << "<tr><td>" << escape(name) << "</td><td class=\"num\" data-v=\""
         << count << "\">" << count << "</td></tr>\n";
    os << "</tbody></table>\n";
  }

  void writeKept() {
    os << "<h3>Kept for the backward pass</h3>\n";
    if (report.kept.empty()) {
      os << "<p>Nothing.</p>\n";
      return;
    }
    os << "<details><summary>" << report.kept.size()
       << " values</summary><p>";
    llvm::interleave(
        report.kept, os, [&](const std::string &name) { os << escape(name); },
        ", ");
    os << "</p></details>\n";
  }

  void numberCell(double sortValue, StringRef text) {
    os << "<td class=\"num\" data-v=\"" << llvm::format("%.17g", sortValue)
       << "\">" << text << "</td>";
  }

  void writeOps() {
    os << "<h3>Ops</h3>\n<p>In the order of the schedule; click a column to "
          "sort.</p>\n";
    os << "<table class=\"ops\"><thead><tr><th class=\"num\">#</th>"
          "<th>name</th><th>kind</th><th>phase</th><th class=\"num\">FLOPs"
          "</th><th class=\"num\">cost</th><th class=\"num\">result bytes"
          "</th><th class=\"num\">workspace</th><th class=\"num\">live after"
          "</th><th>recomputes</th></tr></thead><tbody>\n";
    for (auto [step, op] : llvm::enumerate(report.ops)) {
      os << (op.recomputeOf.empty() ? "<tr>" : "<tr class=\"recompute\">");
      numberCell(step, std::to_string(step));
      os << "<td>" << escape(op.name) << "</td><td>" << escape(op.kind)
         << "</td><td>" << escape(op.phase) << "</td>";
      numberCell(op.flops, std::to_string(op.flops));
      numberCell(op.cost, formatCost(op.cost, report.costUnit));
      int64_t resultBytes = 0;
      for (int64_t bytes : op.resultBytes)
        resultBytes += bytes;
      numberCell(resultBytes, formatBytes(resultBytes, units));
      numberCell(op.workspaceBytes, formatBytes(op.workspaceBytes, units));
      int64_t live = step < report.liveBytesAfter.size()
                         ? report.liveBytesAfter[step]
                         : 0;
      numberCell(live, formatBytes(live, units));
      os << "<td>" << escape(op.recomputeOf) << "</td></tr>\n";
    }
    os << "</tbody></table>\n";
  }

  raw_ostream &os;
  const StepReport &report;
  ByteUnits units;
};

} // namespace

void mlir::remat::writeReportHtml(raw_ostream &os,
                                  ArrayRef<StepReport> reports) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n<title>remat report";
  if (reports.size() == 1)
    os << ": @" << escape(reports.front().function);
  os << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  os << "<h1>remat report</h1>\n";
  for (const StepReport &report : reports)
    PageWriter(os, report).write();
  os << "<script>" << kScript << "</script>\n</body>\n</html>\n";
}
