//===- TimelineSvg.cpp - live bytes over the schedule as SVG --------------===//
//
// A self-contained SVG chart readable in any browser: live bytes at each op
// of the schedule after rematerialization as a step line, and before it
// (dashed) at the same ops, so that each x is one op; recomputing ops, which
// the schedule before does not have, are shaded columns. Phases are
// background bands, the budget a red line, the peak a labelled dot. Bytes
// are in the units the budget was typed in, on round ticks; labels are
// placed so that none overlaps another; the legend lists only what is drawn.
//
//===----------------------------------------------------------------------===//

#include "Chart.h"

#include "remat/Report/StepReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::chart;

namespace {

constexpr double kWidth = 960, kHeight = 480;
constexpr double kLeft = 80, kRight = 30, kTop = 86, kBottom = 50;
/// The baselines of the title, the figures under it and the legend.
constexpr double kTitleY = 22, kFiguresY = 42, kLegendY = 64;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;
constexpr double kPlotBottom = kTop + kPlotHeight;

const char *const kBeforeStyle =
    "stroke=\"#888\" stroke-width=\"2\" stroke-dasharray=\"5 3\"";
const char *const kAfterStyle = "stroke=\"#1f77b4\" stroke-width=\"2\"";
const char *const kRecomputeFill = "#9467bd";

/// Maps steps and bytes to the plot area.
struct Scale {
  size_t steps;
  double maxBytes;
  double x(double step) const {
    return kLeft + kPlotWidth * step / std::max<double>(steps, 1);
  }
  double y(double bytes) const {
    return kTop + kPlotHeight * (1.0 - bytes / maxBytes);
  }
};

/// What the chart draws, worked out once.
struct Timeline {
  const StepReport &report;
  ByteUnits units;
  /// Live bytes before rematerialization at each op of the schedule after
  /// (held across recomputing ops); empty when there is no before to show,
  /// or when it is the same as after (`unchanged`).
  std::vector<int64_t> beforeAtOp;
  bool unchanged = false;
  bool anyRecomputed = false;
  Scale scale{};
  ByteAxis byteAxis;

  std::string bytes(double value) const { return formatBytes(value, units); }
};

std::vector<int64_t> getBeforeAtOp(const StepReport &report) {
  if (!report.hasBefore() || report.stepBefore.size() != report.ops.size())
    return {};
  std::vector<int64_t> before;
  int64_t held = 0;
  for (int64_t step : report.stepBefore) {
    if (step >= 0)
      held = report.liveBytesBefore[step];
    before.push_back(held);
  }
  return before;
}

Timeline makeTimeline(const StepReport &report) {
  Timeline t{report, getUnitsOfTyped(report.budgetAsTyped)};
  t.beforeAtOp = getBeforeAtOp(report);
  // A line hidden under the other would be a legend entry for nothing.
  if (!t.beforeAtOp.empty() && t.beforeAtOp == report.liveBytesAfter) {
    t.beforeAtOp.clear();
    t.unchanged = true;
  }
  t.anyRecomputed = llvm::any_of(
      report.ops, [](const OpRecord &op) { return !op.recomputeOf.empty(); });
  int64_t maxLive = 1;
  for (int64_t bytes : t.beforeAtOp)
    maxLive = std::max(maxLive, bytes);
  for (int64_t bytes : report.liveBytesAfter)
    maxLive = std::max(maxLive, bytes);
  if (report.budgetBytes)
    maxLive = std::max(maxLive, *report.budgetBytes);
  // Room above the highest line for the labels, then up to a round tick.
  t.byteAxis = getByteAxis(0.0, maxLive * 1.1, 8, t.units);
  t.scale = Scale{report.ops.size(), t.byteAxis.ticks.back()};
  return t;
}

/// A step line: each op's bytes held across its column.
void writeStepLine(raw_ostream &os, const std::vector<int64_t> &live,
                   const Scale &scale, StringRef style) {
  if (live.empty())
    return;
  os << "<polyline fill=\"none\" " << style << " points=\"";
  for (size_t step = 0; step < live.size(); ++step) {
    double y = scale.y(live[step]);
    os << llvm::format("%.1f,%.1f %.1f,%.1f ", scale.x(step), y,
                       scale.x(step + 1), y);
  }
  os << "\"/>\n";
}

const char *getPhaseColor(StringRef phase) {
  if (phase == "forward")
    return "#e8f1fb";
  if (phase == "backward")
    return "#fbefe6";
  if (phase == "update")
    return "#eef7ea";
  return nullptr;
}

void writePhaseBands(raw_ostream &os, const Timeline &t) {
  const std::vector<OpRecord> &ops = t.report.ops;
  size_t start = 0;
  for (size_t step = 1; step <= ops.size(); ++step) {
    if (step < ops.size() && ops[step].phase == ops[start].phase)
      continue;
    if (const char *fill = getPhaseColor(ops[start].phase))
      os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                         "height=\"%.1f\" fill=\"%s\"/>\n",
                         t.scale.x(start), kTop,
                         t.scale.x(step) - t.scale.x(start), kPlotHeight,
                         fill);
    start = step;
  }
}

/// Recomputing ops as shaded columns over the plot and ticks under it, at
/// least one pixel wide.
void writeRecomputedColumns(raw_ostream &os, const Timeline &t) {
  for (size_t step = 0; step < t.report.ops.size(); ++step) {
    if (t.report.ops[step].recomputeOf.empty())
      continue;
    double x = t.scale.x(step);
    double width = std::max(1.0, t.scale.x(step + 1) - x);
    os << llvm::format("<rect class=\"recomputed\" x=\"%.1f\" y=\"%.1f\" "
                       "width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                       "fill-opacity=\"0.3\"/>\n",
                       x, kTop, width, kPlotHeight + 6, kRecomputeFill);
  }
}

void writeAxes(raw_ostream &os, const Timeline &t) {
  for (double bytes : t.byteAxis.ticks) {
    double y = t.scale.y(bytes);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#ccc\" stroke-width=\"0.5\"/>\n",
                       kLeft, y, kLeft + kPlotWidth, y);
    os << llvm::format("<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\" font-size=\"11\">%s</text>\n",
                       kLeft - 6, y + 4, t.byteAxis.label(bytes).c_str());
  }
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#333\"/>\n",
                     kLeft, kPlotBottom, kLeft + kPlotWidth, kPlotBottom);
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#333\"/>\n",
                     kLeft, kTop, kLeft, kPlotBottom);
  size_t steps = t.report.ops.size();
  for (double step : getRoundTicks(std::max<size_t>(steps, 1) - 1, 10)) {
    if (step >= steps)
      break;
    double x = t.scale.x(step + 0.5);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#333\"/>\n",
                       x, kPlotBottom, x, kPlotBottom + 4);
    os << llvm::format("<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"middle\" font-size=\"11\">%.0f</text>\n",
                       x, kPlotBottom + 17, step);
  }
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                     "font-size=\"12\">op, in the order of the schedule%s"
                     "</text>\n",
                     kLeft + kPlotWidth / 2, kPlotBottom + 36,
                     t.beforeAtOp.empty() ? "" : " after rematerialization");
}

/// The title, and under it the figures a reader looks for first.
void writeTitle(raw_ostream &os, const Timeline &t, LabelPlacer &labels) {
  const StepReport &report = t.report;
  std::string title = "Live bytes of @" + report.function;
  if (!t.beforeAtOp.empty())
    title += " before and after rematerialization";
  os << llvm::format("<text class=\"title\" x=\"%.1f\" y=\"%.1f\" "
                     "font-size=\"15\">",
                     kLeft, kTitleY)
     << escape(title) << "</text>\n";
  std::string text;
  llvm::raw_string_ostream figures(text);
  figures << "peak " << t.bytes(report.peakBytesAfter);
  if (!t.beforeAtOp.empty())
    figures << " (before " << t.bytes(report.peakBytesBefore) << ")";
  if (report.budgetBytes)
    figures << ", budget " << t.bytes(*report.budgetBytes);
  figures << ", arguments " << t.bytes(report.argumentBytes) << ", arena "
          << t.bytes(report.arenaBytes) << ", " << report.ops.size() << " ops";
  if (t.unchanged)
    figures << ", as before rematerialization";
  if (t.anyRecomputed)
    figures << " (" << llvm::count_if(report.ops, [](const OpRecord &op) {
      return !op.recomputeOf.empty();
    }) << " recomputing)";
  os << llvm::format("<text class=\"figures\" x=\"%.1f\" y=\"%.1f\" "
                     "font-size=\"12\">",
                     kLeft, kFiguresY)
     << escape(text) << "</text>\n";
  labels.reserve(Box{0, 0, kWidth, kTop});
}

/// The legend, one row under the figures, listing only what is drawn.
void writeLegend(raw_ostream &os, const Timeline &t) {
  double x = kLeft, y = kLegendY;
  auto entry = [&](StringRef swatch, StringRef text) {
    os << "<g class=\"legend\">" << swatch;
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 28,
                       y)
       << escape(text) << "</text></g>\n";
    x += 28 + 0.6 * 11 * text.size() + 16;
  };
  auto line = [&](StringRef style) {
    std::string swatch;
    llvm::raw_string_ostream(swatch)
        << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\" ",
                        x, y - 4, x + 22, y - 4)
        << style << "/>";
    return swatch;
  };
  auto square = [&](StringRef fill, StringRef extra = "") {
    std::string swatch;
    llvm::raw_string_ostream(swatch)
        << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" "
                        "height=\"10\" fill=\"%s\" ",
                        x, y - 9, fill.str().c_str())
        << extra << "/>";
    return swatch;
  };
  if (!t.beforeAtOp.empty())
    entry(line(kBeforeStyle), "before");
  entry(line(kAfterStyle), t.beforeAtOp.empty() ? "live bytes" : "after");
  if (t.report.budgetBytes)
    entry(line("stroke=\"#d62728\" stroke-width=\"1.5\" "
               "stroke-dasharray=\"6 4\""),
          "budget");
  if (t.anyRecomputed)
    entry(square(kRecomputeFill, "fill-opacity=\"0.3\""), "recomputing op");
  for (StringRef phase : {"forward", "backward", "update"})
    if (llvm::any_of(t.report.ops,
                     [&](const OpRecord &op) { return op.phase == phase; }))
      entry(square(getPhaseColor(phase), "stroke=\"#ccc\""), phase);
}

void writeLabel(raw_ostream &os, const Label &label, StringRef text,
                StringRef cls, StringRef fill) {
  os << llvm::format("<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                     "text-anchor=\"%s\" font-size=\"11\" fill=\"%s\">",
                     cls.str().c_str(), label.x, label.y, label.anchor,
                     fill.str().c_str())
     << escape(text) << "</text>\n";
}

/// The budget line and its label.
void writeBudget(raw_ostream &os, const Timeline &t, LabelPlacer &labels) {
  const StepReport &report = t.report;
  if (!report.budgetBytes)
    return;
  double y = t.scale.y(*report.budgetBytes);
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#d62728\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"6 4\"/>\n",
                     kLeft, y, kLeft + kPlotWidth, y);
  std::string text = "budget " + t.bytes(*report.budgetBytes);
  if (StringRef(report.budgetAsTyped).ends_with("%"))
    text = "budget " + report.budgetAsTyped + " = " +
           t.bytes(*report.budgetBytes);
  double right = kLeft + kPlotWidth - 4, left = kLeft + 4;
  Label label = labels.place(text, 11,
                             {{right, y - 5, "end", {}},
                              {right, y + 14, "end", {}},
                              {left, y - 5, "start", {}},
                              {left, y + 14, "start", {}}});
  writeLabel(os, label, text, "budget", "#d62728");
}

/// A dot at the largest of `live` and its label.
void writePeak(raw_ostream &os, const Timeline &t, LabelPlacer &labels,
               const std::vector<int64_t> &live, StringRef text,
               StringRef cls, StringRef color) {
  size_t peak = std::max_element(live.begin(), live.end()) - live.begin();
  double x = t.scale.x(peak + 0.5), y = t.scale.y(live[peak]);
  os << llvm::format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
                     x, y, color.str().c_str());
  Label label = labels.place(text, 11,
                             {{x + 7, y - 7, "start", {}},
                              {x - 7, y - 7, "end", {}},
                              {x + 7, y + 16, "start", {}},
                              {x - 7, y + 16, "end", {}},
                              {x + 7, y - 22, "start", {}},
                              {x - 7, y - 22, "end", {}},
                              {x + 7, y + 30, "start", {}},
                              {x - 7, y + 30, "end", {}}});
  writeLabel(os, label, text, cls, "#222");
}

void writePeaks(raw_ostream &os, const Timeline &t, LabelPlacer &labels) {
  const StepReport &report = t.report;
  if (report.liveBytesAfter.empty())
    return;
  std::string peakOp = report.peakOp;
  writePeak(os, t, labels, report.liveBytesAfter,
            "peak " + t.bytes(report.peakBytesAfter) + " at " + peakOp,
            "peak", "#1f77b4");
  if (!t.beforeAtOp.empty() && report.peakBytesBefore != report.peakBytesAfter)
    writePeak(os, t, labels, t.beforeAtOp,
              "peak before " + t.bytes(report.peakBytesBefore), "peak-before",
              "#888");
}

void writeTooltips(raw_ostream &os, const Timeline &t) {
  const StepReport &report = t.report;
  for (size_t step = 0; step < report.ops.size(); ++step) {
    const OpRecord &op = report.ops[step];
    os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\" fill=\"transparent\">",
                       t.scale.x(step), kTop,
                       t.scale.x(step + 1) - t.scale.x(step), kPlotHeight);
    os << "<title>" << step << ": " << escape(op.kind) << " "
       << escape(op.name);
    if (!op.phase.empty())
      os << " (" << escape(op.phase) << ")";
    os << ": live " << t.bytes(report.liveBytesAfter[step]);
    if (!op.recomputeOf.empty())
      os << "; recomputes " << escape(op.recomputeOf);
    else if (!t.beforeAtOp.empty())
      os << "; before " << t.bytes(t.beforeAtOp[step]);
    os << "</title></rect>\n";
  }
}

} // namespace

void mlir::remat::writeTimelineSvg(raw_ostream &os, const StepReport &report) {
  Timeline t = makeTimeline(report);
  LabelPlacer labels(Box{kLeft, kTop, kLeft + kPlotWidth, kPlotBottom});
  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                     "font-family=\"sans-serif\">\n",
                     kWidth, kHeight, kWidth, kHeight);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  writeTitle(os, t, labels);
  writeLegend(os, t);
  writePhaseBands(os, t);
  writeRecomputedColumns(os, t);
  writeAxes(os, t);
  writeStepLine(os, t.beforeAtOp, t.scale, kBeforeStyle);
  writeStepLine(os, report.liveBytesAfter, t.scale, kAfterStyle);
  writeBudget(os, t, labels);
  writePeaks(os, t, labels);
  writeTooltips(os, t);
  os << "</svg>\n";
}
