//===- Chart.h - what the report's charts share ------------------*- C++ -*-===//
//
// Internal to lib/Report: byte units chosen as the user typed them, round
// axis ticks (1, 2 or 5 x 10^k in the axis unit), XML escaping, and label
// placement that keeps labels from overlapping.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REPORT_CHART_H
#define REMAT_LIB_REPORT_CHART_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::remat::chart {

/// Decimal (KB, MB, GB: powers of 1000, spelled as ByteSize reads them) or binary (KiB, MiB, GiB: powers of
/// 1024) byte units.
enum class ByteUnits { Decimal, Binary };

/// The units a budget was typed in: decimal for `1.5GB`, binary for
/// `512MiB`; binary when it names no unit (bytes, a percentage, none).
ByteUnits getUnitsOfTyped(llvm::StringRef typed);

/// One unit of a family: its size in bytes and its symbol.
struct ByteUnit {
  double bytes;
  const char *symbol;
};

/// The largest unit of `units` that `bytes` holds at least once (bytes for
/// less than one kilobyte).
ByteUnit getUnitFor(double bytes, ByteUnits units);

/// `bytes` in the largest unit it fills, with up to three significant
/// digits and no trailing zeros: "1.5 GB", "755 MiB", "64 B".
std::string formatBytes(double bytes, ByteUnits units);

/// `value` with no trailing zeros, up to `decimals` decimals: "1.5", "200".
std::string formatNumber(double value, int decimals = 3);

/// Round ticks from 0 to at least `max`: a step of 1, 2 or 5 x 10^k (in
/// `unit`, in bytes) giving at most `maxTicks` intervals; the last tick is
/// the first multiple of the step at or above `max`.
std::vector<double> getRoundTicks(double max, int maxTicks, double unit = 1.0);

/// Round ticks covering [min, max]: from the last multiple of the step at or
/// below `min` to the first at or above `max`.
std::vector<double> getRoundTicks(double min, double max, int maxTicks,
                                  double unit);

/// Round ticks on a byte axis, all labelled in one unit with the same
/// number of decimals: "0", "0.2 MiB", "0.4 MiB", ... "1.2 MiB".
struct ByteAxis {
  std::vector<double> ticks; // bytes
  ByteUnit unit;
  int decimals;
  /// The label of `bytes` (a tick) in the axis unit; "0" for zero.
  std::string label(double bytes) const;
};

/// Round ticks covering [min, max] in `units`, the unit chosen from the
/// axis (the largest tick), the decimals from the tick step.
ByteAxis getByteAxis(double min, double max, int maxTicks, ByteUnits units);

/// Escapes text for XML and HTML.
std::string escape(llvm::StringRef text);

/// An axis-aligned rectangle in SVG coordinates.
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box &other) const;
  bool inside(const Box &other) const;
};

/// A label placed by LabelPlacer: its anchor point and text-anchor.
struct Label {
  double x, y;
  const char *anchor; // "start" or "end"
  Box box;
};

/// The box text of `fontSize` takes when drawn at (x, y) (the baseline) with
/// `anchor`; widths are estimated (0.6 em per character).
Box getTextBox(llvm::StringRef text, double fontSize, double x, double y,
               llvm::StringRef anchor);

/// Places labels one by one at the first candidate position that overlaps
/// no label placed before and lies within the bounds (else the first
/// candidate), remembering each.
class LabelPlacer {
public:
  explicit LabelPlacer(Box bounds) : bounds(bounds) {}
  /// Reserves `box` (a title, a legend) so labels avoid it.
  void reserve(Box box) { placed.push_back(box); }
  /// Candidates are (x, y, anchor).
  Label place(llvm::StringRef text, double fontSize,
              llvm::ArrayRef<Label> candidates);

private:
  Box bounds;
  std::vector<Box> placed;
};

} // namespace mlir::remat::chart

#endif // REMAT_LIB_REPORT_CHART_H
