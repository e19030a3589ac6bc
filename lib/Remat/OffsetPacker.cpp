//===- OffsetPacker.cpp - static placement of buffers in one arena --------===//
//
// Both strategies place items one at a time. For each item they collect the
// already placed items whose lifetimes overlap its own, sorted by offset, and
// look at the free gaps between them: the greedy strategies take the lowest
// gap that fits, best-fit the tightest. Quadratic in the number of items, which
// is fine for training steps of thousands of ops. Offsets and ends are
// checked: an item that would end beyond the int64 range stops the packing
// and is reported, never wrapped to an overlapping offset.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/OffsetPacker.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir::remat;

llvm::StringRef mlir::remat::stringifyPackStrategy(PackStrategy strategy) {
  switch (strategy) {
  case PackStrategy::GreedyBySize:
    return "greedy-by-size";
  case PackStrategy::BestFit:
    return "best-fit";
  case PackStrategy::GreedyByArea:
    return "greedy-by-area";
  }
  return "unknown";
}

namespace {
/// A placed item: the bytes [begin, end) it occupies.
struct Placed {
  int64_t begin;
  int64_t end;
};

/// Returns the order in which a strategy places the items.
std::vector<size_t> getPlacementOrder(llvm::ArrayRef<PackItem> items,
                                      PackStrategy strategy) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  auto bySize = [&](size_t a, size_t b) {
    const Lifetime &la = items[a].lifetime, &lb = items[b].lifetime;
    return std::make_tuple(-la.bytes, la.first, a) <
           std::make_tuple(-lb.bytes, lb.first, b);
  };
  auto byFirstUse = [&](size_t a, size_t b) {
    const Lifetime &la = items[a].lifetime, &lb = items[b].lifetime;
    return std::make_tuple(la.first, -la.bytes, a) <
           std::make_tuple(lb.first, -lb.bytes, b);
  };
  auto byArea = [&](size_t a, size_t b) {
    const Lifetime &la = items[a].lifetime, &lb = items[b].lifetime;
    __int128 areaA = __int128(la.bytes) * (la.last - la.first + 1);
    __int128 areaB = __int128(lb.bytes) * (lb.last - lb.first + 1);
    return std::make_tuple(-areaA, la.first, a) <
           std::make_tuple(-areaB, lb.first, b);
  };
  switch (strategy) {
  case PackStrategy::GreedyBySize:
    std::sort(order.begin(), order.end(), bySize);
    break;
  case PackStrategy::BestFit:
    std::sort(order.begin(), order.end(), byFirstUse);
    break;
  case PackStrategy::GreedyByArea:
    std::sort(order.begin(), order.end(), byArea);
    break;
  }
  return order;
}

/// `value` rounded up to a multiple of `align`, or std::nullopt beyond the
/// int64 range.
std::optional<int64_t> alignUp(int64_t value, int64_t align) {
  std::optional<int64_t> padded = llvm::checkedAdd(value, align - 1);
  if (!padded)
    return std::nullopt;
  return *padded / align * align;
}

/// Chooses the offset of `item` among the `busy` byte ranges (sorted by
/// begin) of items live at the same time; std::nullopt when the item would
/// end beyond the int64 range.
std::optional<int64_t> chooseOffset(const PackItem &item,
                                    llvm::ArrayRef<Placed> busy,
                                    PackStrategy strategy) {
  int64_t size = item.lifetime.bytes;
  int64_t align = std::max<int64_t>(item.alignment, 1);
  int64_t cursor = 0;
  std::optional<int64_t> best;
  int64_t bestSlack = 0;
  for (const Placed &range : busy) {
    std::optional<int64_t> start = alignUp(cursor, align);
    if (!start)
      break;
    std::optional<int64_t> end = llvm::checkedAdd(*start, size);
    if (end && *end <= range.begin) {
      if (strategy != PackStrategy::BestFit)
        return *start;
      int64_t slack = range.begin - *end;
      if (!best || slack < bestSlack) {
        best = *start;
        bestSlack = slack;
      }
    }
    cursor = std::max(cursor, range.end);
  }
  if (best)
    return *best;
  std::optional<int64_t> start = alignUp(cursor, align);
  if (!start || !llvm::checkedAdd(*start, size))
    return std::nullopt;
  return *start;
}
} // namespace

Packing mlir::remat::packOffsets(llvm::ArrayRef<PackItem> items,
                                 PackStrategy strategy) {
  Packing packing;
  packing.strategy = strategy;
  packing.offsets.assign(items.size(), 0);
  std::vector<size_t> placedItems;
  std::vector<Placed> busy;
  for (size_t index : getPlacementOrder(items, strategy)) {
    const PackItem &item = items[index];
    busy.clear();
    for (size_t other : placedItems) {
      if (!items[other].lifetime.overlaps(item.lifetime))
        continue;
      int64_t begin = packing.offsets[other];
      busy.push_back({begin, begin + items[other].lifetime.bytes});
    }
    std::sort(busy.begin(), busy.end(), [](const Placed &a, const Placed &b) {
      return std::make_pair(a.begin, a.end) < std::make_pair(b.begin, b.end);
    });
    std::optional<int64_t> offset = chooseOffset(item, busy, strategy);
    if (!offset) {
      packing.overflowItem = index;
      packing.arenaBytes = std::numeric_limits<int64_t>::max();
      return packing;
    }
    packing.offsets[index] = *offset;
    packing.arenaBytes =
        std::max(packing.arenaBytes, *offset + item.lifetime.bytes);
    placedItems.push_back(index);
  }
  return packing;
}

Packing mlir::remat::packOffsets(llvm::ArrayRef<PackItem> items) {
  Packing best = packOffsets(items, PackStrategy::GreedyBySize);
  for (PackStrategy strategy :
       {PackStrategy::BestFit, PackStrategy::GreedyByArea}) {
    Packing candidate = packOffsets(items, strategy);
    if (!candidate.overflows() &&
        (best.overflows() || candidate.arenaBytes < best.arenaBytes))
      best = std::move(candidate);
  }
  return best;
}

std::optional<std::pair<size_t, size_t>>
mlir::remat::findPackingConflict(llvm::ArrayRef<PackItem> items,
                                 llvm::ArrayRef<int64_t> offsets) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] < 0 || offsets[i] % std::max<int64_t>(items[i].alignment, 1))
      return std::make_pair(i, i);
    for (size_t j = i + 1; j < items.size(); ++j) {
      if (!items[i].lifetime.overlaps(items[j].lifetime))
        continue;
      if (items[i].lifetime.bytes == 0 || items[j].lifetime.bytes == 0)
        continue;
      bool disjoint =
          __int128(offsets[i]) + items[i].lifetime.bytes <= offsets[j] ||
          __int128(offsets[j]) + items[j].lifetime.bytes <= offsets[i];
      if (!disjoint)
        return std::make_pair(i, j);
    }
  }
  return std::nullopt;
}

int64_t mlir::remat::getPackingLowerBound(llvm::ArrayRef<PackItem> items) {
  int64_t numSteps = 0;
  std::vector<Lifetime> lifetimes;
  for (const PackItem &item : items) {
    lifetimes.push_back(item.lifetime);
    numSteps = std::max(numSteps, item.lifetime.last + 1);
  }
  LiveProfile profile = computeLiveProfile(0, lifetimes, numSteps);
  return profile.overflows() ? std::numeric_limits<int64_t>::max()
                             : profile.peakBytes;
}
