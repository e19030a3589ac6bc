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
};

/// Computes the live bytes of a schedule of `numSteps` steps: the argument
/// bytes at every step plus each buffer at the steps of its lifetime. With no
/// step the peak is the argument bytes.
LiveProfile computeLiveProfile(int64_t argumentBytes,
                               llvm::ArrayRef<Lifetime> buffers,
                               int64_t numSteps);

} // namespace mlir::remat

#endif // REMAT_REMAT_MEMORYMODEL_H
