//===- OffsetPacker.h - static placement of buffers in one arena -*- C++
//-*-===//
//
// The memory planner's algorithm, IR-free: buffers with a size, an alignment
// and a lifetime (inclusive steps) in; an offset for each and the arena size
// out, such that no two buffers live at the same step share a byte. Several
// strategies are run and the smallest arena is kept: a sweep over time with
// an index of free gaps, O(n log n), that always completes, and three
// placements in size or area order that compare each buffer with those live
// beside it and give up past a fixed amount of such work.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REMAT_OFFSETPACKER_H
#define REMAT_REMAT_OFFSETPACKER_H

#include "remat/Remat/MemoryModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <utility>
#include <vector>

namespace mlir::remat {

/// One buffer to place.
struct PackItem {
  Lifetime lifetime;
  /// Offsets are multiples of this (a power of two, at least 1).
  int64_t alignment = 1;
};

enum class PackStrategy {
  /// Largest buffers first, each at the lowest offset where it fits.
  GreedyBySize,
  /// In order of first use, each in the tightest free gap that holds it.
  BestFit,
  /// Largest size x lifetime first, each at the lowest offset where it fits.
  GreedyByArea,
  /// In order of time, as an allocator would: at each step the buffers that
  /// died are freed (merged with the free gaps beside them) and those born
  /// are placed, largest first, in the tightest free gap that holds them,
  /// else at the top of the arena. O(n log n) with an index of free gaps.
  SweepBestFit,
};

/// How many comparisons with overlapping buffers the size and area orders
/// may make before giving up (the sweep never gives up): deterministic, and
/// a fraction of a second of work.
inline constexpr int64_t kPackWorkLimit = int64_t(1) << 23;

/// Offsets of every item and the arena size they need.
struct Packing {
  std::vector<int64_t> offsets;
  int64_t arenaBytes = 0;
  PackStrategy strategy = PackStrategy::GreedyBySize;
  /// The first item whose end would lie beyond the int64 range, if any; the
  /// packing is then incomplete and `arenaBytes` is INT64_MAX.
  std::optional<size_t> overflowItem;
  /// The strategy gave up past kPackWorkLimit: the packing is incomplete.
  bool abandoned = false;

  bool overflows() const { return overflowItem.has_value(); }
  /// Every item is placed.
  bool complete() const { return !overflows() && !abandoned; }
};

llvm::StringRef stringifyPackStrategy(PackStrategy strategy);

/// Places the items with one strategy. Deterministic.
Packing packOffsets(llvm::ArrayRef<PackItem> items, PackStrategy strategy);

/// Places the items with every strategy and keeps the smallest complete
/// arena (the first strategy on ties: greedy-by-size, best-fit,
/// greedy-by-area, sweep-best-fit; once one order gives up, the others are
/// not tried). Overflows only when every strategy does.
Packing packOffsets(llvm::ArrayRef<PackItem> items);

/// Returns two items that are live at a common step and share a byte, or
/// that are misaligned (the same index twice), or std::nullopt when the
/// packing is valid.
std::optional<std::pair<size_t, size_t>>
findPackingConflict(llvm::ArrayRef<PackItem> items,
                    llvm::ArrayRef<int64_t> offsets);

/// The largest sum of sizes live at one step: no packing is smaller
/// (INT64_MAX when that sum leaves the int64 range).
int64_t getPackingLowerBound(llvm::ArrayRef<PackItem> items);

} // namespace mlir::remat

#endif // REMAT_REMAT_OFFSETPACKER_H
