//===- TimelineSvg.cpp - live bytes over the schedule as SVG --------------===//
//
// A self-contained SVG chart readable in any browser: live bytes at each op
// as a step line (before rematerialization dashed, after solid), phases as
// background bands, the budget as a red line, the peak marked, recomputed
// ops as ticks under the axis, and a tooltip per op.
//
//===----------------------------------------------------------------------===//

#include "remat/Report/StepReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::remat;

namespace {

constexpr double kWidth = 960, kHeight = 440;
constexpr double kLeft = 90, kRight = 30, kTop = 50, kBottom = 70;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

/// Formats bytes with a binary unit: "1.50 MiB".
std::string formatBytes(double bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(unit == 0 ? "%.0f %s" : "%.2f %s", bytes, units[unit]);
  return text;
}

/// Escapes text for SVG.
std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

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

/// A step line: each op's live bytes held across its column. A schedule of
/// another length (before rematerialization) is stretched to the same width.
void writeStepLine(raw_ostream &os, const std::vector<int64_t> &live,
                   const Scale &scale, StringRef style) {
  if (live.empty())
    return;
  double stretch = double(scale.steps) / double(live.size());
  os << "<polyline fill=\"none\" " << style << " points=\"";
  for (size_t step = 0; step < live.size(); ++step) {
    double y = scale.y(live[step]);
    os << llvm::format("%.1f,%.1f %.1f,%.1f ", scale.x(step * stretch), y,
                       scale.x((step + 1) * stretch), y);
  }
  os << "\"/>\n";
}

void writePhaseBands(raw_ostream &os, const StepReport &report,
                     const Scale &scale) {
  auto color = [](StringRef phase) -> const char * {
    if (phase == "forward")
      return "#e8f1fb";
    if (phase == "backward")
      return "#fbefe6";
    if (phase == "update")
      return "#eef7ea";
    return nullptr;
  };
  size_t start = 0;
  for (size_t step = 1; step <= report.ops.size(); ++step) {
    if (step < report.ops.size() &&
        report.ops[step].phase == report.ops[start].phase)
      continue;
    if (const char *fill = color(report.ops[start].phase))
      os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                         "height=\"%.1f\" fill=\"%s\"/>\n",
                         scale.x(start), kTop, scale.x(step) - scale.x(start),
                         kPlotHeight, fill);
    start = step;
  }
}

void writeAxes(raw_ostream &os, const StepReport &report, const Scale &scale) {
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#333\"/>\n",
                     kLeft, kTop + kPlotHeight, kLeft + kPlotWidth,
                     kTop + kPlotHeight);
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#333\"/>\n",
                     kLeft, kTop, kLeft, kTop + kPlotHeight);
  for (int tick = 0; tick <= 5; ++tick) {
    double bytes = scale.maxBytes * tick / 5.0;
    double y = scale.y(bytes);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#ddd\"/>\n",
                       kLeft, y, kLeft + kPlotWidth, y);
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                       "font-size=\"11\">%s</text>\n",
                       kLeft - 6, y + 4, formatBytes(bytes).c_str());
  }
  size_t steps = report.ops.size();
  size_t every = std::max<size_t>(1, (steps + 9) / 10);
  for (size_t step = 0; step < steps; step += every)
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                       "font-size=\"11\">%zu</text>\n",
                       scale.x(step + 0.5), kTop + kPlotHeight + 16, step);
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                     "font-size=\"12\">op (schedule order)</text>\n",
                     kLeft + kPlotWidth / 2, kTop + kPlotHeight + 34);
}

void writeMarks(raw_ostream &os, const StepReport &report, const Scale &scale) {
  if (report.budgetBytes) {
    double y = scale.y(*report.budgetBytes);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>\n",
                       kLeft, y, kLeft + kPlotWidth, y);
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                       "font-size=\"11\" fill=\"#d62728\">budget %s</text>\n",
                       kLeft + kPlotWidth - 4, y - 4,
                       formatBytes(*report.budgetBytes).c_str());
  }
  const std::vector<int64_t> &live = report.liveBytesAfter;
  if (!live.empty()) {
    size_t peak = std::max_element(live.begin(), live.end()) - live.begin();
    double x = scale.x(peak + 0.5), y = scale.y(live[peak]);
    os << llvm::format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
                       "fill=\"#1f77b4\"/>\n",
                       x, y);
    os << "<text x=\"" << llvm::format("%.1f", std::min(x + 6, kWidth - 220))
       << "\" y=\"" << llvm::format("%.1f", std::max(y - 6, kTop + 10))
       << "\" font-size=\"11\">peak " << formatBytes(live[peak]) << " at "
       << escape(report.peakOp) << "</text>\n";
  }
  for (size_t step = 0; step < report.ops.size(); ++step) {
    if (report.ops[step].recomputeOf.empty())
      continue;
    double x = scale.x(step + 0.5);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#ff7f0e\" stroke-width=\"2\"/>\n",
                       x, kTop + kPlotHeight + 20, x, kTop + kPlotHeight + 26);
  }
}

void writeTooltips(raw_ostream &os, const StepReport &report,
                   const Scale &scale) {
  for (size_t step = 0; step < report.ops.size(); ++step) {
    const OpRecord &op = report.ops[step];
    os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\" fill=\"transparent\">",
                       scale.x(step), kTop, scale.x(step + 1) - scale.x(step),
                       kPlotHeight);
    os << "<title>" << step << ": " << escape(op.kind) << " "
       << escape(op.name) << " (" << escape(op.phase) << "): live "
       << formatBytes(report.liveBytesAfter[step]);
    if (!op.recomputeOf.empty())
      os << ", recomputes " << escape(op.recomputeOf);
    os << "</title></rect>\n";
  }
}

void writeLegend(raw_ostream &os, const StepReport &report) {
  double y = kHeight - 14;
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#999\" stroke-width=\"2\" "
                     "stroke-dasharray=\"4 3\"/>\n",
                     kLeft, y - 4, kLeft + 24, y - 4);
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">before "
                     "rematerialization</text>\n",
                     kLeft + 30, y);
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#1f77b4\" stroke-width=\"2\"/>\n",
                     kLeft + 190, y - 4, kLeft + 214, y - 4);
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">after"
                     "</text>\n",
                     kLeft + 220, y);
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                     "fill=\"#ff7f0e\">| recomputed op</text>\n",
                     kLeft + 270, y);
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">bands: "
                     "forward, backward, update; %zu ops</text>\n",
                     kLeft + 380, y, report.ops.size());
}

} // namespace

void mlir::remat::writeTimelineSvg(raw_ostream &os, const StepReport &report) {
  int64_t maxLive = 1;
  for (int64_t bytes : report.liveBytesBefore)
    maxLive = std::max(maxLive, bytes);
  for (int64_t bytes : report.liveBytesAfter)
    maxLive = std::max(maxLive, bytes);
  if (report.budgetBytes)
    maxLive = std::max(maxLive, *report.budgetBytes);
  Scale scale{report.ops.size(), maxLive * 1.08};

  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                     "font-family=\"sans-serif\">\n",
                     kWidth, kHeight, kWidth, kHeight);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::format("<text x=\"%.1f\" y=\"24\" font-size=\"15\">", kLeft)
     << "Live bytes of @" << escape(report.function) << " (arguments "
     << formatBytes(report.argumentBytes) << ", peak "
     << formatBytes(report.peakBytesAfter) << ", arena "
     << formatBytes(report.arenaBytes) << ")</text>\n";
  writePhaseBands(os, report, scale);
  writeAxes(os, report, scale);
  writeStepLine(os, report.liveBytesBefore, scale,
                "stroke=\"#999\" stroke-width=\"2\" stroke-dasharray=\"4 3\"");
  writeStepLine(os, report.liveBytesAfter, scale,
                "stroke=\"#1f77b4\" stroke-width=\"2\"");
  writeMarks(os, report, scale);
  writeTooltips(os, report, scale);
  writeLegend(os, report);
  os << "</svg>\n";
}
