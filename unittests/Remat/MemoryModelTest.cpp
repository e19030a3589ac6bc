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

} // namespace
