//===- ArenaAllocator.cpp - ATen's CPU allocations, counted and lent ------===//
//
// One allocator wraps ATen's CPU allocator for the process (memory may
// outlive a run in ATen's caches). Some ATen paths require a DataPtr's
// context to be its data pointer, so allocations are looked up by address
// when freed.
//
//===----------------------------------------------------------------------===//

#include "ArenaAllocator.h"

#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>

using namespace mlir::remat;

namespace {

/// The alignment of temporaries lent from free arena bytes (ATen's own).
constexpr size_t kLoanAlignment = 64;
/// Smaller temporaries are fresh memory: they are a negligible part of the
/// bytes outside the arena, and finding free arena bytes for each would
/// cost ops with small tensors more than their kernels.
constexpr size_t kSmallestLentTemporary = size_t(64) << 10;

class ArenaAllocator final : public c10::Allocator {
public:
  explicit ArenaAllocator(c10::Allocator *base) : base(base) {}

  /// The process's allocator, installed on first use.
  static ArenaAllocator &get() {
    static ArenaAllocator *instance = [] {
      auto *allocator = new ArenaAllocator(c10::GetCPUAllocator());
      c10::SetCPUAllocator(allocator, /*priority=*/100);
      return allocator;
    }();
    return *instance;
  }

  c10::DataPtr allocate(size_t bytes) override {
    if (std::this_thread::get_id() == lendingThread) {
      std::lock_guard<std::mutex> lock(mutex);
      if (void *data = lend(bytes))
        return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
    }
    c10::DataPtr inner = base->allocate(bytes);
    void *data = inner.get();
    std::lock_guard<std::mutex> lock(mutex);
    held.emplace(data, std::make_pair(std::move(inner), bytes));
    current += bytes;
    if (current > peak) {
      peak = current;
      peakTag = tag;
    }
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void copy_data(void *dest, const void *src, size_t bytes) const override {
    default_copy_data(dest, src, bytes);
  }

  void startMeasuring() {
    std::lock_guard<std::mutex> lock(mutex);
    baseline = current;
    peak = current;
    peakTag = nullptr;
  }
  int64_t getMeasuredPeak() const {
    std::lock_guard<std::mutex> lock(mutex);
    return peak - baseline;
  }
  const void *getPeakTag() const {
    std::lock_guard<std::mutex> lock(mutex);
    return peakTag;
  }
  void setTag(const void *newTag) {
    std::lock_guard<std::mutex> lock(mutex);
    tag = newTag;
  }

  void startLending(std::vector<std::pair<size_t, void *>> resultSlots,
                    std::function<std::vector<ArenaRange>()> getFreeRanges) {
    std::lock_guard<std::mutex> lock(mutex);
    slots.clear();
    for (auto [bytes, data] : resultSlots)
      slots.push_back({bytes, static_cast<uint8_t *>(data), /*taken=*/false});
    freeRangesSource = std::move(getFreeRanges);
    freeRanges.clear();
    freeRangesKnown = false;
    lendingThread = std::this_thread::get_id();
  }

  void stopLendingSlots() {
    std::lock_guard<std::mutex> lock(mutex);
    slots.clear();
  }

  int64_t stopLending() {
    std::lock_guard<std::mutex> lock(mutex);
    lendingThread = std::thread::id();
    slots.clear();
    freeRanges.clear();
    freeRangesSource = nullptr;
    int64_t kept = 0;
    for (auto &[data, bytes] : temporaries)
      kept += int64_t(bytes);
    // Kept temporaries are forgotten: their bytes belong to the plan again.
    temporaries.clear();
    return kept;
  }

private:
  struct ResultSlot {
    size_t bytes;
    uint8_t *data;
    bool taken;
  };

  /// Arena bytes for an allocation of `bytes` on the lending thread, or
  /// nullptr.
  void *lend(size_t bytes) {
    for (ResultSlot &slot : slots) {
      if (slot.bytes != bytes || slot.taken)
        continue;
      slot.taken = true;
      ++lentSlots[slot.data];
      return slot.data;
    }
    if (bytes < kSmallestLentTemporary)
      return nullptr;
    if (!freeRangesKnown && freeRangesSource) {
      freeRanges = freeRangesSource();
      freeRangesKnown = true;
    }
    for (auto it = freeRanges.begin(); it != freeRanges.end(); ++it) {
      auto [start, size] = *it;
      uintptr_t address = reinterpret_cast<uintptr_t>(start);
      size_t padding =
          (kLoanAlignment - address % kLoanAlignment) % kLoanAlignment;
      if (padding + bytes > size)
        continue;
      uint8_t *data = start + padding;
      // What is left of the range on either side stays free.
      std::vector<ArenaRange> rest;
      if (padding > 0)
        rest.push_back({start, padding});
      if (padding + bytes < size)
        rest.push_back({data + bytes, size - padding - bytes});
      it = freeRanges.erase(it);
      freeRanges.insert(it, rest.begin(), rest.end());
      temporaries.emplace(data, bytes);
      return data;
    }
    return nullptr;
  }

  /// Gives a temporary's bytes back to the free ranges, merged with its
  /// neighbours.
  void giveBack(uint8_t *data, size_t bytes) {
    ArenaRange range{data, bytes};
    auto it = std::lower_bound(freeRanges.begin(), freeRanges.end(), range,
                               [](const ArenaRange &a, const ArenaRange &b) {
                                 return a.first < b.first;
                               });
    it = freeRanges.insert(it, range);
    auto next = std::next(it);
    if (next != freeRanges.end() && it->first + it->second == next->first) {
      it->second += next->second;
      freeRanges.erase(next);
    }
    if (it != freeRanges.begin()) {
      auto previous = std::prev(it);
      if (previous->first + previous->second == it->first) {
        previous->second += it->second;
        freeRanges.erase(it);
      }
    }
  }

  static void release(void *pointer) {
    ArenaAllocator &self = get();
    auto *data = static_cast<uint8_t *>(pointer);
    std::lock_guard<std::mutex> lock(self.mutex);
    // Arena bytes lent to a kernel: the arena owns them (its own allocation
    // may start at the same address, and must not be freed with a loan).
    auto slot = self.lentSlots.find(data);
    if (slot != self.lentSlots.end()) {
      // The slot serves the kernel's next allocation of its size, if the
      // kernel still runs.
      if (--slot->second == 0) {
        self.lentSlots.erase(slot);
        for (ResultSlot &active : self.slots)
          if (active.data == data)
            active.taken = false;
      }
      return;
    }
    auto temporary = self.temporaries.find(data);
    if (temporary != self.temporaries.end()) {
      if (self.freeRangesKnown)
        self.giveBack(data, temporary->second);
      self.temporaries.erase(temporary);
      return;
    }
    auto it = self.held.find(data);
    if (it == self.held.end())
      return;
    self.current -= it->second.second;
    self.held.erase(it);
  }

  c10::Allocator *base;
  mutable std::mutex mutex;
  /// Memory from the base allocator, by address, with its size.
  std::unordered_map<void *, std::pair<c10::DataPtr, size_t>> held;
  int64_t current = 0;
  int64_t peak = 0;
  int64_t baseline = 0;
  /// The tag of allocations now, and the one when the peak was reached.
  const void *tag = nullptr;
  const void *peakTag = nullptr;

  std::atomic<std::thread::id> lendingThread{std::thread::id()};
  std::vector<ResultSlot> slots;
  /// Result slots lent and not yet freed (a result outlives the kernel),
  /// with how many times.
  std::unordered_map<uint8_t *, int> lentSlots;
  std::function<std::vector<ArenaRange>()> freeRangesSource;
  /// Free arena bytes while the op runs, by address, not lent.
  std::vector<ArenaRange> freeRanges;
  bool freeRangesKnown = false;
  /// Temporaries lent from the free ranges and not yet freed.
  std::unordered_map<uint8_t *, size_t> temporaries;
};

} // namespace

KernelLoans::KernelLoans(
    std::vector<std::pair<size_t, void *>> resultSlots,
    std::function<std::vector<ArenaRange>()> getFreeRanges) {
  ArenaAllocator::get().startLending(std::move(resultSlots),
                                     std::move(getFreeRanges));
}

KernelLoans::~KernelLoans() { finish(); }

void KernelLoans::stopLendingSlots() {
  if (active)
    ArenaAllocator::get().stopLendingSlots();
}

int64_t KernelLoans::finish() {
  if (!active)
    return 0;
  active = false;
  return ArenaAllocator::get().stopLending();
}

OutsideArenaScope::OutsideArenaScope() {
  ArenaAllocator::get().startMeasuring();
}

int64_t OutsideArenaScope::getPeak() const {
  return ArenaAllocator::get().getMeasuredPeak();
}

const void *OutsideArenaScope::getPeakTag() const {
  return ArenaAllocator::get().getPeakTag();
}

void mlir::remat::setAllocationTag(const void *tag) {
  ArenaAllocator::get().setTag(tag);
}
