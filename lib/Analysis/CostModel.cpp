//===- CostModel.cpp - what an op costs to run ----------------------------===//
//
// The device table and the estimate. Peak rates are the vendors' fp32
// figures (non-tensor-core), since remat's steps run in fp32; bandwidths are
// the vendors' memory bandwidths. Launch costs are typical kernel launch
// overheads. The saturation (the work that occupies the whole device) is
// derived below from each device's SM count. Each row says where its
// numbers come from.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::remat;

// The saturation of the GPUs is one full wave of work over every SM
// (a stated derivation, not a measurement; a measured profile can replace
// it, see CostModel.h):
// - FLOPs: one 128x128 output tile (the threadblock tile of CUTLASS's fp32
//   SIMT GEMM, which cuBLAS and cuDNN's implicit-GEMM convolutions also use)
//   per SM, over a reduction depth of 64 (eight 128x128x8 main-loop
//   iterations, enough to cover the prologue and epilogue of the software
//   pipeline): SMs x 2 x 128 x 128 x 64 = SMs x 2,097,152 FLOPs.
// - Bytes: every resident thread (2,048 per SM on Maxwell to Hopper) reads
//   and writes one 16-byte vector: SMs x 2,048 x 32 = SMs x 65,536 bytes.
// The CPU's is ATen's: at::parallel_for hands each thread at least
// at::internal::GRAIN_SIZE = 32,768 elements, so an op fills both cores at
// 2 x 32,768 fp32 elements read and written (524,288 bytes), and a GEMM at
// one 64x64x64 block per core (2 x 524,288 FLOPs); below that it runs on one
// core at that core's rate (minimum fill 1/2).
static const DeviceProfile kDeviceProfiles[] = {
    {"h200", "NVIDIA H200 SXM (141 GB HBM3e)", 67.0e12, 4.8e12, 5.0e-6,
     "NVIDIA H200 Tensor Core GPU datasheet (2024): FP32 67 TFLOPS, memory "
     "bandwidth 4.8 TB/s",
     132 * 2097152.0, 132 * 65536.0, 0.0,
     "132 SMs (H100/H200 SXM) x one wave: 276,824,064 FLOPs, 8,650,752 "
     "bytes"},
    {"a100", "NVIDIA A100 SXM 80 GB", 19.5e12, 2.039e12, 5.0e-6,
     "NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5 TFLOPS, "
     "80 GB SXM memory bandwidth 2,039 GB/s",
     108 * 2097152.0, 108 * 65536.0, 0.0,
     "108 SMs (A100 whitepaper) x one wave: 226,492,416 FLOPs, 7,077,888 "
     "bytes"},
    {"v100", "NVIDIA V100 SXM2", 15.7e12, 900.0e9, 5.0e-6,
     "NVIDIA Tesla V100 datasheet (2018): SXM2 FP32 15.7 TFLOPS, HBM2 "
     "bandwidth 900 GB/s",
     80 * 2097152.0, 80 * 65536.0, 0.0,
     "80 SMs (Volta whitepaper) x one wave: 167,772,160 FLOPs, 5,242,880 "
     "bytes"},
    {"gtx970m", "NVIDIA GeForce GTX 970M (3 GB, the seed experiment's card)",
     2.66e12, 120.0e9, 10.0e-6,
     "NVIDIA GTX 970M specifications: 1280 CUDA cores x 1038 MHz boost x 2 "
     "FLOP = 2.66 TFLOPS fp32; 192-bit GDDR5 at 5 Gbps = 120 GB/s",
     10 * 2097152.0, 10 * 65536.0, 0.0,
     "10 SMs (1280 cores / 128 per Maxwell SMM) x one wave: 20,971,520 "
     "FLOPs, 655,360 bytes"},
    {"cpu", "a 2-core x86-64 server CPU with AVX2 (this project's machines)",
     100.0e9, 20.0e9, 1.0e-6,
     "estimate: 2 cores x 2.5 GHz x 32 fp32 FLOP/cycle (two AVX2 FMA units) "
     "= 160 GFLOP/s peak, of which ATen reaches ~100; ~20 GB/s DRAM "
     "bandwidth per socket share",
     2 * 524288.0, 2 * 262144.0, 0.5,
     "2 cores x ATen's grain: 1,048,576 FLOPs, 524,288 bytes; one core "
     "below that (minimum fill 1/2)"},
};

ArrayRef<DeviceProfile> mlir::remat::getDeviceProfiles() {
  return kDeviceProfiles;
}

const DeviceProfile *mlir::remat::findDeviceProfile(StringRef name) {
  for (const DeviceProfile &profile : kDeviceProfiles)
    if (profile.name == name)
      return &profile;
  return nullptr;
}

FailureOr<const DeviceProfile *>
mlir::remat::lookupDeviceProfile(StringRef name, Location loc) {
  if (const DeviceProfile *profile = findDeviceProfile(name))
    return profile;
  InFlightDiagnostic diagnostic = emitError(loc);
  diagnostic << "unknown device profile '" << name << "'; known profiles: ";
  llvm::interleaveComma(
      getDeviceProfiles(), diagnostic,
      [&](const DeviceProfile &profile) { diagnostic << profile.name; });
  return diagnostic;
}

StringRef mlir::remat::stringifyCostUnit(CostUnit unit) {
  return unit == CostUnit::Graph ? "graph" : "seconds";
}

FailureOr<MeasuredProfile> mlir::remat::readMeasuredProfile(StringRef path,
                                                            Location loc) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(loc) << "cannot read the measured profile '" << path
                          << "': " << buffer.getError().message();
  return parseMeasuredProfile((*buffer)->getBuffer(), path, loc);
}

static bool isSaturationKey(StringRef key) {
  return key == kSaturationFlopsKey || key == kSaturationBytesKey ||
         key == kMinimumFillKey;
}

/// What the value of `key` counts, for errors: seconds for an op, the unit
/// of a saturation figure for the keys that replace the device's.
static StringRef getProfileValueUnit(StringRef key) {
  if (key == kSaturationFlopsKey)
    return "of FLOPs";
  if (key == kSaturationBytesKey)
    return "of bytes";
  if (key == kMinimumFillKey)
    return "(a fraction of peak rate)";
  return "of seconds";
}

/// The deepest nesting of arrays and objects in `text` (outside strings).
/// llvm::json::parse recurses once per level: deep input overflows the stack.
static int64_t getJsonNesting(StringRef text) {
  int64_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

/// The longest time one op of a step may take in a measured profile.
static constexpr double kMaxOpSeconds = 1e6;

static std::string formatSeconds(double seconds) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", seconds);
  return text;
}

FailureOr<MeasuredProfile> mlir::remat::parseMeasuredProfile(StringRef text,
                                                             StringRef path,
                                                             Location loc) {
  // A profile is one object of numbers; 64 levels is far more than any
  // valid one has, and far fewer than overflow the stack.
  constexpr int64_t kMaxNesting = 64;
  if (getJsonNesting(text) > kMaxNesting)
    return emitError(loc) << "measured profile '" << path
                          << "' nests arrays or objects deeper than "
                          << kMaxNesting << " levels";
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return emitError(loc) << "measured profile '" << path
                          << "' is not valid JSON: "
                          << llvm::toString(json.takeError());
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return emitError(loc) << "measured profile '" << path
                          << "' must be a JSON object of op -> seconds";
  MeasuredProfile profile;
  for (const auto &entry : *object) {
    StringRef key = entry.first;
    std::optional<double> value = entry.second.getAsNumber();
    // 1e999 reads as infinity: not a time, nor a saturation.
    if (!value || !std::isfinite(*value) || *value < 0.0)
      return emitError(loc) << "measured profile '" << path << "': '" << key
                            << "' must map to a finite, non-negative number "
                            << getProfileValueUnit(key);
    // Per-op seconds are summed over the step: a time of 1e308 is finite
    // but no op's, and the sum would be infinite.
    if (!isSaturationKey(key) && *value > kMaxOpSeconds)
      return emitError(loc) << "measured profile '" << path << "': '" << key
                            << "' maps to " << formatSeconds(*value)
                            << " seconds, more than " << formatSeconds(kMaxOpSeconds)
                            << " (11 days), which is no op's time in one step";
    // A fill is a fraction of peak, at most all of it.
    if (key == kMinimumFillKey && *value > 1.0)
      return emitError(loc)
             << "measured profile '" << path << "': '" << kMinimumFillKey
             << "' is a fraction of peak rate, at most 1";
    profile[key] = *value;
  }
  return profile;
}

LogicalResult
mlir::remat::checkMeasuredProfileKeys(const MeasuredProfile &profile,
                                      Operation *scope, StringRef path,
                                      Location loc) {
  llvm::StringSet<> known;
  scope->walk([&](Operation *op) {
    if (StringRef name = getOpName(op); !name.empty())
      known.insert(name);
    known.insert(op->getName().getStringRef());
  });
  // Sorted, so that the error names the same key on every run.
  std::vector<StringRef> unknown;
  for (const auto &entry : profile)
    if (!isSaturationKey(entry.getKey()) && !known.contains(entry.getKey()) &&
        !RegisteredOperationName::lookup(entry.getKey(), loc.getContext()))
      unknown.push_back(entry.getKey());
  if (unknown.empty())
    return success();
  llvm::sort(unknown);
  StringRef key = unknown.front();
  std::vector<std::pair<unsigned, StringRef>> nearest;
  for (const auto &name : known)
    nearest.push_back({key.edit_distance(name.getKey()), name.getKey()});
  llvm::sort(nearest);
  InFlightDiagnostic diagnostic =
      emitError(loc) << "measured profile '" << path << "': '" << key
                     << "' names no op of the step (remat.name) "
                        "and no op kind (nn.conv2d)";
  if (!nearest.empty())
    diagnostic << "; nearest: " << nearest.front().second;
  if (unknown.size() > 1)
    diagnostic << " (" << unknown.size() - 1 << " more unknown key"
               << (unknown.size() > 2 ? "s" : "") << ")";
  return diagnostic;
}

CostModel::CostModel(const DeviceProfile &device, MeasuredProfile measured)
    : device(device),
      measured(std::move(measured)), saturation{device.saturationFlops,
                                                device.saturationBytes,
                                                device.minimumFill} {
  auto override = [&](StringRef key, double &figure) {
    auto it = this->measured.find(key);
    if (it != this->measured.end())
      figure = it->second;
  };
  override(kSaturationFlopsKey, saturation.flops);
  override(kSaturationBytesKey, saturation.bytes);
  override(kMinimumFillKey, saturation.minimumFill);
}

/// The fraction of peak rate `work` of one kind runs at, against the work
/// of that kind that occupies the whole device: 1 when `saturating` is 0
/// (that kind is not modelled), else the occupancy bounded below by
/// `minimumFill` and above by 1.
static double getFillOf(int64_t work, double saturating, double minimumFill) {
  if (saturating <= 0.0)
    return 1.0;
  double occupancy = static_cast<double>(work) / saturating;
  return std::min(1.0, std::max(minimumFill, occupancy));
}

double CostModel::getComputeFill(int64_t flops) const {
  return getFillOf(flops, saturation.flops, saturation.minimumFill);
}

double CostModel::getMemoryFill(int64_t bytesMoved) const {
  return getFillOf(bytesMoved, saturation.bytes, saturation.minimumFill);
}

/// The time `work` takes at `rate` times its fill (getFillOf), written as
/// the work it occupies the device for, max(work, min(saturating,
/// work / minimumFill)): the same value, and in floating point never
/// smaller for more work (the division by the fill is not). No work takes
/// none: an op without FLOPs runs no arithmetic, whatever its fill.
static double getFilledSeconds(int64_t work, double rate, double saturating,
                               double minimumFill) {
  if (work <= 0)
    return 0.0;
  double amount = static_cast<double>(work);
  if (saturating <= 0.0)
    return amount / rate;
  double belowMinimum = minimumFill > 0.0
                            ? amount / minimumFill
                            : std::numeric_limits<double>::infinity();
  return std::max(amount, std::min(saturating, belowMinimum)) / rate;
}

double CostModel::estimateSeconds(int64_t flops, int64_t bytesMoved) const {
  // Each resource at the fraction of its own peak that its own work fills:
  // more of one kind of work never makes the other kind faster, so the
  // estimate grows with each input.
  double compute = getFilledSeconds(flops, device.flopsPerSecond,
                                    saturation.flops, saturation.minimumFill);
  double memory = getFilledSeconds(bytesMoved, device.bytesPerSecond,
                                   saturation.bytes, saturation.minimumFill);
  return std::max(compute, memory) + device.launchSeconds;
}

FailureOr<OpCost> CostModel::getCost(Operation *op) const {
  auto costOp = dyn_cast<CostOpInterface>(op);
  if (!costOp)
    return op->emitOpError()
           << "has no cost information (it implements no CostOpInterface, "
              "directly or through an external model), so remat cannot "
              "plan it";
  OpCost cost;
  cost.flops = costOp.getFlopCount();
  cost.bytesMoved = costOp.getBytesMoved();
  cost.workspaceBytes = costOp.getWorkspaceBytes();
  cost.recomputable = costOp.isRecomputable();
  if (std::optional<double> given = costOp.getGivenCost()) {
    cost.cost = *given;
    cost.unit = CostUnit::Graph;
    return cost;
  }
  if (std::optional<double> seconds = getMeasuredSeconds(op))
    cost.cost = *seconds;
  else
    cost.cost = estimateSeconds(cost.flops, cost.bytesMoved);
  return cost;
}

std::optional<double> CostModel::getMeasuredSeconds(Operation *op) const {
  if (measured.empty())
    return std::nullopt;
  auto lookup = [&](StringRef name) -> std::optional<double> {
    if (name.empty())
      return std::nullopt;
    auto it = measured.find(name);
    if (it == measured.end())
      return std::nullopt;
    return it->second;
  };
  // A recomputation runs the op it copies: it takes that op's measured time.
  StringRef name = getOpName(op);
  StringRef of;
  if (auto attr = op->getAttrOfType<StringAttr>(attr::kRecomputeOf))
    of = attr.getValue();
  // The exact name first, then the op of micro-step 0 that an accumulated
  // step's copy (or its recomputation) repeats, the same kernel on the same
  // shapes, known by its remat.micro_origin, never by the look of a name: a
  // model's own module may be called `micro1`.
  for (StringRef candidate : {name, of, getMicroStepOrigin(op)})
    if (std::optional<double> seconds = lookup(candidate))
      return seconds;
  return lookup(op->getName().getStringRef());
}
