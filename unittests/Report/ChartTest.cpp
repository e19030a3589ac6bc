//===- ChartTest.cpp - the charts' units, ticks and label placement -------===//

#include "Chart.h"

#include "gtest/gtest.h"

using namespace mlir::remat::chart;

namespace {

TEST(ChartTest, UnitsFollowTheTypedBudget) {
  EXPECT_EQ(getUnitsOfTyped("1.5GB"), ByteUnits::Decimal);
  EXPECT_EQ(getUnitsOfTyped("300kb"), ByteUnits::Decimal);
  EXPECT_EQ(getUnitsOfTyped("512MiB"), ByteUnits::Binary);
  // No unit: binary.
  EXPECT_EQ(getUnitsOfTyped("80%"), ByteUnits::Binary);
  EXPECT_EQ(getUnitsOfTyped("123456"), ByteUnits::Binary);
  EXPECT_EQ(getUnitsOfTyped(""), ByteUnits::Binary);
}

TEST(ChartTest, BytesInTheLargestUnitWithThreeDigits) {
  // A budget typed 1.5GB, once shown as "1.40 GiB".
  EXPECT_EQ(formatBytes(1.5e9, ByteUnits::Decimal), "1.5 GB");
  EXPECT_EQ(formatBytes(1.5e9, ByteUnits::Binary), "1.4 GiB");
  EXPECT_EQ(formatBytes(792600000, ByteUnits::Binary), "756 MiB");
  EXPECT_EQ(formatBytes(16384, ByteUnits::Decimal), "16.4 KB");
  EXPECT_EQ(formatBytes(16384, ByteUnits::Binary), "16 KiB");
  EXPECT_EQ(formatBytes(64, ByteUnits::Binary), "64 B");
  EXPECT_EQ(formatBytes(0, ByteUnits::Decimal), "0 B");
}

TEST(ChartTest, RoundingPicksTheUnitAgain) {
  // 1023.9 KiB rounds to 1024 KiB: that is 1 MiB.
  EXPECT_EQ(formatBytes(1023.9 * 1024, ByteUnits::Binary), "1 MiB");
  EXPECT_EQ(formatBytes(999.7e3, ByteUnits::Decimal), "1 MB");
  EXPECT_EQ(formatBytes(1023.6, ByteUnits::Binary), "1 KiB");
  // Below the rounding, the unit stays.
  EXPECT_EQ(formatBytes(1023.4 * 1024, ByteUnits::Binary), "1023 KiB");
  EXPECT_EQ(formatBytes(-1023.9 * 1024, ByteUnits::Binary), "-1 MiB");
}

TEST(ChartTest, ByteAxisInOneUnit) {
  // Just above one unit (1.1 MiB): every tick in MiB with one decimal, not
  // "205 KiB" next to "1.2 MiB".
  ByteAxis axis = getByteAxis(0, 1.1 * 1024 * 1024, 8, ByteUnits::Binary);
  std::vector<std::string> labels;
  for (double tick : axis.ticks)
    labels.push_back(axis.label(tick));
  EXPECT_EQ(labels,
            (std::vector<std::string>{"0", "0.2 MiB", "0.4 MiB", "0.6 MiB",
                                      "0.8 MiB", "1.0 MiB", "1.2 MiB"}));
  // Decimal units as typed.
  axis = getByteAxis(0, 1.05e6, 8, ByteUnits::Decimal);
  EXPECT_STREQ(axis.unit.symbol, "MB");
  EXPECT_EQ(axis.label(axis.ticks[1]), "0.2 MB");
  EXPECT_EQ(axis.label(axis.ticks.back()), "1.2 MB");
  // Just below one unit, with a last tick that fills it: ticks round in
  // the larger unit (0 to 1.0 MiB), not 0 to 1200 KiB.
  axis = getByteAxis(0, 1020 * 1024, 8, ByteUnits::Binary);
  EXPECT_STREQ(axis.unit.symbol, "MiB");
  EXPECT_EQ(axis.label(axis.ticks.back()), "1.0 MiB");
  // Whole steps: no decimals.
  axis = getByteAxis(0, 31539, 8, ByteUnits::Decimal);
  EXPECT_EQ(axis.label(axis.ticks[1]), "5 KB");
  EXPECT_EQ(axis.label(axis.ticks.back()), "35 KB");
  // A range not from zero (the sweep chart's budgets).
  axis = getByteAxis(157000, 270540, 6, ByteUnits::Binary);
  EXPECT_EQ(axis.label(axis.ticks.front()), "140 KiB");
  EXPECT_EQ(axis.label(axis.ticks.back()), "280 KiB");
}

TEST(ChartTest, RoundTicks) {
  // 0 to 31.5 KB in at most 8 steps: every 5 KB, up to 35 KB.
  std::vector<double> ticks = getRoundTicks(31539, 8, 1000);
  ASSERT_EQ(ticks.size(), 8u);
  EXPECT_DOUBLE_EQ(ticks[1], 5000);
  EXPECT_DOUBLE_EQ(ticks.back(), 35000);
  // 0 to 1.63 GB: every 0.2 GB (2 x 10^-1 of the unit) in at most 9
  // intervals, every 0.5 GB in at most 8.
  ticks = getRoundTicks(1.63e9, 9, 1e9);
  EXPECT_DOUBLE_EQ(ticks[1], 0.2e9);
  EXPECT_DOUBLE_EQ(ticks.back(), 1.8e9);
  ticks = getRoundTicks(1.63e9, 8, 1e9);
  EXPECT_DOUBLE_EQ(ticks[1], 0.5e9);
  EXPECT_DOUBLE_EQ(ticks.back(), 2e9);
  // A range: from the step at or below the low end.
  ticks = getRoundTicks(157000, 270540, 6, 1024);
  EXPECT_DOUBLE_EQ(ticks.front(), 140 * 1024);
  EXPECT_DOUBLE_EQ(ticks[1], 160 * 1024);
  EXPECT_DOUBLE_EQ(ticks.back(), 280 * 1024);
  // Op indices are whole.
  ticks = getRoundTicks(2, 10);
  ASSERT_EQ(ticks.size(), 3u);
  EXPECT_DOUBLE_EQ(ticks[1], 1);
  // An empty range still has an interval.
  EXPECT_EQ(getRoundTicks(0, 10).size(), 2u);
}

TEST(ChartTest, LabelsAvoidEachOther) {
  LabelPlacer labels(Box{0, 0, 400, 200});
  Label first = labels.place("budget 1.5 GB", 11, {{390, 100, "end", {}}});
  // The same spot is taken: the second candidate is used.
  Label second = labels.place("peak 1.2 GB", 11,
                              {{390, 100, "end", {}}, {390, 130, "end", {}}});
  EXPECT_FALSE(first.box.overlaps(second.box));
  EXPECT_DOUBLE_EQ(second.y, 130);
  // Out of bounds candidates are skipped.
  Label third = labels.place("x", 11,
                             {{500, 50, "start", {}}, {10, 50, "start", {}}});
  EXPECT_DOUBLE_EQ(third.x, 10);
}

TEST(ChartTest, Escape) {
  EXPECT_EQ(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

} // namespace
