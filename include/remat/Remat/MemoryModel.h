//===- MemoryModel.h - live bytes of a schedule -----------------*- C++ -*-===//
//
// The one memory model of the project, IR-free: given the bytes and live
// steps of every buffer of a schedule, the bytes live at each step and the
// peak. The peak-memory analysis, the planner, the solvers' simulator and
// the executors' checks all reduce to this.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REMAT_MEMORYMODEL_H
#define REMAT_REMAT_MEMORYMODEL_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::remat {

/// A buffer live from step `first` to step `last`, both included.
struct Lifetime {
  int64_t bytes = 0;
  int64_t first = 0;
  int64_t last = 0;

  bool isLiveAt(int64_t step) const { return first <= step && step <= last; }
  bool overlaps(const Lifetime &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// Bytes live at every step of a schedule, arguments included.
struct LiveProfile {
  std::vector<int64_t> liveBytes;
  int64_t peakBytes = 0;
  /// The first step at which the peak is reached; -1 for an empty schedule.
  int64_t peakStep = -1;
  /// The first step whose live bytes exceed the int64 range, -1 when none.
  /// When set, `liveBytes` stops before it and the peak is meaningless.
  int64_t overflowStep = -1;

  bool overflows() const { return overflowStep >= 0; }
};

/// Computes the live bytes of a schedule of `numSteps` steps: the argument
/// bytes at every step plus each buffer at the steps of its lifetime. With no
/// step the peak is the argument bytes. Sums are exact: a step whose live
/// bytes exceed the int64 range is reported in `overflowStep`, never wrapped.
LiveProfile computeLiveProfile(int64_t argumentBytes,
                               llvm::ArrayRef<Lifetime> buffers,
                               int64_t numSteps);

/// `a + b` for byte counts, or std::nullopt when the sum leaves the int64
/// range.
std::optional<int64_t> addBytes(int64_t a, int64_t b);

/// `a + b` for non-negative byte counts, saturated at INT64_MAX: for bounds
/// and comparisons against a budget, where "more than any budget" is the
/// right reading of a sum that overflows.
int64_t addBytesSaturated(int64_t a, int64_t b);

} // namespace mlir::remat

#endif // REMAT_REMAT_MEMORYMODEL_H
