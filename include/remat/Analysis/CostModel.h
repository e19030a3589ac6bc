//===- CostModel.h - what an op costs to run ---------------------*- C++ -*-===//
//
// Turns the per-op facts of the cost op interface into a cost: the estimated
// time on a device,
//   max(FLOPs / (peak rate x computeFill), bytes / (bandwidth x memoryFill))
//     + launch cost,
// from a table of device profiles; or a measured time from a profile file;
// or, for the ops of an imported benchmark graph, the cost the graph gives.
//
// The fills model small kernels running below peak: work too small to
// occupy the whole device (fewer thread blocks than one full wave over every
// SM) runs at the fraction of peak that it occupies, each resource on its
// own work:
//   computeFill = min(1, max(minimumFill, FLOPs / saturationFlops)),
//   memoryFill  = min(1, max(minimumFill, bytes / saturationBytes)),
// and 1 for a resource whose saturation is 0 (not modelled). So on a GPU (no
// minimum fill) FLOPs below saturation take as long as the saturating FLOPs
// do at peak, and likewise bytes. Each term is continuous and never
// decreasing in its own work for positive work (linear below minimumFill x
// saturation, flat up to the saturation, linear above), so the estimate
// never falls when an op does more of either kind of work. (A term with no
// work is 0: on a GPU, where the minimum fill is 0, the first FLOP or byte
// costs the saturating work's time, a step at 0 that is the latency the
// model stands for.)
// Hockney's rate = peak * w / (w + w_half) would not do: its time is
// (w + w_half) / peak, a constant per op on top of the ideal time, the same
// as the launch cost, whatever the op's size. Under-occupancy is instead a
// rate proportional to the work up to the saturating work: k micro-steps of
// batch m whose ops are below saturation cost more than one step of k x m
// by the occupancy they waste, and ops above it pay nothing.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_COSTMODEL_H
#define REMAT_ANALYSIS_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

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
  /// The work an op needs to occupy the whole device: FLOPs, and bytes
  /// moved; an op reaching either runs at the peak rate. 0: that kind of
  /// work is not modelled (both 0: every op runs at peak).
  double saturationFlops = 0.0;
  double saturationBytes = 0.0;
  /// The least fraction of peak any op runs at (a CPU runs a small op on one
  /// of its cores at that core's full rate: 1 / cores); 0 on GPUs, where a
  /// small kernel is latency-bound.
  double minimumFill = 0.0;
  /// How the saturation figures are derived.
  StringRef saturationSource;
};

/// The saturation of a profile, which a measured profile may override.
struct Saturation {
  double flops = 0.0;
  double bytes = 0.0;
  double minimumFill = 0.0;
};

/// The keys of a measured profile that override the device's saturation
/// (they name no op: `remat.` is the project's own prefix).
inline constexpr llvm::StringLiteral kSaturationFlopsKey =
    "remat.saturation_flops";
inline constexpr llvm::StringLiteral kSaturationBytesKey =
    "remat.saturation_bytes";
inline constexpr llvm::StringLiteral kMinimumFillKey = "remat.minimum_fill";

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
/// seconds. A name takes precedence over a kind; a recomputation takes the
/// time of the op it copies; in an accumulated step, an op of micro-step
/// i > 0 (`micro<i>.NAME`, Autodiff.h) without a time of its own takes the
/// time of NAME, the same op in micro-step 0. The keys
/// kSaturationFlopsKey, kSaturationBytesKey and kMinimumFillKey, where
/// present, replace the device's saturation for the ops left to the
/// estimate.
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
                     MeasuredProfile measured = {});

  const DeviceProfile &getDevice() const { return device; }

  /// The device's saturation, or the measured profile's where it gives one.
  const Saturation &getSaturation() const { return saturation; }

  /// The cost of `op`; emits an error and fails when `op` implements no cost
  /// interface (and so cannot be planned).
  FailureOr<OpCost> getCost(Operation *op) const;

  /// The measured time of `op` (MeasuredProfile says which key applies), or
  /// none when the profile has no time for it.
  std::optional<double> getMeasuredSeconds(Operation *op) const;

  /// The estimated seconds of an op with these facts on this device:
  /// max(FLOPs / (peak rate x compute fill),
  ///     bytes / (bandwidth x memory fill)) + launch cost.
  double estimateSeconds(int64_t flops, int64_t bytesMoved) const;

  /// The fraction of the peak FLOP rate `flops` reach, in [0, 1]: 1 when
  /// FLOPs are not modelled (saturation 0), else the occupancy bounded by
  /// the minimum fill and 1 (0 only for no FLOPs and no minimum fill).
  double getComputeFill(int64_t flops) const;

  /// The fraction of the peak bandwidth `bytesMoved` reach, as
  /// getComputeFill does for FLOPs.
  double getMemoryFill(int64_t bytesMoved) const;

private:
  const DeviceProfile &device;
  MeasuredProfile measured;
  Saturation saturation;
};

} // namespace mlir::remat

#endif // REMAT_ANALYSIS_COSTMODEL_H
