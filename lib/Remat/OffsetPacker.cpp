//===- OffsetPacker.cpp - static placement of buffers in one arena --------===//
//
// Both strategies place items one at a time. For each item they collect the
// already placed items whose lifetimes overlap its own, sorted by offset, and
// look at the free gaps between them: the greedy strategies take the lowest
// gap that fits, best-fit the tightest. The overlapping items are found
// through an index of time buckets, so that the work grows with the items
// live at the same time rather than with all of them (a step of 200,000 ops
// packs in seconds). Offsets and ends are
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

/// Items listed by lifetime, so that those overlapping a lifetime are found
/// without scanning every item. Time is cut into buckets of equal length; an
/// item shorter than a bucket is listed in the bucket where it starts, so
/// that a query looks at the buckets from one bucket before its start to its
/// end; a longer item goes to one list every query scans. Memory is one
/// entry per item, and no query looks at more items than a scan would.
class OverlapIndex {
public:
  explicit OverlapIndex(llvm::ArrayRef<PackItem> items) : items(items) {
    int64_t lastStep = 0;
    for (const PackItem &item : items)
      lastStep = std::max(lastStep, item.lifetime.last);
    // At least 64 steps a bucket, and never more buckets than items.
    int64_t count = static_cast<int64_t>(items.size()) + 1;
    bucketSteps = std::max<int64_t>(64, lastStep / count + 1);
    buckets.resize(lastStep / bucketSteps + 1);
  }

  void add(size_t index) {
    const Lifetime &lifetime = items[index].lifetime;
    if (lifetime.last - lifetime.first >= bucketSteps)
      wide.push_back(index);
    else
      buckets[getBucket(lifetime.first)].push_back(index);
  }

  /// Calls `visit` once with each added item whose lifetime overlaps
  /// `lifetime`, in no particular order.
  template <typename Visit>
  void forEachOverlapping(const Lifetime &lifetime, Visit visit) const {
    for (size_t other : wide)
      if (items[other].lifetime.overlaps(lifetime))
        visit(other);
    // A short item overlapping `lifetime` starts at most one bucket's
    // length before it.
    int64_t first =
        getBucket(std::max<int64_t>(lifetime.first, 0) - bucketSteps);
    int64_t last = getBucket(lifetime.last);
    for (int64_t bucket = first; bucket <= last; ++bucket)
      for (size_t other : buckets[bucket])
        if (items[other].lifetime.overlaps(lifetime))
          visit(other);
  }

private:
  int64_t getBucket(int64_t step) const {
    int64_t last = static_cast<int64_t>(buckets.size()) - 1;
    return std::clamp<int64_t>(std::max<int64_t>(step, 0) / bucketSteps, 0,
                               last);
  }

  llvm::ArrayRef<PackItem> items;
  int64_t bucketSteps = 64;
  std::vector<std::vector<size_t>> buckets;
  std::vector<size_t> wide;
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
  OverlapIndex placed(items);
  std::vector<Placed> busy;
  for (size_t index : getPlacementOrder(items, strategy)) {
    const PackItem &item = items[index];
    busy.clear();
    placed.forEachOverlapping(item.lifetime, [&](size_t other) {
      int64_t begin = packing.offsets[other];
      busy.push_back({begin, begin + items[other].lifetime.bytes});
    });
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
    placed.add(index);
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
  OverlapIndex index(items);
  for (size_t i = 0; i < items.size(); ++i)
    index.add(i);
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] < 0 || offsets[i] % std::max<int64_t>(items[i].alignment, 1))
      return std::make_pair(i, i);
    // The first later item, by index, that overlaps in time and in bytes.
    std::optional<size_t> conflict;
    index.forEachOverlapping(items[i].lifetime, [&](size_t j) {
      if (j <= i || (conflict && j >= *conflict))
        return;
      if (items[i].lifetime.bytes == 0 || items[j].lifetime.bytes == 0)
        return;
      bool disjoint =
          __int128(offsets[i]) + items[i].lifetime.bytes <= offsets[j] ||
          __int128(offsets[j]) + items[j].lifetime.bytes <= offsets[i];
      if (!disjoint)
        conflict = j;
    });
    if (conflict)
      return std::make_pair(i, *conflict);
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
