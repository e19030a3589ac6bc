//===- OffsetPacker.h - static placement of buffers in one arena -*- C++ -*-===//
//
// The memory planner's algorithm, IR-free: buffers with a size, an alignment
// and a lifetime (inclusive steps) in; an offset for each and the arena size
// out, such that no two buffers live at the same step share a byte. Three
// strategies are run and the smallest arena is kept.
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
};

/// Offsets of every item and the arena size they need.
struct Packing {
  std::vector<int64_t> offsets;
  int64_t arenaBytes = 0;
  PackStrategy strategy = PackStrategy::GreedyBySize;
  /// The first item whose end would lie beyond the int64 range, if any; the
  /// packing is then incomplete and `arenaBytes` is INT64_MAX.
  std::optional<size_t> overflowItem;

  bool overflows() const { return overflowItem.has_value(); }
};

llvm::StringRef stringifyPackStrategy(PackStrategy strategy);

/// Places the items with one strategy. Deterministic.
Packing packOffsets(llvm::ArrayRef<PackItem> items, PackStrategy strategy);

/// Places the items with every strategy and keeps the smallest arena (the
/// first strategy on ties). Overflows only when every strategy does.
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
