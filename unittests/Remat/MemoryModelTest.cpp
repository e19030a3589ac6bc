//===- MemoryModelTest.cpp - unit tests of the live-bytes sweep -----------===//

#include "remat/Remat/MemoryModel.h"

#include "gtest/gtest.h"

using namespace mlir::remat;

namespace {

TEST(LiveProfile, ArgumentsPlusBuffersAtEachStep) {
  // Step 0 defines a (100) used at step 2; step 1 defines b (50) used at 1;
  // step 2 defines c (10), a result live to the end (step 3).
  std::vector<Lifetime> buffers = {{100, 0, 2}, {50, 1, 1}, {10, 2, 3}};
  LiveProfile profile = computeLiveProfile(1000, buffers, 4);
  EXPECT_EQ(profile.liveBytes, (std::vector<int64_t>{1100, 1150, 1110, 1010}));
  EXPECT_EQ(profile.peakBytes, 1150);
  EXPECT_EQ(profile.peakStep, 1);
}

TEST(LiveProfile, FirstStepOfATiedPeak) {
  std::vector<Lifetime> buffers = {{7, 0, 0}, {7, 2, 2}};
  LiveProfile profile = computeLiveProfile(0, buffers, 3);
  EXPECT_EQ(profile.peakBytes, 7);
  EXPECT_EQ(profile.peakStep, 0);
}

TEST(LiveProfile, EmptySchedule) {
  LiveProfile profile = computeLiveProfile(42, {}, 0);
  EXPECT_EQ(profile.peakBytes, 42);
  EXPECT_EQ(profile.peakStep, -1);
  EXPECT_TRUE(profile.liveBytes.empty());
}

TEST(LiveProfile, OverflowIsReportedNotWrapped) {
  // Three 6.2e18-byte buffers live at step 1: the sum leaves int64 there.
  constexpr int64_t kHuge = 6'200'000'000'000'000'000;
  std::vector<Lifetime> buffers = {{kHuge, 0, 1}, {kHuge, 1, 2}, {kHuge, 1, 1}};
  LiveProfile profile = computeLiveProfile(0, buffers, 3);
  EXPECT_TRUE(profile.overflows());
  EXPECT_EQ(profile.overflowStep, 1);
  EXPECT_EQ(profile.liveBytes, (std::vector<int64_t>{kHuge}));
  // Arguments count too.
  EXPECT_EQ(computeLiveProfile(kHuge, {{kHuge, 0, 0}}, 1).overflowStep, 0);
  // Large but in range: exact.
  LiveProfile fits = computeLiveProfile(1, {{INT64_MAX - 1, 0, 0}}, 1);
  EXPECT_FALSE(fits.overflows());
  EXPECT_EQ(fits.peakBytes, INT64_MAX);
}

TEST(ByteSums, CheckedAndSaturated) {
  EXPECT_EQ(addBytes(INT64_MAX - 1, 1), INT64_MAX);
  EXPECT_EQ(addBytes(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(addBytesSaturated(INT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(addBytesSaturated(3, 4), 7);
}

} // namespace
