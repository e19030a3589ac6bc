//===- SweepSvg.cpp - extra time against budget as SVG --------------------===//
//
// The chart of `remat sweep`: one point per budget at its extra time, in the
// colour of the solver whose schedule won there (the legend names each),
// joined where consecutive budgets fit. A budget that cannot be met has no
// extra time: it is drawn as an open red mark in a "cannot be met" strip
// above the plot, never on the axis, where it would read as 0% extra. Both
// axes have round ticks; the title says what is drawn.
//
//===----------------------------------------------------------------------===//

#include "Chart.h"

#include "remat/Report/StepReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::chart;

namespace {

constexpr double kWidth = 720, kHeight = 440;
constexpr double kLeft = 80, kRight = 30, kTop = 96, kBottom = 56;
constexpr double kPlotRight = kWidth - kRight;
constexpr double kPlotBottom = kHeight - kBottom;
/// The strip above the plot where unmet budgets are marked.
constexpr double kUnmetY = kTop - 22;

const char *const kSolverColors[] = {"#1f77b4", "#2ca02c", "#9467bd",
                                     "#8c564b", "#e377c2", "#17becf",
                                     "#bcbd22", "#7f7f7f"};

struct Axes {
  double low, high;    // bytes
  double maxExtra;     // fraction
  double x(double bytes) const {
    return kLeft + (kPlotRight - kLeft) * (bytes - low) /
                       std::max(1.0, high - low);
  }
  double y(double extra) const {
    return kPlotBottom - (kPlotBottom - kTop) * extra / maxExtra;
  }
};

void writeXAxis(raw_ostream &os, const Axes &axes, const ByteAxis &ticks) {
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#333\"/>\n",
                     kLeft, kPlotBottom, kPlotRight, kPlotBottom);
  for (double bytes : ticks.ticks) {
    double x = axes.x(bytes);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#333\"/>\n",
                       x, kPlotBottom, x, kPlotBottom + 4);
    os << llvm::format("<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"middle\" font-size=\"11\">%s</text>\n",
                       x, kPlotBottom + 17, ticks.label(bytes).c_str());
  }
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                     "font-size=\"12\">budget (arguments + arena)</text>\n",
                     (kLeft + kPlotRight) / 2, kPlotBottom + 38);
}

void writeYAxis(raw_ostream &os, const Axes &axes,
                const std::vector<double> &ticks) {
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#333\"/>\n",
                     kLeft, kTop, kLeft, kPlotBottom);
  for (double extra : ticks) {
    double y = axes.y(extra);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#ccc\" stroke-width=\"0.5\"/>\n",
                       kLeft, y, kPlotRight, y);
    os << llvm::format("<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\" font-size=\"11\">+%s%%</text>\n",
                       kLeft - 6, y + 4,
                       formatNumber(100.0 * std::max(0.0, extra), 2).c_str());
  }
  double middle = (kTop + kPlotBottom) / 2;
  os << llvm::format("<text x=\"18\" y=\"%.1f\" transform=\"rotate(-90 18 "
                     "%.1f)\" text-anchor=\"middle\" font-size=\"12\">extra "
                     "time (estimated)</text>\n",
                     middle, middle);
}

/// The legend under the title: a swatch per solver that won somewhere,
/// and the unmet mark when there is one.
void writeLegend(raw_ostream &os, ArrayRef<std::string> solvers,
                 bool anyUnmet) {
  double x = kLeft, y = 48;
  auto text = [&](StringRef label) {
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
                       x + 12, y)
       << escape(label) << "</text></g>\n";
    x += 12 + 0.6 * 11 * label.size() + 16;
  };
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">"
                     "winning solver:</text>\n",
                     x, y);
  x += 0.6 * 11 * 16;
  for (auto [index, solver] : llvm::enumerate(solvers)) {
    os << llvm::format("<g class=\"legend\"><circle cx=\"%.1f\" cy=\"%.1f\" "
                       "r=\"4\" fill=\"%s\"/>",
                       x + 4, y - 4, kSolverColors[index % 8]);
    text(solver);
  }
  if (anyUnmet) {
    os << llvm::format("<g class=\"legend\"><circle cx=\"%.1f\" cy=\"%.1f\" "
                       "r=\"4\" fill=\"white\" stroke=\"#d62728\" "
                       "stroke-width=\"1.5\"/>",
                       x + 4, y - 4);
    text("budget cannot be met");
  }
}

} // namespace

namespace {
/// What the points hold: the budget range, the largest extra time, the
/// winning solvers in order of first appearance, and whether any budget is
/// unmet.
struct SweepSummary {
  double low = 0, high = 1, maxExtra = 0.0;
  std::vector<std::string> solvers;
  bool anyUnmet = false;
};

SweepSummary summarize(ArrayRef<SweepChartPoint> points) {
  SweepSummary summary;
  if (!points.empty()) {
    auto [min, max] = std::minmax_element(
        points.begin(), points.end(), [](const auto &a, const auto &b) {
          return a.budgetBytes < b.budgetBytes;
        });
    summary.low = min->budgetBytes;
    summary.high = max->budgetBytes;
  }
  for (const SweepChartPoint &point : points) {
    if (!point.fits) {
      summary.anyUnmet = true;
      continue;
    }
    summary.maxExtra = std::max(summary.maxExtra, point.extraTime);
    if (!llvm::is_contained(summary.solvers, point.solver))
      summary.solvers.push_back(point.solver);
  }
  return summary;
}

void writeHeader(raw_ostream &os, StringRef title) {
  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                     "font-family=\"sans-serif\">\n",
                     kWidth, kHeight, kWidth, kHeight);
  os << "<title>" << escape(title) << "</title>\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::format("<text class=\"title\" x=\"%.1f\" y=\"22\" "
                     "font-size=\"15\">",
                     kLeft)
     << escape(title) << "</text>\n";
}

/// The band below the plot where unmet budgets sit.
void writeUnmetBand(raw_ostream &os) {
  os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"20\" fill=\"#fdecea\"/>\n",
                     kLeft, kUnmetY - 10, kPlotRight - kLeft);
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                     "font-size=\"11\" fill=\"#d62728\">unmet"
                     "</text>\n",
                     kLeft - 6, kUnmetY + 4);
}

/// Joins consecutive budgets that fit (`sorted` is in budget order).
void writeCurve(raw_ostream &os, const Axes &axes,
                ArrayRef<SweepChartPoint> sorted) {
  std::string path;
  auto flush = [&] {
    if (path.find(' ') != std::string::npos)
      os << "<polyline fill=\"none\" stroke=\"#555\" points=\"" << path
         << "\"/>\n";
    path.clear();
  };
  for (const SweepChartPoint &point : sorted) {
    if (!point.fits) {
      flush();
      continue;
    }
    llvm::raw_string_ostream(path)
        << llvm::format("%s%.1f,%.1f", path.empty() ? "" : " ",
                        axes.x(point.budgetBytes), axes.y(point.extraTime));
  }
  flush();
}

void writePoint(raw_ostream &os, const Axes &axes,
                ArrayRef<std::string> solvers, const SweepChartPoint &point) {
  std::string budget = formatBytes(point.budgetBytes, ByteUnits::Binary);
  double x = axes.x(point.budgetBytes);
  if (!point.fits) {
    os << llvm::format("<circle class=\"unmet\" cx=\"%.1f\" cy=\"%.1f\" "
                       "r=\"5\" fill=\"white\" stroke=\"#d62728\" "
                       "stroke-width=\"1.5\">",
                       x, kUnmetY)
       << "<title>budget " << budget << " (" << point.budgetBytes
       << " bytes): cannot be met</title></circle>\n";
    return;
  }
  size_t index = llvm::find(solvers, point.solver) - solvers.begin();
  os << llvm::format("<circle class=\"fits\" cx=\"%.1f\" cy=\"%.1f\" "
                     "r=\"5\" fill=\"%s\">",
                     x, axes.y(point.extraTime), kSolverColors[index % 8])
     << "<title>budget " << budget << " (" << point.budgetBytes << " bytes): +"
     << formatNumber(100.0 * point.extraTime, 2) << "% time, solver "
     << escape(point.solver) << "</title></circle>\n";
}
} // namespace

void mlir::remat::writeSweepSvg(raw_ostream &os, StringRef title,
                                ArrayRef<SweepChartPoint> points) {
  SweepSummary summary = summarize(points);
  ByteAxis xTicks =
      getByteAxis(summary.low, summary.high, 6, ByteUnits::Binary);
  // Extra time in percent on round ticks; at least up to +1%.
  std::vector<double> yTicks =
      getRoundTicks(std::max(summary.maxExtra, 0.01), 5, 0.01);
  Axes axes{xTicks.ticks.front(), xTicks.ticks.back(), yTicks.back()};

  writeHeader(os, title);
  writeLegend(os, summary.solvers, summary.anyUnmet);
  if (summary.anyUnmet)
    writeUnmetBand(os);
  writeYAxis(os, axes, yTicks);
  writeXAxis(os, axes, xTicks);
  // A tiny negative extra time (noise in a measured profile) is no saving:
  // clamp it at 0 so that neither the curve nor a tooltip shows "+-0%".
  std::vector<SweepChartPoint> sorted(points.begin(), points.end());
  for (SweepChartPoint &point : sorted)
    point.extraTime = std::max(0.0, point.extraTime);
  std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
    return a.budgetBytes < b.budgetBytes;
  });
  writeCurve(os, axes, sorted);
  for (const SweepChartPoint &point : sorted)
    writePoint(os, axes, summary.solvers, point);
  os << "</svg>\n";
}
