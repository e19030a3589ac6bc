//===- OffsetPackerTest.cpp - unit tests of the memory planner's packer ---===//
//
// Hand cases with known optimal packings, and random instances on which every
// strategy must produce a valid packing no smaller than the lower bound.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/OffsetPacker.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::remat;

namespace {

PackItem item(int64_t bytes, int64_t first, int64_t last, int64_t align = 1) {
  return {{bytes, first, last}, align};
}

TEST(OffsetPacker, DisjointLifetimesShareBytes) {
  std::vector<PackItem> items = {item(100, 0, 1), item(100, 2, 3),
                                 item(100, 4, 5)};
  Packing packing = packOffsets(items);
  EXPECT_EQ(packing.arenaBytes, 100);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 0, 0}));
}

TEST(OffsetPacker, ChainOfPairsNeedsTwoSlots) {
  // a-b, b-c, c-d overlap pairwise in a chain: two slots of the largest.
  std::vector<PackItem> items = {item(64, 0, 1), item(64, 1, 2), item(64, 2, 3),
                                 item(64, 3, 4)};
  Packing packing = packOffsets(items);
  EXPECT_EQ(packing.arenaBytes, 128);
  EXPECT_FALSE(findPackingConflict(items, packing.offsets));
}

TEST(OffsetPacker, SmallBuffersFillTheHoleOfALargeOne) {
  // A large buffer dies at step 1; two small ones live later fit in its
  // place next to a long-lived one: optimal arena 300.
  std::vector<PackItem> items = {item(200, 0, 1), item(100, 0, 5),
                                 item(100, 2, 5), item(100, 2, 5)};
  Packing packing = packOffsets(items);
  EXPECT_EQ(packing.arenaBytes, 300);
  EXPECT_EQ(getPackingLowerBound(items), 300);
  EXPECT_FALSE(findPackingConflict(items, packing.offsets));
}

TEST(OffsetPacker, AlignmentRoundsOffsetsUp) {
  std::vector<PackItem> items = {item(10, 0, 0, 256), item(10, 0, 0, 256)};
  Packing packing = packOffsets(items);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 256}));
  EXPECT_EQ(packing.arenaBytes, 266);
}

TEST(OffsetPacker, BestFitTakesTheTightestGap) {
  // Placed by first use: A@0, B@100, C@200, D@250. At step 2 only B and D
  // are live, leaving gaps of 100 bytes at 0 and 50 bytes at 200; a 50-byte
  // buffer goes into the 50-byte gap (greedy-by-size would take offset 0).
  std::vector<PackItem> items = {item(100, 0, 1), item(100, 0, 3),
                                 item(50, 0, 1), item(50, 0, 3),
                                 item(50, 2, 2)};
  Packing packing = packOffsets(items, PackStrategy::BestFit);
  EXPECT_FALSE(findPackingConflict(items, packing.offsets));
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 100, 200, 250, 200}));
}

TEST(OffsetPacker, ConflictsAreFound) {
  std::vector<PackItem> items = {item(100, 0, 2), item(100, 1, 3)};
  EXPECT_EQ(findPackingConflict(items, {0, 50}),
            std::make_pair(size_t(0), size_t(1)));
  EXPECT_FALSE(findPackingConflict(items, {0, 100}));
  std::vector<PackItem> aligned = {item(10, 0, 0, 256)};
  EXPECT_EQ(findPackingConflict(aligned, {8}),
            std::make_pair(size_t(0), size_t(0)));
}

/// Random instances: lifetimes within 200 steps, sizes from 1 byte to 1 MB,
/// alignment 1 or 256.
std::vector<PackItem> randomInstance(std::mt19937_64 &rng) {
  std::uniform_int_distribution<int> count(1, 60);
  std::uniform_int_distribution<int64_t> step(0, 199), span(0, 40),
      bytes(1, 1 << 20), coin(0, 1);
  std::vector<PackItem> items(count(rng));
  for (PackItem &it : items) {
    int64_t first = step(rng);
    it = item(bytes(rng), first, std::min<int64_t>(199, first + span(rng)),
              coin(rng) ? 256 : 1);
  }
  return items;
}

TEST(OffsetPacker, RandomInstancesAreValid) {
  std::mt19937_64 rng(20261129);
  for (int instance = 0; instance < 3000; ++instance) {
    std::vector<PackItem> items = randomInstance(rng);
    int64_t bound = getPackingLowerBound(items);
    for (PackStrategy strategy :
         {PackStrategy::GreedyBySize, PackStrategy::BestFit,
          PackStrategy::GreedyByArea, PackStrategy::SweepBestFit}) {
      Packing packing = packOffsets(items, strategy);
      ASSERT_FALSE(findPackingConflict(items, packing.offsets))
          << "instance " << instance << " with "
          << stringifyPackStrategy(strategy).str();
      ASSERT_GE(packing.arenaBytes, bound);
      for (size_t i = 0; i < items.size(); ++i)
        ASSERT_LE(packing.offsets[i] + items[i].lifetime.bytes,
                  packing.arenaBytes);
    }
    EXPECT_LE(packOffsets(items).arenaBytes,
              packOffsets(items, PackStrategy::GreedyBySize).arenaBytes);
  }
}

/// findPackingConflict by checking every pair, as the index must agree.
std::optional<std::pair<size_t, size_t>>
findConflictByEveryPair(const std::vector<PackItem> &items,
                        const std::vector<int64_t> &offsets) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] < 0 || offsets[i] % std::max<int64_t>(items[i].alignment, 1))
      return std::make_pair(i, i);
    for (size_t j = i + 1; j < items.size(); ++j) {
      const Lifetime &a = items[i].lifetime, &b = items[j].lifetime;
      if (!a.overlaps(b) || a.bytes == 0 || b.bytes == 0)
        continue;
      if (offsets[i] < offsets[j] + b.bytes &&
          offsets[j] < offsets[i] + a.bytes)
        return std::make_pair(i, j);
    }
  }
  return std::nullopt;
}

TEST(OffsetPacker, ConflictsFoundThroughTheIndexMatchEveryPair) {
  std::mt19937_64 rng(20261201);
  std::uniform_int_distribution<int64_t> offset(0, 4 << 20);
  int conflicts = 0;
  for (int instance = 0; instance < 2000; ++instance) {
    std::vector<PackItem> items = randomInstance(rng);
    std::vector<int64_t> offsets = packOffsets(items).offsets;
    // Move a few items to random offsets (some unaligned, some clashing).
    for (size_t i = 0; i < items.size(); i += 7)
      offsets[i] = offset(rng);
    auto expected = findConflictByEveryPair(items, offsets);
    ASSERT_EQ(findPackingConflict(items, offsets), expected)
        << "instance " << instance;
    conflicts += expected.has_value();
  }
  EXPECT_GT(conflicts, 100);
}

TEST(OffsetPacker, ALongChainPacksIntoTwoSlots) {
  // 200,000 buffers, each live for two steps: every strategy reuses two
  // slots, found through the index without comparing every pair.
  std::vector<PackItem> items;
  for (int64_t i = 0; i < 200000; ++i)
    items.push_back(item(1000, i, i + 1));
  Packing packing = packOffsets(items);
  EXPECT_EQ(packing.arenaBytes, 2000);
  EXPECT_FALSE(findPackingConflict(items, packing.offsets));
}

TEST(OffsetPacker, ManyLongLivedBuffersPackThroughTheSweep) {
  // A training step's shape: 100,000 activations, each kept from its
  // forward step until its backward step (nested lifetimes, all live at
  // the middle), with a short temporary per step. Comparing each buffer
  // with those live beside it is quadratic, so the size and area orders
  // give up; the sweep packs every buffer at the lower bound.
  std::vector<PackItem> items;
  const int64_t layers = 50000;
  for (int64_t i = 0; i < layers; ++i) {
    items.push_back(item(256 * (1 + i % 7), i, 2 * layers - i, 256));
    items.push_back(item(512, i, i, 256));
  }
  EXPECT_TRUE(packOffsets(items, PackStrategy::GreedyBySize).abandoned);
  Packing packing = packOffsets(items);
  EXPECT_EQ(packing.strategy, PackStrategy::SweepBestFit);
  EXPECT_TRUE(packing.complete());
  EXPECT_EQ(packing.arenaBytes, getPackingLowerBound(items));
  EXPECT_FALSE(findPackingConflict(items, packing.offsets));
}

TEST(OffsetPacker, SweepReusesTheTightestFreedGap) {
  // Steps 0-1: a (100 bytes) and b (40) live; a dies; at step 2 d (60,
  // the larger) goes into a's freed 100 bytes at offset 0 rather than above
  // b, and c (40) into the rest of that gap.
  std::vector<PackItem> items = {item(100, 0, 1), item(40, 0, 3),
                                 item(40, 2, 3), item(60, 2, 3)};
  Packing packing = packOffsets(items, PackStrategy::SweepBestFit);
  EXPECT_EQ(packing.arenaBytes, 140);
  EXPECT_EQ(packing.offsets, (std::vector<int64_t>{0, 100, 60, 0}));
  EXPECT_FALSE(findPackingConflict(items, packing.offsets));
}

TEST(OffsetPacker, Deterministic) {
  std::mt19937_64 rng(7);
  std::vector<PackItem> items = randomInstance(rng);
  EXPECT_EQ(packOffsets(items).offsets, packOffsets(items).offsets);
}

TEST(OffsetPacker, OffsetsBeyondInt64AreReportedNotWrapped) {
  // Three 6.2e18-byte buffers live at once: the second would end beyond
  // INT64_MAX under every strategy; none is placed over another.
  constexpr int64_t kHuge = 6'200'000'000'000'000'000;
  std::vector<PackItem> items = {item(kHuge, 0, 2), item(kHuge, 0, 2),
                                 item(kHuge, 0, 2)};
  for (PackStrategy strategy :
       {PackStrategy::GreedyBySize, PackStrategy::BestFit,
        PackStrategy::GreedyByArea, PackStrategy::SweepBestFit}) {
    Packing packing = packOffsets(items, strategy);
    EXPECT_TRUE(packing.overflows()) << stringifyPackStrategy(strategy).str();
  }
  Packing packing = packOffsets(items);
  ASSERT_TRUE(packing.overflows());
  EXPECT_EQ(packing.arenaBytes, INT64_MAX);
  EXPECT_EQ(getPackingLowerBound(items), INT64_MAX);
  // Alignment padding alone can push an end out of range.
  std::vector<PackItem> padded = {item(INT64_MAX - 10, 0, 0),
                                  item(1, 0, 0, 256)};
  EXPECT_TRUE(packOffsets(padded).overflows());
  // Disjoint lifetimes share offset 0 however large.
  std::vector<PackItem> disjoint = {item(kHuge, 0, 0), item(kHuge, 1, 1),
                                    item(kHuge, 2, 2)};
  Packing shared = packOffsets(disjoint);
  EXPECT_FALSE(shared.overflows());
  EXPECT_EQ(shared.arenaBytes, kHuge);
  // The conflict check does not wrap either.
  EXPECT_EQ(findPackingConflict(items, {0, INT64_MAX - 5, 0}),
            std::make_pair(size_t(0), size_t(2)));
}

} // namespace
