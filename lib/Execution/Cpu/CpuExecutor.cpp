//===- CpuExecutor.cpp - run a training step on the CPU with ATen ---------===//
//
// Arguments come from .npy files, the weights directory or the generator;
// every value an op defines is computed by ATen and copied into its planned
// arena slot (checked against every live slot first); the executor measures
// the arena's occupancy at every op and the bytes ATen held outside it, and
// catches c10::Error at its boundary.
//
//===----------------------------------------------------------------------===//

#include "remat/Execution/CpuExecutor.h"

#include "Kernels.h"

#include "remat/Analysis/PeakMemory.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Execution/Random.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <c10/core/CPUAllocator.h>

#include <mutex>
#include <unordered_map>
#include <cmath>

using namespace mlir;
using namespace mlir::remat;

namespace {

//===----------------------------------------------------------------------===//
// Bytes ATen allocates outside the arena
//===----------------------------------------------------------------------===//

/// Wraps the CPU allocator to count the bytes ATen holds. Installed once for
/// the process (memory may outlive a run in ATen's caches); some ATen paths
/// require a DataPtr's context to be its data pointer, so allocations are
/// looked up by address when freed.
class CountingAllocator final : public c10::Allocator {
public:
  explicit CountingAllocator(c10::Allocator *base) : base(base) {}

  /// The process's counting allocator, installed on first use.
  static CountingAllocator &get() {
    static CountingAllocator *instance = [] {
      auto *allocator = new CountingAllocator(c10::GetCPUAllocator());
      c10::SetCPUAllocator(allocator, /*priority=*/100);
      return allocator;
    }();
    return *instance;
  }

  c10::DataPtr allocate(size_t bytes) const override {
    c10::DataPtr inner = base->allocate(bytes);
    void *data = inner.get();
    std::lock_guard<std::mutex> lock(mutex);
    held.emplace(data, std::make_pair(std::move(inner), bytes));
    current += bytes;
    peak = std::max(peak, current);
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  /// Starts measuring: the peak from here on, above what is held now.
  void startMeasuring() {
    std::lock_guard<std::mutex> lock(mutex);
    baseline = current;
    peak = current;
  }
  int64_t getMeasuredPeak() const {
    std::lock_guard<std::mutex> lock(mutex);
    return peak - baseline;
  }

private:
  static void release(void *data) {
    CountingAllocator &self = get();
    std::lock_guard<std::mutex> lock(self.mutex);
    auto it = self.held.find(data);
    if (it == self.held.end())
      return;
    self.current -= it->second.second;
    self.held.erase(it);
  }

  c10::Allocator *base;
  mutable std::mutex mutex;
  mutable std::unordered_map<void *, std::pair<c10::DataPtr, size_t>> held;
  mutable int64_t current = 0;
  mutable int64_t peak = 0;
  int64_t baseline = 0;
};

/// Measures the bytes ATen allocates during its lifetime.
class CountingScope {
public:
  CountingScope() { CountingAllocator::get().startMeasuring(); }
  int64_t getPeak() const { return CountingAllocator::get().getMeasuredPeak(); }
};

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

std::optional<NpyType> getNpyType(at::ScalarType type) {
  switch (type) {
  case at::kFloat:
    return NpyType::F32;
  case at::kDouble:
    return NpyType::F64;
  case at::kHalf:
    return NpyType::F16;
  case at::kBFloat16:
    return NpyType::BF16;
  case at::kLong:
    return NpyType::I64;
  case at::kInt:
    return NpyType::I32;
  case at::kByte:
  case at::kBool:
    return NpyType::U8;
  default:
    return std::nullopt;
  }
}

NpyArray toNpy(const at::Tensor &tensor) {
  at::Tensor dense = tensor.contiguous();
  NpyArray array;
  array.type = getNpyType(dense.scalar_type()).value_or(NpyType::U8);
  array.shape.assign(dense.sizes().begin(), dense.sizes().end());
  auto *bytes = static_cast<const uint8_t *>(dense.data_ptr());
  array.data.assign(bytes, bytes + dense.nbytes());
  return array;
}

/// Fills an argument from the generator, by its role (docs/execution.md).
at::Tensor generateArgument(BlockArgument argument, StringRef name,
                            StringRef role, const CpuRunOptions &options) {
  auto type = cast<RankedTensorType>(argument.getType());
  at::ScalarType scalar = *getScalarType(type.getElementType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  at::Tensor values = at::empty(shape, at::kDouble);
  double *data = values.data_ptr<double>();
  uint64_t key = getStreamKey(options.seed, name);
  int64_t count = values.numel();
  if (role == "opt_state" || role == "step")
    return at::zeros(shape, scalar);
  if (role == "seed")
    return at::full(shape, int64_t(getRandomBits(key, 0) >> 1), scalar);
  if (!type.getElementType().isIntOrFloat() ||
      type.getElementType().isInteger()) {
    int64_t bound =
        options.classes > 0 ? options.classes : nn::getIndexBound(argument);
    for (int64_t i = 0; i < count; ++i)
      data[i] = std::floor(getUniform(key, i) * double(bound));
    return values.to(scalar);
  }
  if (role == "weight") {
    int64_t fanIn = shape.size() >= 2 ? count / std::max<int64_t>(shape[0], 1)
                                      : std::max<int64_t>(count, 1);
    double bound = 1.0 / std::sqrt(double(fanIn));
    for (int64_t i = 0; i < count; ++i)
      data[i] = (2.0 * getUniform(key, i) - 1.0) * bound;
  } else if (role == "buffer") {
    for (int64_t i = 0; i < count; ++i)
      data[i] = 0.5 + getUniform(key, i);
  } else {
    for (int64_t i = 0; i < count; ++i)
      data[i] = getNormal(key, i);
  }
  return values.to(scalar);
}

/// Reads `path` as the argument's value; checks its shape and type.
FailureOr<at::Tensor> readArgument(BlockArgument argument, StringRef name,
                                   StringRef path, Location loc) {
  std::string error;
  std::optional<NpyArray> array = readNpy(path, error);
  if (!array)
    return emitError(loc) << "argument '" << name << "': " << error;
  auto type = cast<RankedTensorType>(argument.getType());
  at::ScalarType scalar = *getScalarType(type.getElementType());
  std::vector<int64_t> expected(type.getShape().begin(), type.getShape().end());
  if (array->shape != expected || getNpyType(scalar) != array->type)
    return emitError(loc) << "argument '" << name << "': '" << path
                          << "' does not hold a " << type;
  at::Tensor tensor = at::empty(expected, scalar);
  std::memcpy(tensor.data_ptr(), array->data.data(), array->data.size());
  return tensor;
}

FailureOr<std::vector<at::Tensor>>
loadArguments(FunctionOpInterface function, const CpuRunOptions &options) {
  auto weights = function->getAttrOfType<StringAttr>(attr::kWeights);
  if (weights && !llvm::sys::fs::is_directory(weights.getValue()))
    return function.emitOpError()
           << "names the weights directory '" << weights.getValue()
           << "', which does not exist";
  std::vector<at::Tensor> arguments;
  for (BlockArgument argument : function.getArguments()) {
    std::string name = getValueName(argument);
    auto roleAttr = function.getArgAttrOfType<StringAttr>(
        argument.getArgNumber(), attr::kRole);
    StringRef role = roleAttr ? roleAttr.getValue() : "input";
    if (!getScalarType(
            cast<RankedTensorType>(argument.getType()).getElementType()))
      return emitError(argument.getLoc())
             << "argument '" << name << "' has an element type remat-run "
             << "cannot hold";
    llvm::SmallString<128> path(options.inputsDir);
    llvm::sys::path::append(path, name + ".npy");
    bool fromWeights = weights && (role == "weight" || role == "buffer");
    if (fromWeights && (options.inputsDir.empty() ||
                        !llvm::sys::fs::exists(path))) {
      path = weights.getValue();
      llvm::sys::path::append(path, name + ".npy");
    }
    FailureOr<at::Tensor> tensor =
        (!options.inputsDir.empty() && llvm::sys::fs::exists(path)) ||
                fromWeights
            ? readArgument(argument, name, path, argument.getLoc())
            : FailureOr<at::Tensor>(
                  generateArgument(argument, name, role, options));
    if (failed(tensor))
      return failure();
    arguments.push_back(*tensor);
  }
  return arguments;
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

/// A value's slot in the arena while it lives.
struct Slot {
  Value value;
  int64_t offset;
  int64_t bytes;
  int64_t lastStep;
};

class Runner {
public:
  Runner(FunctionOpInterface function, const PeakMemory &analysis)
      : function(function), analysis(analysis) {}

  LogicalResult run(std::vector<at::Tensor> arguments, bool warnUnplanned,
                    CpuRunReport &report);

private:
  /// The tensor a result is written to: its arena slot, after checking that
  /// no live value overlaps it (planned), or a fresh tensor (unplanned).
  FailureOr<at::Tensor> makeDestination(Operation *op, Value value,
                                        int64_t offset);
  /// Records the result, copying it into its destination unless the kernel
  /// wrote there.
  LogicalResult place(Operation *op, Value value,
                      const at::Tensor &destination,
                      const at::Tensor &computed);

  FunctionOpInterface function;
  const PeakMemory &analysis;
  bool planned = false;
  at::Tensor arena;
  llvm::DenseMap<Value, at::Tensor> tensors;
  llvm::DenseMap<Value, int64_t> lastStep;
  std::vector<Slot> live;
};

FailureOr<at::Tensor> Runner::makeDestination(Operation *op, Value value,
                                              int64_t offset) {
  auto type = cast<RankedTensorType>(value.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  at::ScalarType scalar = *getScalarType(type.getElementType());
  if (!planned)
    return at::empty(shape, scalar);
  int64_t bytes = getTypeBytes(type).value_or(0);
  for (const Slot &slot : live) {
    if (slot.offset < offset + bytes && offset < slot.offset + slot.bytes &&
        bytes > 0 && slot.bytes > 0)
      return op->emitOpError()
             << "places '" << getValueName(value) << "' at arena bytes ["
             << offset << ", " << offset + bytes << "), which overlap '"
             << getValueName(slot.value) << "' at [" << slot.offset << ", "
             << slot.offset + slot.bytes << "), still live";
  }
  auto last = lastStep.find(value);
  live.push_back({value, offset, bytes,
                  last == lastStep.end() ? INT64_MAX : last->second});
  return at::from_blob(static_cast<uint8_t *>(arena.data_ptr()) + offset,
                       shape, at::TensorOptions().dtype(scalar));
}

LogicalResult Runner::place(Operation *op, Value value,
                            const at::Tensor &destination,
                            const at::Tensor &computed) {
  if (computed.sizes() != destination.sizes())
    return op->emitOpError() << "internal error: its kernel produced a "
                                "tensor of another shape than "
                             << value.getType();
  // Kernels with an `_out` variant wrote into the destination already.
  if (!computed.is_same(destination))
    const_cast<at::Tensor &>(destination).copy_(computed);
  tensors[value] = destination;
  return success();
}

LogicalResult Runner::run(std::vector<at::Tensor> arguments,
                          bool warnUnplanned, CpuRunReport &report) {
  auto arenaAttr = function->getAttrOfType<IntegerAttr>(attr::kArenaBytes);
  planned = static_cast<bool>(arenaAttr);
  for (Operation *op : analysis.getSchedule())
    if (op->getNumResults() > 0 && !op->hasAttr(attr::kOffsets))
      planned = false;
  if (!planned && warnUnplanned)
    function.emitWarning("has no memory plan (run remat-plan-memory first); "
                         "remat-run runs it with plain allocations");
  report.planned = planned;
  report.arenaBytes = planned ? arenaAttr.getInt() : 0;
  report.argumentBytes = analysis.getArgumentBytes();
  report.analysisPeakBytes = analysis.getPeakBytes();
  if (planned)
    arena = at::zeros({std::max<int64_t>(report.arenaBytes, 1)}, at::kByte);

  Block &body = function.getFunctionBody().front();
  for (auto [argument, tensor] : llvm::zip(body.getArguments(), arguments))
    tensors[argument] = tensor;
  for (const ValueLifetime &info : analysis.getValues())
    if (!info.isFunctionResult)
      lastStep[info.value] = info.lifetime.last;

  int64_t measuredPeak = report.argumentBytes;
  for (auto [step, op] : llvm::enumerate(analysis.getSchedule())) {
    std::vector<at::Tensor> operands;
    for (Value operand : op->getOperands())
      operands.push_back(tensors.lookup(operand));
    auto offsets = op->getAttrOfType<DenseI64ArrayAttr>(attr::kOffsets);
    std::vector<at::Tensor> destinations;
    for (auto [index, result] : llvm::enumerate(op->getResults())) {
      FailureOr<at::Tensor> destination =
          makeDestination(op, result, planned ? offsets[index] : 0);
      if (failed(destination))
        return failure();
      destinations.push_back(*destination);
    }
    FailureOr<std::vector<at::Tensor>> results =
        runKernel(op, operands, destinations);
    if (failed(results))
      return failure();
    for (auto [index, result] : llvm::enumerate(op->getResults()))
      if (failed(place(op, result, destinations[index], (*results)[index])))
        return failure();
    results->clear();
    int64_t occupied = analysis.getWorkspaceBytes()[step];
    for (const Slot &slot : live)
      occupied += slot.bytes;
    measuredPeak = std::max(measuredPeak, report.argumentBytes + occupied);
    // Values whose last use this was leave the arena (and the map).
    llvm::erase_if(live, [&](const Slot &slot) {
      return slot.lastStep <= int64_t(step);
    });
    for (Value operand : op->getOperands())
      if (lastStep.count(operand) && lastStep[operand] <= int64_t(step) &&
          !planned)
        tensors.erase(operand);
  }
  report.measuredPeakBytes = planned ? measuredPeak : 0;
  for (BlockArgument argument : body.getArguments())
    report.arguments.push_back(
        {getValueName(argument), toNpy(tensors.lookup(argument))});
  Operation *terminator = body.getTerminator();
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    auto name = function.getResultAttrOfType<StringAttr>(index, attr::kName);
    report.results.push_back(
        {name ? name.str() : "result" + std::to_string(index),
         toNpy(tensors.lookup(value))});
  }
  if (planned && report.measuredPeakBytes != report.analysisPeakBytes)
    return function.emitOpError()
           << "measured a peak of " << report.measuredPeakBytes
           << " bytes in the arena (arguments included), but the analysis "
              "says "
           << report.analysisPeakBytes;
  return success();
}

} // namespace

FailureOr<CpuRunReport> mlir::remat::runOnCpu(FunctionOpInterface function,
                                              const CpuRunOptions &options) {
  FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
  if (failed(analysis))
    return failure();
  try {
    FailureOr<std::vector<at::Tensor>> arguments =
        loadArguments(function, options);
    if (failed(arguments))
      return failure();
    CpuRunReport report;
    CountingScope counting;
    Runner runner(function, *analysis);
    if (failed(runner.run(std::move(*arguments), options.warnUnplanned,
                          report)))
      return failure();
    // The arena itself is allocated through ATen too.
    int64_t arenaAllocation =
        report.planned ? std::max<int64_t>(report.arenaBytes, 1) : 0;
    report.outsideArenaPeakBytes = counting.getPeak() - arenaAllocation;
    return report;
  } catch (const c10::Error &error) {
    return function.emitOpError()
           << "ATen failed: " << error.what_without_backtrace();
  }
}
