//===- CostModel.h - what an op costs to run ---------------------*- C++ -*-===//
//
// Turns the per-op facts of the cost op interface into a cost: the estimated
// time on a device, max(FLOPs / peak rate, bytes / bandwidth) + launch cost,
// from a table of device profiles; or a measured time from a profile file;
// or, for the ops of an imported benchmark graph, the cost the graph gives.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_COSTMODEL_H
#define REMAT_ANALYSIS_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::remat {

/// The throughput of one device, for the estimate.
struct DeviceProfile {
  StringRef name;
  StringRef description;
  /// Peak floating-point rate (FLOP/s) for the step's arithmetic (fp32).
  double flopsPerSecond;
  /// Peak memory bandwidth (bytes/s).
  double bytesPerSecond;
  /// Fixed cost of launching one op (s).
  double launchSeconds;
  /// Where the numbers come from.
  StringRef source;
};

/// Every known profile, in a fixed order.
ArrayRef<DeviceProfile> getDeviceProfiles();

/// The profile named `name`, or nullptr.
const DeviceProfile *findDeviceProfile(StringRef name);

/// The profile named `name`; emits an error at `loc` listing the known
/// profiles and fails when there is none.
FailureOr<const DeviceProfile *> lookupDeviceProfile(StringRef name,
                                                     Location loc);

/// The unit of a function's costs.
enum class CostUnit {
  /// Estimated or measured seconds on a device.
  Seconds,
  /// The units of an imported benchmark graph.
  Graph,
};

StringRef stringifyCostUnit(CostUnit unit);

/// Everything the passes need to know about one op.
struct OpCost {
  int64_t flops = 0;
  int64_t bytesMoved = 0;
  int64_t workspaceBytes = 0;
  /// In the function's cost unit.
  double cost = 0.0;
  bool recomputable = true;
  CostUnit unit = CostUnit::Seconds;
};

/// Measured times: op name (`remat.name`) or op kind (`nn.conv2d`) ->
/// seconds. A name takes precedence over a kind.
using MeasuredProfile = llvm::StringMap<double>;

/// Reads a measured profile from a JSON object of numbers. Emits an error at
/// `loc` naming the file, or the key that is not a non-negative number.
FailureOr<MeasuredProfile> readMeasuredProfile(StringRef path, Location loc);

/// Parses a measured profile from `text`, the contents of the file `path`
/// (which names it in errors), as readMeasuredProfile does.
FailureOr<MeasuredProfile> parseMeasuredProfile(StringRef text, StringRef path,
                                                Location loc);

/// Checks that every key of `profile` (read from `path`) names an op under
/// `scope` (its `remat.name`) or an op kind (`nn.conv2d`): a key that names
/// neither, a typo or a profile of another step, would silently leave its op
/// to the estimate. Emits an error at `loc` with the key and the nearest
/// names, and fails.
LogicalResult checkMeasuredProfileKeys(const MeasuredProfile &profile,
                                       Operation *scope, StringRef path,
                                       Location loc);

class CostModel {
public:
  explicit CostModel(const DeviceProfile &device,
                     MeasuredProfile measured = {})
      : device(device), measured(std::move(measured)) {}

  const DeviceProfile &getDevice() const { return device; }

  /// The cost of `op`; emits an error and fails when `op` implements no cost
  /// interface (and so cannot be planned).
  FailureOr<OpCost> getCost(Operation *op) const;

  /// The estimated seconds of an op with these facts on this device.
  double estimateSeconds(int64_t flops, int64_t bytesMoved) const;

private:
  const DeviceProfile &device;
  MeasuredProfile measured;
};

} // namespace mlir::remat

#endif // REMAT_ANALYSIS_COSTMODEL_H
