//===- CostModelTest.cpp - unit tests of the cost model -------------------===//
//
// The estimate max(FLOPs / rate, bytes / bandwidth) / fill + launch, the
// saturation and its overrides, measured overrides by name and by kind, and
// given graph costs.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"
#include "remat/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::remat;

namespace {

TEST(DeviceProfiles, EveryProfileHasASource) {
  ASSERT_EQ(getDeviceProfiles().size(), 5u);
  for (const DeviceProfile &profile : getDeviceProfiles()) {
    EXPECT_FALSE(profile.source.empty()) << profile.name.str();
    EXPECT_GT(profile.flopsPerSecond, 0);
    EXPECT_GT(profile.bytesPerSecond, 0);
    EXPECT_GT(profile.saturationFlops, 0);
    EXPECT_GT(profile.saturationBytes, 0);
    EXPECT_FALSE(profile.saturationSource.empty()) << profile.name.str();
    EXPECT_EQ(findDeviceProfile(profile.name), &profile);
  }
  EXPECT_EQ(findDeviceProfile("tpu"), nullptr);
}

TEST(CostModel, EstimateIsTheSlowerOfComputeAndMemory) {
  DeviceProfile device{"test", "", 1.0e12, 1.0e9, 1.0e-6, "unit test"};
  CostModel model(device);
  // Compute-bound: 1e9 FLOPs take 1 ms, 1 KB 1 us.
  EXPECT_DOUBLE_EQ(model.estimateSeconds(1000000000, 1000), 1.0e-3 + 1.0e-6);
  // Memory-bound: 1 MB takes 1 ms.
  EXPECT_DOUBLE_EQ(model.estimateSeconds(1000, 1000000), 1.0e-3 + 1.0e-6);
}

TEST(CostModel, SmallOpsRunBelowPeak) {
  DeviceProfile device{"test",      "",    1.0e12, 1.0e9, 1.0e-6,
                       "unit test", 1.0e9, 1.0e6,  0.0,   "unit test"};
  CostModel model(device);
  // At or above saturation: the peak rate.
  EXPECT_DOUBLE_EQ(model.getComputeFill(1000000000), 1.0);
  EXPECT_DOUBLE_EQ(model.estimateSeconds(2000000000, 1000000), 2.0e-3 + 1.0e-6);
  // A quarter of the saturating FLOPs runs at a quarter of peak: as long as
  // an op that just saturates the device.
  EXPECT_DOUBLE_EQ(model.getComputeFill(250000000), 0.25);
  EXPECT_DOUBLE_EQ(model.estimateSeconds(250000000, 0), 1.0e-3 + 1.0e-6);
  // Bytes fill the memory system on their own: half the saturating bytes
  // run at half the bandwidth, whatever the FLOPs.
  EXPECT_DOUBLE_EQ(model.getMemoryFill(500000), 0.5);
  EXPECT_DOUBLE_EQ(model.estimateSeconds(0, 500000), 1.0e-3 + 1.0e-6);
  // The slower resource at its own fill: 1e8 FLOPs take 1 ms at fill 0.1,
  // 2e6 bytes take 2 ms at full bandwidth.
  EXPECT_DOUBLE_EQ(model.estimateSeconds(100000000, 2000000), 2.0e-3 + 1.0e-6);
  // So k small ops cost more than one op of k times the work.
  EXPECT_GT(4 * model.estimateSeconds(250000000, 1000),
            model.estimateSeconds(1000000000, 4000) + 3 * 1.0e-6);
  // No work: the launch alone.
  EXPECT_DOUBLE_EQ(model.estimateSeconds(0, 0), 1.0e-6);
}

TEST(CostModel, MinimumFillBoundsTheSlowdown) {
  DeviceProfile device{"test",      "",    1.0e12, 1.0e9, 0.0,
                       "unit test", 1.0e9, 1.0e6,  0.5,   "unit test"};
  CostModel model(device);
  EXPECT_DOUBLE_EQ(model.getComputeFill(1000), 0.5);
  EXPECT_DOUBLE_EQ(model.getComputeFill(750000000), 0.75);
  EXPECT_DOUBLE_EQ(model.getMemoryFill(10), 0.5);
  EXPECT_DOUBLE_EQ(model.getMemoryFill(2000000), 1.0);
}

/// The devices and overrides the properties below are checked on: every
/// profile, a saturation of one resource only, and a minimum fill.
static std::vector<CostModel> getModelsUnderTest() {
  std::vector<CostModel> models;
  for (const DeviceProfile &profile : getDeviceProfiles()) {
    models.emplace_back(profile);
    MeasuredProfile flopsOnly, bytesOnly, filled;
    flopsOnly[kSaturationBytesKey] = 0.0;
    bytesOnly[kSaturationFlopsKey] = 0.0;
    filled[kMinimumFillKey] = 0.25;
    models.emplace_back(profile, std::move(flopsOnly));
    models.emplace_back(profile, std::move(bytesOnly));
    models.emplace_back(profile, std::move(filled));
  }
  return models;
}

/// Work from 1 to past every saturation, in steps of ~1%, and the points on
/// either side of each kink.
static std::vector<int64_t> getWorkPoints() {
  std::vector<int64_t> points{0};
  for (double work = 1.0; work < 1.0e12; work *= 1.01)
    points.push_back(static_cast<int64_t>(work));
  llvm::sort(points);
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

TEST(CostModel, EstimateNeverFallsWithMoreWork) {
  std::vector<int64_t> points = getWorkPoints();
  for (const CostModel &model : getModelsUnderTest()) {
    for (int64_t other : {int64_t(0), int64_t(1), int64_t(100000),
                          int64_t(2500000), int64_t(1000000000)}) {
      double lastByFlops = 0.0, lastByBytes = 0.0;
      for (int64_t work : points) {
        double byFlops = model.estimateSeconds(work, other);
        double byBytes = model.estimateSeconds(other, work);
        EXPECT_GE(byFlops, lastByFlops)
            << model.getDevice().name.str() << " flops " << work;
        EXPECT_GE(byBytes, lastByBytes)
            << model.getDevice().name.str() << " bytes " << work;
        lastByFlops = byFlops;
        lastByBytes = byBytes;
      }
    }
  }
  // The review's cases: more bytes never make an op faster, and one byte
  // where FLOPs are not modelled costs the byte's time, not the FLOPs'
  // divided by the bytes' occupancy.
  CostModel gtx(*findDeviceProfile("gtx970m"));
  EXPECT_LE(gtx.estimateSeconds(2500000, 100000),
            gtx.estimateSeconds(2500000, 110000));
  MeasuredProfile bytesOnly;
  bytesOnly[kSaturationFlopsKey] = 0.0;
  CostModel gtxBytes(*findDeviceProfile("gtx970m"), std::move(bytesOnly));
  // One byte: the saturating bytes' time, 655,360 B / 120 GB/s.
  EXPECT_DOUBLE_EQ(gtxBytes.estimateSeconds(2660, 1),
                   655360.0 / 120.0e9 + 10.0e-6);
}

TEST(CostModel, EstimateIsContinuousForPositiveWork) {
  // Between neighbouring points 1% apart, the estimate moves by at most 1%
  // of its value: no jump at a saturation or a minimum fill.
  std::vector<int64_t> points = getWorkPoints();
  for (const CostModel &model : getModelsUnderTest()) {
    for (int64_t other : {int64_t(0), int64_t(1), int64_t(2500000)}) {
      for (size_t i = 2; i < points.size(); ++i) {
        if (points[i] < 1000)
          continue; // integer rounding of the points dominates below
        for (bool flops : {true, false}) {
          auto at = [&](int64_t work) {
            return flops ? model.estimateSeconds(work, other)
                         : model.estimateSeconds(other, work);
          };
          double before = at(points[i - 1]), after = at(points[i]);
          double ratio = static_cast<double>(points[i]) / points[i - 1];
          EXPECT_LE(after, before * ratio * (1 + 1e-12))
              << model.getDevice().name.str() << (flops ? " flops " : " bytes ")
              << points[i];
        }
      }
    }
  }
}

TEST(CostModel, MeasuredProfileOverridesTheSaturation) {
  MeasuredProfile measured;
  measured[kSaturationFlopsKey] = 0.0;
  measured[kSaturationBytesKey] = 4.0e6;
  measured[kMinimumFillKey] = 0.125;
  CostModel model(*findDeviceProfile("h200"), std::move(measured));
  EXPECT_EQ(model.getSaturation().flops, 0.0);
  EXPECT_EQ(model.getSaturation().bytes, 4.0e6);
  EXPECT_EQ(model.getSaturation().minimumFill, 0.125);
  // FLOPs not modelled: they run at peak, whatever their count.
  EXPECT_DOUBLE_EQ(model.getComputeFill(1000000000), 1.0);
  EXPECT_DOUBLE_EQ(model.getComputeFill(1), 1.0);
  // Bytes against the profile's saturation, bounded by its minimum fill.
  EXPECT_DOUBLE_EQ(model.getMemoryFill(1000000), 0.25);
  EXPECT_DOUBLE_EQ(model.getMemoryFill(1), 0.125);
  EXPECT_DOUBLE_EQ(model.getMemoryFill(8000000), 1.0);
}

TEST(CostModel, NoSaturationIsThePeakRate) {
  DeviceProfile device{"test", "", 1.0e12, 1.0e9, 0.0, "unit test"};
  CostModel model(device);
  EXPECT_DOUBLE_EQ(model.getComputeFill(1), 1.0);
  EXPECT_DOUBLE_EQ(model.getMemoryFill(1), 1.0);
  EXPECT_DOUBLE_EQ(model.estimateSeconds(1000, 1000), 1.0e-6);
  // Work only of a kind that is not modelled runs at peak.
  MeasuredProfile measured;
  measured[kSaturationFlopsKey] = 0.0;
  CostModel bytesOnly(*findDeviceProfile("gtx970m"), std::move(measured));
  EXPECT_DOUBLE_EQ(bytesOnly.estimateSeconds(2660, 0), 1.0e-9 + 10.0e-6);
}

class CostModelIRTest : public ::testing::Test {
protected:
  CostModelIRTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(R"mlir(
      func.func @f(%x: tensor<256xf32>) -> tensor<256xf32> {
        %a = nn.relu %x {remat.name = "a"} : tensor<256xf32>
        %b = nn.relu %a {remat.name = "b"} : tensor<256xf32>
        %c = nn.relu %b {remat.name = "micro1.b.2", remat.micro_step = 1 : i64, remat.micro_origin = "b"} : tensor<256xf32>
        %d = nn.relu %c {remat.name = "micro2.a", remat.micro_step = 2 : i64, remat.micro_origin = "a"} : tensor<256xf32>
        %g = remat.graph_node() {cost = 7.5 : f64} : () -> tensor<4xi8>
        %e = nn.relu %d {remat.name = "micro1.b"} : tensor<256xf32>
        return %b : tensor<256xf32>
      })mlir",
                                         &context);
    for (Operation &op : module->lookupSymbol<FunctionOpInterface>("f")
                             .getFunctionBody()
                             .front())
      ops.push_back(&op);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::vector<Operation *> ops;
};

TEST_F(CostModelIRTest, EstimatesFromTheInterface) {
  CostModel model(*findDeviceProfile("gtx970m"));
  FailureOr<OpCost> cost = model.getCost(ops[0]);
  ASSERT_TRUE(succeeded(cost));
  EXPECT_EQ(cost->flops, 256);
  EXPECT_EQ(cost->bytesMoved, 2048);
  EXPECT_EQ(cost->unit, CostUnit::Seconds);
  EXPECT_DOUBLE_EQ(cost->cost, model.estimateSeconds(256, 2048));
}

TEST_F(CostModelIRTest, MeasuredTimesOverrideByNameThenKind) {
  MeasuredProfile measured;
  measured["nn.relu"] = 0.25;
  measured["b"] = 4.0;
  CostModel model(*findDeviceProfile("h200"), std::move(measured));
  EXPECT_DOUBLE_EQ(model.getCost(ops[0])->cost, 0.25);
  EXPECT_DOUBLE_EQ(model.getCost(ops[1])->cost, 4.0);
}

TEST_F(CostModelIRTest, MicroStepCopiesTakeTheirOpsTime) {
  MeasuredProfile measured;
  measured["b"] = 4.0;
  measured["micro2.a"] = 0.5;
  measured["nn.relu"] = 0.25;
  CostModel model(*findDeviceProfile("h200"), std::move(measured));
  // micro1.b.2 (a copy of b renamed unique) has no time of its own:
  // micro-step 0's b, named by its remat.micro_origin.
  EXPECT_DOUBLE_EQ(model.getCost(ops[2])->cost, 4.0);
  // A time of its own comes first.
  EXPECT_DOUBLE_EQ(model.getCost(ops[3])->cost, 0.5);
  // An op of the model's own module `micro1` (no remat.micro_origin) is not
  // a copy of b, however it is named: the time of its kind.
  EXPECT_DOUBLE_EQ(model.getCost(ops[5])->cost, 0.25);
}

TEST_F(CostModelIRTest, GraphNodesKeepTheirGivenCost) {
  CostModel model(*findDeviceProfile("h200"));
  FailureOr<OpCost> cost = model.getCost(ops[4]);
  ASSERT_TRUE(succeeded(cost));
  EXPECT_EQ(cost->unit, CostUnit::Graph);
  EXPECT_DOUBLE_EQ(cost->cost, 7.5);
}

} // namespace
