//===- Chart.cpp - what the report's charts share -------------------------===//
//
// Units, round ticks, escaping and label placement for the timeline and the
// sweep chart.
//
//===----------------------------------------------------------------------===//

#include "Chart.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir::remat;
using namespace mlir::remat::chart;

ByteUnits chart::getUnitsOfTyped(llvm::StringRef typed) {
  llvm::StringRef text = typed.trim();
  if (text.ends_with_insensitive("ib"))
    return ByteUnits::Binary;
  if (text.ends_with_insensitive("kb") || text.ends_with_insensitive("mb") ||
      text.ends_with_insensitive("gb") || text.ends_with_insensitive("tb"))
    return ByteUnits::Decimal;
  return ByteUnits::Binary;
}

ByteUnit chart::getUnitFor(double bytes, ByteUnits units) {
  static const ByteUnit decimal[] = {
      {1, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"}, {1e12, "TB"}};
  static const ByteUnit binary[] = {{1, "B"},
                                    {1024.0, "KiB"},
                                    {1024.0 * 1024, "MiB"},
                                    {1024.0 * 1024 * 1024, "GiB"},
                                    {1024.0 * 1024 * 1024 * 1024, "TiB"}};
  const ByteUnit *family = units == ByteUnits::Decimal ? decimal : binary;
  int index = 0;
  while (index < 4 && std::fabs(bytes) >= family[index + 1].bytes)
    ++index;
  return family[index];
}

std::string chart::formatNumber(double value, int decimals) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.*f", decimals, value);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0')
      text.pop_back();
    if (text.back() == '.')
      text.pop_back();
  }
  if (text == "-0")
    text = "0";
  return text;
}

std::string chart::formatBytes(double bytes, ByteUnits units) {
  ByteUnit unit{};
  double value = 0;
  int decimals = 0;
  auto pick = [&](double of) {
    unit = getUnitFor(of, units);
    value = of / unit.bytes;
    // Three significant digits: 1.23, 12.3, 123.
    decimals = unit.bytes == 1          ? 0
               : std::fabs(value) < 10  ? 2
               : std::fabs(value) < 100 ? 1
                                        : 0;
  };
  pick(bytes);
  // Rounding can fill the next unit (1023.9 KiB is "1 MiB", not
  // "1024 KiB"): pick again for the rounded value.
  double scale = std::pow(10.0, decimals);
  double rounded = std::round(value * scale) / scale * unit.bytes;
  if (getUnitFor(rounded, units).bytes != unit.bytes)
    pick(rounded);
  return formatNumber(value, decimals) + " " + unit.symbol;
}

std::vector<double> chart::getRoundTicks(double max, int maxTicks,
                                         double unit) {
  return getRoundTicks(0.0, max, maxTicks, unit);
}

std::vector<double> chart::getRoundTicks(double min, double max, int maxTicks,
                                         double unit) {
  double low = min / unit, high = max / unit;
  double span = std::max(high - low, 1e-9);
  double step = std::pow(10.0, std::floor(std::log10(span / maxTicks)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (span / (step * factor) <= maxTicks) {
      step *= factor;
      break;
    }
  }
  // Whole bytes at the least.
  if (unit == 1.0)
    step = std::max(step, 1.0);
  double first = std::floor(low / step + 1e-9);
  double last = std::ceil(high / step - 1e-9);
  if (last <= first)
    last = first + 1;
  std::vector<double> ticks;
  for (double i = first; i <= last; ++i)
    ticks.push_back(i * step * unit);
  return ticks;
}

/// The decimals that show `step` (in the axis unit) exactly, up to 6.
static int getDecimalsOf(double step) {
  for (int decimals = 0; decimals < 6; ++decimals) {
    double scaled = step * std::pow(10.0, decimals);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
      return decimals;
  }
  return 6;
}

ByteAxis chart::getByteAxis(double min, double max, int maxTicks,
                            ByteUnits units) {
  ByteAxis axis;
  axis.unit = getUnitFor(max, units);
  axis.ticks = getRoundTicks(min, max, maxTicks, axis.unit.bytes);
  // The last tick may fill the next unit (0 to 1200 KiB): ticks round in
  // that unit instead, all labelled in it.
  ByteUnit top = getUnitFor(axis.ticks.back(), units);
  if (top.bytes > axis.unit.bytes) {
    axis.unit = top;
    axis.ticks = getRoundTicks(min, max, maxTicks, axis.unit.bytes);
  }
  double step = axis.ticks.size() > 1
                    ? (axis.ticks[1] - axis.ticks[0]) / axis.unit.bytes
                    : 1.0;
  axis.decimals = axis.unit.bytes == 1 ? 0 : getDecimalsOf(step);
  return axis;
}

std::string ByteAxis::label(double bytes) const {
  double value = bytes / unit.bytes;
  if (std::fabs(value) < 1e-9)
    return "0";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%.*f", decimals, value) << " " << unit.symbol;
  return text;
}

std::string chart::escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

bool Box::overlaps(const Box &other) const {
  return x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1;
}

bool Box::inside(const Box &other) const {
  return x0 >= other.x0 && x1 <= other.x1 && y0 >= other.y0 && y1 <= other.y1;
}

Box chart::getTextBox(llvm::StringRef text, double fontSize, double x,
                      double y, llvm::StringRef anchor) {
  double width = 0.6 * fontSize * text.size();
  double x0 = anchor == "end" ? x - width : x;
  return Box{x0, y - fontSize, x0 + width, y + 0.25 * fontSize};
}

Label LabelPlacer::place(llvm::StringRef text, double fontSize,
                         llvm::ArrayRef<Label> candidates) {
  Label chosen = candidates.front();
  chosen.box = getTextBox(text, fontSize, chosen.x, chosen.y, chosen.anchor);
  for (Label candidate : candidates) {
    candidate.box = getTextBox(text, fontSize, candidate.x, candidate.y,
                               candidate.anchor);
    if (!candidate.box.inside(bounds))
      continue;
    if (llvm::any_of(placed, [&](const Box &box) {
          return box.overlaps(candidate.box);
        }))
      continue;
    chosen = candidate;
    break;
  }
  placed.push_back(chosen.box);
  return chosen;
}
