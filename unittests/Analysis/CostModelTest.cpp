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
  DeviceProfile device{"test", "",  1.0e12, 1.0e9, 1.0e-6, "unit test",
                       1.0e9,  1.0e6, 0.0,   "unit test"};
  CostModel model(device);
  // At or above saturation: the peak rate.
  EXPECT_DOUBLE_EQ(model.getFill(1000000000, 1000), 1.0);
  EXPECT_DOUBLE_EQ(model.estimateSeconds(2000000000, 1000), 2.0e-3 + 1.0e-6);
  // A quarter of the saturating FLOPs runs at a quarter of peak: as long as
  // an op that just saturates the device.
  EXPECT_DOUBLE_EQ(model.getFill(250000000, 1000), 0.25);
  EXPECT_DOUBLE_EQ(model.estimateSeconds(250000000, 1000), 1.0e-3 + 1.0e-6);
  // Bytes occupy the device too: the larger occupancy counts.
  EXPECT_DOUBLE_EQ(model.getFill(1000, 500000), 0.5);
  // So k small ops cost more than one op of k times the work.
  EXPECT_GT(4 * model.estimateSeconds(250000000, 1000),
            model.estimateSeconds(1000000000, 4000) + 3 * 1.0e-6);
  // No work: the launch alone.
  EXPECT_DOUBLE_EQ(model.estimateSeconds(0, 0), 1.0e-6);
}

TEST(CostModel, MinimumFillBoundsTheSlowdown) {
  DeviceProfile device{"test", "",  1.0e12, 1.0e9, 0.0, "unit test",
                       1.0e9,  1.0e6, 0.5,   "unit test"};
  CostModel model(device);
  EXPECT_DOUBLE_EQ(model.getFill(1000, 10), 0.5);
  EXPECT_DOUBLE_EQ(model.getFill(750000000, 10), 0.75);
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
  // FLOPs not modelled: they occupy nothing beyond the minimum fill.
  EXPECT_DOUBLE_EQ(model.getFill(1000000000, 0), 0.125);
  EXPECT_DOUBLE_EQ(model.getFill(0, 1000000), 0.25);
  EXPECT_DOUBLE_EQ(model.getFill(0, 1), 0.125);
}

TEST(CostModel, NoSaturationIsThePeakRate) {
  DeviceProfile device{"test", "", 1.0e12, 1.0e9, 0.0, "unit test"};
  CostModel model(device);
  EXPECT_DOUBLE_EQ(model.getFill(1, 1), 1.0);
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
        %g = remat.graph_node() {cost = 7.5 : f64} : () -> tensor<4xi8>
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

TEST_F(CostModelIRTest, GraphNodesKeepTheirGivenCost) {
  CostModel model(*findDeviceProfile("h200"));
  FailureOr<OpCost> cost = model.getCost(ops[2]);
  ASSERT_TRUE(succeeded(cost));
  EXPECT_EQ(cost->unit, CostUnit::Graph);
  EXPECT_DOUBLE_EQ(cost->cost, 7.5);
}

} // namespace
