//===- ReportTest.cpp - the HTML page and the sweep chart
//------------------===//

#include "remat/Report/StepReport.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <limits>

using namespace mlir::remat;

namespace {

StepReport makeReport() {
  StepReport report;
  report.function = "step";
  report.budgetBytes = 1000;
  report.argumentBytes = 400;
  report.arenaBytes = 800;
  report.peakBytesAfter = 900;
  report.peakOp = "d";
  report.liveBytesAfter = {900};
  OpRecord op;
  op.name = "d";
  report.ops.push_back(op);
  return report;
}

std::string getHtml(const StepReport &report) {
  std::string html;
  llvm::raw_string_ostream os(html);
  writeReportHtml(os, {report});
  return html;
}

TEST(ReportTest, ArgumentsAndArenaAgainstTheBudgetUnderFitArena) {
  std::string html = getHtml(makeReport());
  EXPECT_NE(html.find("<tr><th>Arguments + arena</th><td><span title=\"1200 "
                      "bytes\">1.17 KiB</span> <span class=\"over\">over the "
                      "budget</span>"),
            std::string::npos);
}

TEST(ReportTest, PeakAgainstTheBudgetWithoutFitArena) {
  StepReport report = makeReport();
  report.fitArena = false;
  std::string html = getHtml(report);
  // The peak (900 B) is within the budget (1000 B); arguments + arena is no
  // verdict.
  EXPECT_NE(html.find("(the budget limits it: fit-arena=false)</th><td><span "
                      "title=\"900 bytes\">900 B</span> at d <span "
                      "class=\"fits\">within the budget</span>"),
            std::string::npos);
  EXPECT_EQ(html.find("over the budget"), std::string::npos);
}

TEST(ReportTest, ArgumentsAndArenaBeyondInt64) {
  StepReport report = makeReport();
  report.budgetBytes.reset();
  report.argumentBytes = std::numeric_limits<int64_t>::max();
  report.arenaBytes = 1;
  std::string html = getHtml(report);
  EXPECT_NE(html.find("<tr><th>Arguments + arena</th><td>beyond int64</td>"),
            std::string::npos);
}

TEST(ReportTest, SweepClampsANegativeExtraTime) {
  std::vector<SweepChartPoint> points(2);
  points[0].budgetBytes = 1000;
  points[0].fits = true;
  points[0].extraTime = -1e-4;
  points[0].solver = "greedy";
  points[1].budgetBytes = 2000;
  points[1].fits = true;
  points[1].extraTime = 0.05;
  points[1].solver = "greedy";
  std::string svg;
  llvm::raw_string_ostream os(svg);
  writeSweepSvg(os, "sweep", points);
  EXPECT_EQ(svg.find("+-"), std::string::npos);
  EXPECT_NE(svg.find("bytes): +0% time"), std::string::npos);
}

} // namespace
