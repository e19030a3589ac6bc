//===- ArenaAllocator.h - ATen's CPU allocations, counted and lent --------===//
//
// The CPU executor installs one allocator in ATen for the process. It counts
// the bytes ATen holds outside the arena, and while a kernel runs it lends
// that kernel's thread arena bytes the plan leaves free: each result's slot
// to the allocation of the result's size, and the bytes no value occupies at
// that op to the kernel's temporaries, so that they stay inside the plan.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_EXECUTION_CPU_ARENAALLOCATOR_H
#define REMAT_LIB_EXECUTION_CPU_ARENAALLOCATOR_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace mlir::remat {

/// A range of arena bytes: its start and size.
using ArenaRange = std::pair<uint8_t *, size_t>;

/// While it lives, allocations made by the thread that created it (the one
/// running the kernel: other threads of the process, a Python data
/// loader's, never get arena bytes) take arena bytes instead of fresh
/// memory:
/// - an allocation of a result's size takes that result's slot (a kernel
///   without an `_out` form then computes the result where the plan placed
///   it); a slot serves one allocation at a time, and once freed serves the
///   next;
/// - any other of at least 64 KiB takes the first fit among the ranges
///   `getFreeRanges` gives (called once, on the first such allocation): the
///   bytes no live value occupies while the op runs. What does not fit, and
///   what is smaller, is fresh memory, counted as outside the arena.
/// Every such byte is free in the plan while the op runs, so whatever
/// allocation takes it is safe there, as long as it is freed before the op
/// ends: `finish` says how many lent bytes a kernel kept.
class KernelLoans {
public:
  KernelLoans(std::vector<std::pair<size_t, void *>> resultSlots,
              std::function<std::vector<ArenaRange>()> getFreeRanges);
  ~KernelLoans();
  KernelLoans(const KernelLoans &) = delete;
  KernelLoans &operator=(const KernelLoans &) = delete;

  /// Stops lending the result slots (the kernel has returned; its results
  /// are copied into them next); free bytes are still lent.
  void stopLendingSlots();

  /// Stops lending; returns the bytes of temporaries still held (lent from
  /// the free ranges and not freed).
  int64_t finish();

private:
  bool active = true;
};

/// Measures the most bytes ATen holds outside the arena during its lifetime,
/// above what it held when it was created.
/// The op whose kernel runs is a tag the runner sets before each kernel, so
/// that the peak can be attributed to it.
class OutsideArenaScope {
public:
  OutsideArenaScope();
  int64_t getPeak() const;
  /// The tag set when the peak was reached (nullptr if none was set).
  const void *getPeakTag() const;
};

/// Tags ATen's allocations from here on (the op whose kernel runs next).
void setAllocationTag(const void *tag);

} // namespace mlir::remat

#endif // REMAT_LIB_EXECUTION_CPU_ARENAALLOCATOR_H
