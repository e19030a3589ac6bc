//===- OffsetPacker.cpp - static placement of buffers in one arena --------===//
//
// The size and area orders place items one at a time: for each item they
// collect the already placed items whose lifetimes overlap its own, sorted
// by offset, and look at the free gaps between them (the greedy strategies
// take the lowest gap that fits, best-fit the tightest). The overlapping
// items are found through an index of time buckets, so the work grows with
// the items live at the same time; when many long-lived items make that
// quadratic, the strategy gives up past kPackWorkLimit comparisons (the
// comparisons are the pairs of overlapping lifetimes in any order, counted
// up front, so that packOffsets skips the orders that would give up). The
// sweep places items in time order against an index of free gaps (ordered
// by offset to merge neighbours, by size to find the tightest) and always
// completes in O(n log n). Offsets and ends are checked: an item that would
// end beyond the int64 range stops the packing and is reported, never
// wrapped to an overlapping offset.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/OffsetPacker.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>

using namespace mlir::remat;

llvm::StringRef mlir::remat::stringifyPackStrategy(PackStrategy strategy) {
  switch (strategy) {
  case PackStrategy::GreedyBySize:
    return "greedy-by-size";
  case PackStrategy::BestFit:
    return "best-fit";
  case PackStrategy::GreedyByArea:
    return "greedy-by-area";
  case PackStrategy::SweepBestFit:
    return "sweep-best-fit";
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
  case PackStrategy::SweepBestFit:
    break;
  }
  return order;
}

/// `a + b`, or std::nullopt beyond the int64 range.
std::optional<int64_t> addChecked(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

/// `value` rounded up to a multiple of `align`, or std::nullopt beyond the
/// int64 range.
std::optional<int64_t> alignUp(int64_t value, int64_t align) {
  std::optional<int64_t> padded = addChecked(value, align - 1);
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
    std::optional<int64_t> end = addChecked(*start, size);
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
  if (!start || !addChecked(*start, size))
    return std::nullopt;
  return *start;
}

/// The free byte ranges below the top of the arena, indexed by offset (to
/// merge a freed range with its neighbours) and by size (to find the
/// tightest that holds a buffer).
class FreeGaps {
public:
  /// An offset for `bytes` aligned to `align` in the tightest free gap that
  /// holds it, taken out of the gaps; std::nullopt when none does among the
  /// few tightest (the caller then grows the arena).
  std::optional<int64_t> takeTightest(int64_t bytes, int64_t align) {
    auto candidate = bySize.lower_bound({bytes, INT64_MIN});
    // Alignment padding can make a gap too small; look a little further.
    for (int tries = 0; candidate != bySize.end() && tries < 16;
         ++candidate, ++tries) {
      auto [size, begin] = *candidate;
      int64_t end = begin + size;
      std::optional<int64_t> start = alignUp(begin, align);
      if (start && *start <= end - bytes) {
        take(begin, end, *start, *start + bytes);
        return *start;
      }
    }
    return std::nullopt;
  }

  /// An offset for `bytes` aligned to `align` at the top of the arena (in
  /// the free gap that reaches the top, if any); std::nullopt beyond the
  /// int64 range.
  std::optional<int64_t> takeAtTop(int64_t bytes, int64_t align) {
    int64_t from = top;
    if (!byBegin.empty() && std::prev(byBegin.end())->second == top)
      from = std::prev(byBegin.end())->first;
    std::optional<int64_t> start = alignUp(from, align);
    std::optional<int64_t> end =
        start ? addChecked(*start, bytes) : std::nullopt;
    if (!end)
      return std::nullopt;
    if (from < top)
      remove(from, top);
    if (from < *start)
      insert(from, *start);
    top = std::max(top, *end);
    return *start;
  }

  /// Frees [begin, end), merged with the free gaps beside it.
  void release(int64_t begin, int64_t end) {
    auto next = byBegin.find(end);
    if (next != byBegin.end()) {
      end = next->second;
      remove(next->first, next->second);
    }
    auto after = byBegin.lower_bound(begin);
    if (after != byBegin.begin() && std::prev(after)->second == begin) {
      auto previous = std::prev(after);
      begin = previous->first;
      remove(previous->first, previous->second);
    }
    insert(begin, end);
  }

  int64_t getTop() const { return top; }

private:
  void insert(int64_t begin, int64_t end) {
    byBegin.emplace(begin, end);
    bySize.emplace(end - begin, begin);
  }
  void remove(int64_t begin, int64_t end) {
    byBegin.erase(begin);
    bySize.erase({end - begin, begin});
  }
  /// Takes [start, stop) out of the gap [begin, end).
  void take(int64_t begin, int64_t end, int64_t start, int64_t stop) {
    remove(begin, end);
    if (begin < start)
      insert(begin, start);
    if (stop < end)
      insert(stop, end);
  }

  std::map<int64_t, int64_t> byBegin;
  std::set<std::pair<int64_t, int64_t>> bySize;
  int64_t top = 0;
};

/// Items in the order the sweep meets them: by first step (largest first
/// within a step) to place, and by last step to free.
std::pair<std::vector<size_t>, std::vector<size_t>>
getSweepOrders(llvm::ArrayRef<PackItem> items) {
  std::vector<size_t> born(items.size()), dying(items.size());
  std::iota(born.begin(), born.end(), 0);
  std::iota(dying.begin(), dying.end(), 0);
  std::sort(born.begin(), born.end(), [&](size_t a, size_t b) {
    const Lifetime &la = items[a].lifetime, &lb = items[b].lifetime;
    return std::make_tuple(la.first, -la.bytes, a) <
           std::make_tuple(lb.first, -lb.bytes, b);
  });
  std::sort(dying.begin(), dying.end(), [&](size_t a, size_t b) {
    return std::make_pair(items[a].lifetime.last, a) <
           std::make_pair(items[b].lifetime.last, b);
  });
  return {std::move(born), std::move(dying)};
}

/// The sweep: in time order, frees the items that died and places the items
/// born in the tightest free gap, else at the top of the arena.
Packing packBySweep(llvm::ArrayRef<PackItem> items) {
  Packing packing;
  packing.strategy = PackStrategy::SweepBestFit;
  packing.offsets.assign(items.size(), 0);
  auto [born, dying] = getSweepOrders(items);
  FreeGaps gaps;
  size_t freed = 0;
  for (size_t index : born) {
    const PackItem &item = items[index];
    int64_t bytes = item.lifetime.bytes;
    if (bytes == 0)
      continue; // Shares no byte with anything: offset 0.
    for (; freed < dying.size() &&
           items[dying[freed]].lifetime.last < item.lifetime.first;
         ++freed) {
      size_t dead = dying[freed];
      if (items[dead].lifetime.bytes != 0)
        gaps.release(packing.offsets[dead],
                     packing.offsets[dead] + items[dead].lifetime.bytes);
    }
    int64_t align = std::max<int64_t>(item.alignment, 1);
    std::optional<int64_t> offset = gaps.takeTightest(bytes, align);
    if (!offset)
      offset = gaps.takeAtTop(bytes, align);
    if (!offset) {
      packing.overflowItem = index;
      packing.arenaBytes = std::numeric_limits<int64_t>::max();
      return packing;
    }
    packing.offsets[index] = *offset;
  }
  packing.arenaBytes = gaps.getTop();
  return packing;
}

/// The size and area orders and best-fit in order of first use: each item
/// against the placed items live beside it, up to kPackWorkLimit of them in
/// all.
Packing packInOrder(llvm::ArrayRef<PackItem> items, PackStrategy strategy) {
  Packing packing;
  packing.strategy = strategy;
  packing.offsets.assign(items.size(), 0);
  OverlapIndex placed(items);
  std::vector<Placed> busy;
  int64_t work = 0;
  for (size_t index : getPlacementOrder(items, strategy)) {
    const PackItem &item = items[index];
    busy.clear();
    placed.forEachOverlapping(item.lifetime, [&](size_t other) {
      int64_t begin = packing.offsets[other];
      busy.push_back({begin, begin + items[other].lifetime.bytes});
    });
    work += static_cast<int64_t>(busy.size()) + 1;
    if (work > kPackWorkLimit) {
      packing.abandoned = true;
      packing.arenaBytes = std::numeric_limits<int64_t>::max();
      return packing;
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
    placed.add(index);
  }
  return packing;
}

/// Whether some two items live at a common step share a byte, or some item
/// is misaligned: a sweep over time with the live items ordered by offset,
/// in which (while none overlap) a new item can only overlap its neighbours.
bool hasPackingConflict(llvm::ArrayRef<PackItem> items,
                        llvm::ArrayRef<int64_t> offsets) {
  auto [born, dying] = getSweepOrders(items);
  // Live non-empty items: (offset, index).
  std::set<std::pair<int64_t, size_t>> live;
  auto end = [&](size_t i) {
    return __int128(offsets[i]) + items[i].lifetime.bytes;
  };
  size_t freed = 0;
  for (size_t i : born) {
    if (offsets[i] < 0 || offsets[i] % std::max<int64_t>(items[i].alignment, 1))
      return true;
    if (items[i].lifetime.bytes == 0)
      continue;
    for (; freed < dying.size() &&
           items[dying[freed]].lifetime.last < items[i].lifetime.first;
         ++freed)
      live.erase({offsets[dying[freed]], dying[freed]});
    auto next = live.lower_bound({offsets[i], 0});
    if (next != live.end() && next->first < end(i))
      return true;
    if (next != live.begin() && end(std::prev(next)->second) > offsets[i])
      return true;
    live.emplace(offsets[i], i);
  }
  return false;
}
} // namespace

Packing mlir::remat::packOffsets(llvm::ArrayRef<PackItem> items,
                                 PackStrategy strategy) {
  if (strategy == PackStrategy::SweepBestFit)
    return packBySweep(items);
  return packInOrder(items, strategy);
}

namespace {
/// The work the size and area orders would do: each item is compared with
/// the placed items whose lifetimes overlap its own, so in any order the
/// comparisons add up to the pairs of overlapping items, plus one per item.
/// Counted in O(n log n) from the sorted first and last steps; stops
/// counting past `limit`.
int64_t countInOrderWork(llvm::ArrayRef<PackItem> items, int64_t limit) {
  std::vector<int64_t> firsts, lasts;
  firsts.reserve(items.size());
  lasts.reserve(items.size());
  for (const PackItem &item : items) {
    firsts.push_back(item.lifetime.first);
    lasts.push_back(item.lifetime.last);
  }
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  // Item i overlaps the items that start by its last step, less those that
  // ended before its first step, less itself; each pair is counted twice.
  __int128 twicePairs = 0;
  for (const PackItem &item : items) {
    auto startedBy = std::upper_bound(firsts.begin(), firsts.end(),
                                      item.lifetime.last) -
                     firsts.begin();
    auto endedBefore = std::lower_bound(lasts.begin(), lasts.end(),
                                        item.lifetime.first) -
                       lasts.begin();
    twicePairs += startedBy - endedBefore - 1;
  }
  __int128 work = twicePairs / 2 + __int128(items.size());
  return work > limit ? limit + 1 : static_cast<int64_t>(work);
}
} // namespace

Packing mlir::remat::packOffsets(llvm::ArrayRef<PackItem> items) {
  std::optional<Packing> best;
  std::optional<Packing> overflowing;
  // Where the orders would give up past kPackWorkLimit, only the sweep runs.
  bool gaveUp = countInOrderWork(items, kPackWorkLimit) > kPackWorkLimit;
  for (PackStrategy strategy :
       {PackStrategy::GreedyBySize, PackStrategy::BestFit,
        PackStrategy::GreedyByArea, PackStrategy::SweepBestFit}) {
    // The orders meet the same overlaps: where one gives up, so would the
    // others.
    if (gaveUp && strategy != PackStrategy::SweepBestFit)
      continue;
    Packing candidate = packOffsets(items, strategy);
    gaveUp |= candidate.abandoned;
    if (candidate.complete()) {
      if (!best || candidate.arenaBytes < best->arenaBytes)
        best = std::move(candidate);
    } else if (candidate.overflows() && !overflowing) {
      overflowing = std::move(candidate);
    }
  }
  // The sweep never gives up, so a packing is complete or overflows.
  return best ? std::move(*best) : std::move(*overflowing);
}

std::optional<std::pair<size_t, size_t>>
mlir::remat::findPackingConflict(llvm::ArrayRef<PackItem> items,
                                 llvm::ArrayRef<int64_t> offsets) {
  // A valid packing is confirmed by the sweep in O(n log n); a conflict is
  // then named through the index: the first item, by index, that clashes.
  if (!hasPackingConflict(items, offsets))
    return std::nullopt;
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
