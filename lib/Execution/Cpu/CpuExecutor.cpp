//===- CpuExecutor.cpp - run a training step on the CPU with ATen ---------===//
//
// Arguments come from .npy files, the weights directory or the generator;
// the executor owns their buffers for the run. Every arena value an op
// defines is computed by ATen and copied into its planned arena slot
// (checked against every live slot first); updated state is written into
// its argument's buffer, which the next step reads; a view is its owner's
// tensor reinterpreted; image activations may be stored channels-last
// (chooseChannelsLast). While a kernel runs, its allocations take arena
// bytes the plan leaves free (ArenaAllocator.h). The executor measures the
// arena's occupancy at every op and the bytes ATen held outside it. A kernel's c10::Error or
// std::exception is an error at its op (Kernels.cpp); one thrown outside a
// kernel is caught at the executor's boundary.
//
//===----------------------------------------------------------------------===//

#include "remat/Execution/CpuExecutor.h"

#include "ArenaAllocator.h"
#include "Kernels.h"

#include "remat/Analysis/PeakMemory.h"
#include "remat/Analysis/ValueStorage.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Execution/Random.h"
#include "remat/Support/FileName.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <ATen/Parallel.h>
#include <c10/util/strides.h>

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::remat;

namespace {

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
                            ArgumentRole role, const CpuRunOptions &options) {
  auto type = cast<RankedTensorType>(argument.getType());
  at::ScalarType scalar = *getScalarType(type.getElementType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  at::Tensor values = at::empty(shape, at::kDouble);
  double *data = values.data_ptr<double>();
  uint64_t key = getStreamKey(options.seed, name);
  int64_t count = values.numel();
  if (role == ArgumentRole::OptState || role == ArgumentRole::Step)
    return at::zeros(shape, scalar);
  if (role == ArgumentRole::Seed)
    return at::full(shape, int64_t(getRandomBits(key, 0) >> 1), scalar);
  if (!type.getElementType().isIntOrFloat() ||
      type.getElementType().isInteger()) {
    int64_t bound =
        options.classes > 0 ? options.classes : nn::getIndexBound(argument);
    for (int64_t i = 0; i < count; ++i)
      data[i] = std::floor(getUniform(key, i) * double(bound));
    return values.to(scalar);
  }
  if (role == ArgumentRole::Weight) {
    int64_t fanIn = shape.size() >= 2 ? count / std::max<int64_t>(shape[0], 1)
                                      : std::max<int64_t>(count, 1);
    double bound = 1.0 / std::sqrt(double(fanIn));
    for (int64_t i = 0; i < count; ++i)
      data[i] = (2.0 * getUniform(key, i) - 1.0) * bound;
  } else if (role == ArgumentRole::Buffer) {
    for (int64_t i = 0; i < count; ++i)
      data[i] = 0.5 + getUniform(key, i);
  } else {
    for (int64_t i = 0; i < count; ++i)
      data[i] = getNormal(key, i);
  }
  return values.to(scalar);
}

/// An argument's buffer for the run and, for an input or label read from a
/// file with one row per step, those rows.
struct LoadedArgument {
  at::Tensor buffer;
  at::Tensor perStep;
  /// A seed without one value per step: advanced by one after every step,
  /// so that dropout draws new masks.
  bool advancesEachStep = false;
};

/// Whether arguments of `role` may take one value per step.
static bool takesValuePerStep(ArgumentRole role) {
  return role == ArgumentRole::Input || role == ArgumentRole::Label ||
         role == ArgumentRole::Seed;
}

/// Reads `path` as the argument's value; checks its shape and type. A file
/// of shape [M, <argument shape>...] holds one value per step for an input
/// or label (M must be at least `steps`).
FailureOr<LoadedArgument> readArgument(BlockArgument argument, StringRef name,
                                       ArgumentRole role, StringRef path,
                                       int64_t steps, Location loc) {
  std::string error;
  std::optional<NpyArray> array = readNpy(path, error);
  if (!array)
    return emitError(loc) << "argument '" << name << "': " << error;
  auto type = cast<RankedTensorType>(argument.getType());
  at::ScalarType scalar = *getScalarType(type.getElementType());
  std::vector<int64_t> expected(type.getShape().begin(), type.getShape().end());
  bool sameType = getNpyType(scalar) == array->type;
  bool oneRowPerStep =
      sameType && array->shape.size() == expected.size() + 1 &&
      std::equal(expected.begin(), expected.end(), array->shape.begin() + 1);
  if (oneRowPerStep && !takesValuePerStep(role))
    return emitError(loc) << "argument '" << name << "': '" << path
                          << "' holds " << array->shape[0] << " values of "
                          << type << ", one per step, but only input, "
                          << "label and seed arguments take one per step "
                          << "(this one is a " << stringifyArgumentRole(role)
                          << ")";
  if (oneRowPerStep && array->shape[0] < steps)
    return emitError(loc) << "argument '" << name << "': '" << path
                          << "' holds " << array->shape[0] << " batches of "
                          << type << ", one per step, but --steps=" << steps
                          << " needs " << steps;
  if (!oneRowPerStep && (array->shape != expected || !sameType))
    return emitError(loc) << "argument '" << name << "': '" << path
                          << "' does not hold a " << type;
  LoadedArgument loaded;
  at::Tensor tensor = at::empty(array->shape, scalar);
  if (!array->data.empty())
    std::memcpy(tensor.data_ptr(), array->data.data(), array->data.size());
  if (oneRowPerStep) {
    loaded.perStep = tensor;
    loaded.buffer = at::empty(expected, scalar);
  } else {
    loaded.buffer = tensor;
  }
  return loaded;
}

FailureOr<std::vector<LoadedArgument>>
loadArguments(FunctionOpInterface function, const CpuRunOptions &options) {
  auto weights = function->getAttrOfType<StringAttr>(attr::kWeights);
  if (weights && !llvm::sys::fs::is_directory(weights.getValue()))
    return function.emitOpError()
           << "names the weights directory '" << weights.getValue()
           << "', which does not exist";
  std::vector<LoadedArgument> arguments;
  for (BlockArgument argument : function.getArguments()) {
    std::string name = getValueName(argument);
    ArgumentRole role = getArgumentRole(function, argument.getArgNumber())
                            .value_or(ArgumentRole::Input);
    if (!getScalarType(
            cast<RankedTensorType>(argument.getType()).getElementType()))
      return emitError(argument.getLoc())
             << "argument '" << name << "' has an element type remat-run "
             << "cannot hold";
    bool fromWeights = weights && (role == ArgumentRole::Weight ||
                                   role == ArgumentRole::Buffer);
    StringRef notFileName = whyNotPlainFileName(name);
    if ((fromWeights || !options.inputsDir.empty()) && !notFileName.empty())
      return emitError(argument.getLoc())
             << "argument '" << name << "' cannot be read from '" << name
             << ".npy' in a directory (" << notFileName << ")";
    llvm::SmallString<128> path(options.inputsDir);
    llvm::sys::path::append(path, name + ".npy");
    if (fromWeights && (options.inputsDir.empty() ||
                        !llvm::sys::fs::exists(path))) {
      path = weights.getValue();
      llvm::sys::path::append(path, name + ".npy");
    }
    FailureOr<LoadedArgument> loaded =
        (!options.inputsDir.empty() && llvm::sys::fs::exists(path)) ||
                fromWeights
            ? readArgument(argument, name, role, path, options.steps,
                           argument.getLoc())
            : FailureOr<LoadedArgument>(LoadedArgument{
                  generateArgument(argument, name, role, options), {}});
    if (failed(loaded))
      return failure();
    loaded->advancesEachStep =
        role == ArgumentRole::Seed && !loaded->perStep.defined();
    arguments.push_back(*loaded);
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

/// Runs the function's body once per step over the same argument buffers.
/// Where each value's bytes are follows ValueStorage: an arena value in its
/// slot (planned) or a fresh tensor (unplanned); updated state in its
/// argument's buffer; a view as its owner's tensor reinterpreted, no copy.
class Runner {
public:
  Runner(FunctionOpInterface function, const PeakMemory &analysis)
      : function(function), analysis(analysis), storage(function) {}

  /// Decides whether the function is planned, allocates the arena and
  /// computes when each value's bytes are last needed.
  void prepare(bool warnUnplanned, CpuRunReport &report);
  /// Runs one step on `arguments` (the argument buffers, updated in place).
  /// Records the step's scalars, and on the last step its results.
  LogicalResult runStep(ArrayRef<at::Tensor> arguments, bool lastStep,
                        CpuRunReport &report);
  /// Arguments plus the most bytes live in the arena at once, so far.
  int64_t getMeasuredPeak() const { return measuredPeak; }
  /// Whether the steps from now on check the plan (overlaps, shared
  /// offsets) and measure the arena's occupancy (the default); without, a
  /// step only runs its kernels into the planned slots.
  void setChecking(bool enabled) { checking = enabled; }

private:
  /// Runs a view op: its source reinterpreted.
  LogicalResult runView(Operation *op, int64_t offset);
  /// Runs op's kernel into its results' destinations (`offsetOf(i)`: result
  /// i's planned offset).
  LogicalResult runKernelOp(Operation *op,
                            function_ref<int64_t(unsigned)> offsetOf);
  /// Measures what is live after the op at `step` and frees what was last
  /// needed there.
  void finishOp(Operation *op, int64_t step, CpuRunReport &report);
  /// Records the step's scalars, and on the last step its results, the
  /// final arguments and the measured peak.
  LogicalResult recordStep(bool lastStep, CpuRunReport &report);
  /// The tensor an arena value is written to: its slot, after checking that
  /// no live value overlaps it (planned), or a fresh tensor (unplanned).
  FailureOr<at::Tensor> makeArenaDestination(Operation *op, Value value,
                                             int64_t offset);
  /// Checks the plan's offset entry of a value that has no bytes of its own
  /// (a view or updated state): its owner's offset, or -1 when its owner is
  /// an argument.
  LogicalResult checkSharedOffset(Operation *op, Value value, int64_t offset);
  /// The arena slots of `op`'s results that ATen's allocations of their
  /// sizes take while its kernel runs (KernelLoans): those of a
  /// kernel that computes its results in fresh tensors, where the result
  /// is not an argument's updated state.
  std::vector<std::pair<size_t, void *>>
  getDirectedSlots(Operation *op, ArrayRef<at::Tensor> destinations,
                   ArrayRef<at::Tensor> kernelOuts) const;
  /// The arena bytes no live value occupies (the op's operands and results
  /// are live), by address: where the running kernel's temporaries go.
  std::vector<ArenaRange> getFreeRanges() const;
  /// Runs op's kernel and places its results in their destinations; the
  /// kernel's own tensors are freed when it returns.
  LogicalResult runKernelAndPlace(Operation *op,
                                  ArrayRef<at::Tensor> destinations,
                                  ArrayRef<at::Tensor> operands,
                                  ArrayRef<at::Tensor> kernelOuts,
                                  KernelLoans *loans);
  /// Records the result, copying it into its destination unless the kernel
  /// wrote there.
  LogicalResult place(Operation *op, Value value,
                      const at::Tensor &destination,
                      const at::Tensor &computed);
  /// Picks the values stored channels-last (kernelTakesChannelsLast):
  /// oneDNN's convolutions then compute in their slots, where on contiguous
  /// NCHW tensors they compute in blocked buffers of their own and copy.
  void chooseChannelsLast();

  FunctionOpInterface function;
  const PeakMemory &analysis;
  ValueStorage storage;
  bool planned = false;
  bool checking = true;
  at::Tensor arena;
  llvm::DenseMap<Value, at::Tensor> tensors;
  /// The last step at which each arena value's bytes are needed: its last
  /// use or the last use of a view of it (INT64_MAX when returned).
  llvm::DenseMap<Value, int64_t> ownerLastStep;
  /// The last step at which each value itself is used (unplanned runs drop
  /// their reference to it then).
  llvm::DenseMap<Value, int64_t> valueLastStep;
  llvm::DenseMap<Value, int64_t> slotOffsets;
  /// Values stored channels-last.
  llvm::DenseSet<Value> channelsLast;
  std::vector<Slot> live;
  int64_t measuredPeak = 0;
};

/// The strides of `shape` stored contiguously, or channels-last (rank 4 or
/// 5: the channels, dimension 1, vary fastest).
static std::vector<int64_t> getStrides(ArrayRef<int64_t> shape,
                                       bool channelsLast) {
  at::IntArrayRef sizes(shape.data(), shape.size());
  if (channelsLast)
    return shape.size() == 4 ? c10::get_channels_last_strides_2d(sizes)
                             : c10::get_channels_last_strides_3d(sizes);
  c10::DimVector strides = c10::contiguous_strides(sizes);
  return std::vector<int64_t>(strides.begin(), strides.end());
}

FailureOr<at::Tensor> Runner::makeArenaDestination(Operation *op, Value value,
                                                   int64_t offset) {
  auto type = cast<RankedTensorType>(value.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  at::ScalarType scalar = *getScalarType(type.getElementType());
  std::vector<int64_t> strides =
      getStrides(shape, channelsLast.contains(value));
  if (!planned)
    return at::empty_strided(shape, strides, scalar);
  int64_t bytes = getTypeBytes(type).value_or(0);
  auto slotTensor = [&] {
    return at::from_blob(static_cast<uint8_t *>(arena.data_ptr()) + offset,
                         shape, strides, at::TensorOptions().dtype(scalar));
  };
  auto last = ownerLastStep.find(value);
  Slot slot{value, offset, bytes,
            last == ownerLastStep.end() ? INT64_MAX : last->second};
  if (!checking) {
    live.push_back(slot);
    return slotTensor();
  }
  if (offset < 0 || offset + bytes > arena.numel())
    return op->emitOpError()
           << "places '" << getValueName(value) << "' at arena bytes ["
           << offset << ", " << offset + bytes << "), outside the arena of "
           << arena.numel() << " bytes";
  for (const Slot &other : live) {
    if (other.offset < offset + bytes && offset < other.offset + other.bytes &&
        bytes > 0 && other.bytes > 0)
      return op->emitOpError()
             << "places '" << getValueName(value) << "' at arena bytes ["
             << offset << ", " << offset + bytes << "), which overlap '"
             << getValueName(other.value) << "' at [" << other.offset << ", "
             << other.offset + other.bytes << "), still live";
  }
  live.push_back(slot);
  slotOffsets[value] = offset;
  return slotTensor();
}

/// The bytes of the weight of a convolution-family op (its weight operand,
/// or the weight gradient it computes); 0 for other ops.
static int64_t getConvolutionWeightBytes(Operation *op) {
  Value weight;
  if (isa<nn::Conv2dOp, nn::Conv3dOp, nn::Conv2dBackwardInputOp,
          nn::Conv3dBackwardInputOp>(op))
    weight = op->getOperand(1);
  else if (isa<nn::Conv2dBackwardWeightOp, nn::Conv3dBackwardWeightOp>(op))
    weight = op->getResult(0);
  return weight ? getTypeBytes(cast<RankedTensorType>(weight.getType()))
                      .value_or(0)
                : 0;
}

/// What an op and its recomputations share: the original's name (an
/// instance names it in remat.recompute_of).
static std::string getRecomputationKey(Operation *op) {
  if (auto of = op->getAttrOfType<StringAttr>(attr::kRecomputeOf))
    return of.str();
  StringRef name = getOpName(op);
  return name.empty() ? getValueName(op->getResult(0)) : name.str();
}

static bool isSpatial(Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return rank == 4 || rank == 5;
}

// The choice is made for an op and all its recomputations together, over
// the readers of every instance: the planned step and the step before
// rematerialization then store each op's results alike, and compute
// bit-identical values.
void Runner::chooseChannelsLast() {
  Operation *terminator = function.getFunctionBody().front().getTerminator();
  auto takes = [&](Operation *op) {
    return op != terminator && kernelTakesChannelsLast(op);
  };
  // Channels-last pays where activations are large and outweigh weights: a
  // convolution with a channels-last activation computes channels-last,
  // with its weight (or weight gradient) copied to that format at every
  // call; with a contiguous one, oneDNN copies the activation to a blocked
  // format. Below kLargeValueBytes such copies are negligible,
  // and values stay contiguous, as eager PyTorch computes them.
  auto paysFor = [&](Value value) {
    int64_t bytes =
        getTypeBytes(cast<RankedTensorType>(value.getType())).value_or(0);
    if (bytes < kLargeValueBytes)
      return false;
    auto lighter = [&](Operation *op) {
      return getConvolutionWeightBytes(op) <= bytes;
    };
    return lighter(value.getDefiningOp()) &&
           llvm::all_of(value.getUsers(), lighter);
  };
  // The spatial results of one op (a max pool's values and indices) are
  // stored alike: its kernel writes them in one format.
  auto eligible = [&](Operation *op) {
    if (!takes(op) || op->getNumResults() == 0)
      return false;
    bool anySpatial = false;
    for (Value result : op->getResults()) {
      if (!isSpatial(result))
        continue;
      anySpatial = true;
      if (storage.getUpdatedArgument(result) ||
          storage.getOwner(result) != result ||
          !llvm::all_of(result.getUsers(), takes) || !paysFor(result))
        return false;
    }
    return anySpatial;
  };
  llvm::StringMap<bool> eligibleByKey;
  for (Operation *op : analysis.getSchedule()) {
    if (!takes(op) || op->getNumResults() == 0)
      continue;
    auto [it, inserted] =
        eligibleByKey.try_emplace(getRecomputationKey(op), true);
    it->second &= eligible(op);
  }
  for (Operation *op : analysis.getSchedule()) {
    if (!takes(op) || op->getNumResults() == 0 ||
        !eligibleByKey.lookup(getRecomputationKey(op)))
      continue;
    for (Value result : op->getResults())
      if (isSpatial(result))
        channelsLast.insert(result);
  }
}

LogicalResult Runner::checkSharedOffset(Operation *op, Value value,
                                        int64_t offset) {
  if (!planned || !checking)
    return success();
  Value owner = storage.getOwner(value);
  if (isa<BlockArgument>(owner)) {
    if (offset == -1)
      return success();
    return op->emitOpError()
           << "places '" << getValueName(value) << "' at arena byte "
           << offset << ", but it lives in the buffer of argument '"
           << getValueName(owner) << "' (its remat.placement offset must be -1)";
  }
  auto found = slotOffsets.find(owner);
  if (found != slotOffsets.end() && found->second == offset)
    return success();
  return op->emitOpError()
         << "places the view '" << getValueName(value) << "' at arena byte "
         << offset << ", but it shares the bytes of '" << getValueName(owner)
         << "' at " << (found == slotOffsets.end() ? -1 : found->second);
}

/// Whether a kernel computed `computed` in `destination` itself: an `_out`
/// kernel, or one whose result allocation took the destination's slot
/// (KernelLoans).
static bool isComputedInPlace(const at::Tensor &computed,
                              const at::Tensor &destination) {
  return computed.is_same(destination) ||
         (computed.data_ptr() == destination.data_ptr() &&
          computed.strides() == destination.strides() &&
          computed.scalar_type() == destination.scalar_type());
}

/// Whether `tensor`'s data starts inside `slot`'s bytes.
static bool sharesBytes(const at::Tensor &tensor, const at::Tensor &slot) {
  auto *start = static_cast<const uint8_t *>(slot.data_ptr());
  auto *data = static_cast<const uint8_t *>(tensor.data_ptr());
  return data >= start && data < start + slot.nbytes();
}

LogicalResult Runner::place(Operation *op, Value value,
                            const at::Tensor &destination,
                            const at::Tensor &computed) {
  if (computed.sizes() != destination.sizes())
    return op->emitOpError() << "internal error: its kernel produced a "
                                "tensor of another shape than "
                             << value.getType();
  if (!isComputedInPlace(computed, destination))
    const_cast<at::Tensor &>(destination).copy_(computed);
  tensors[value] = destination;
  return success();
}

void Runner::prepare(bool warnUnplanned, CpuRunReport &report) {
  // The dialect verified that a planned function places every result.
  MemoryPlanAttr memoryPlan = getMemoryPlan(function);
  planned = static_cast<bool>(memoryPlan);
  if (!planned && warnUnplanned)
    function.emitWarning("has no memory plan (run remat-plan-memory first); "
                         "remat-run runs it with plain allocations");
  report.planned = planned;
  report.arenaBytes = planned ? memoryPlan.getArenaBytes() : 0;
  report.argumentBytes = analysis.getArgumentBytes();
  report.analysisPeakBytes = analysis.getPeakBytes();
  measuredPeak = report.argumentBytes;
  if (planned)
    arena = at::zeros({std::max<int64_t>(report.arenaBytes, 1)}, at::kByte);
  chooseChannelsLast();

  // An arena value's bytes are needed until the last use of it or of any
  // view of it; returned (it or a view of it), until the end.
  auto use = [&](Value value, int64_t step) {
    int64_t &last = valueLastStep[value];
    last = std::max(last, step);
    Value owner = storage.getOwner(value);
    if (!isa<BlockArgument>(owner)) {
      int64_t &ownerLast = ownerLastStep[owner];
      ownerLast = std::max(ownerLast, step);
    }
  };
  for (auto [step, op] : llvm::enumerate(analysis.getSchedule())) {
    for (Value operand : op->getOperands())
      use(operand, int64_t(step));
    for (Value result : op->getResults())
      use(result, int64_t(step));
  }
  Block &body = function.getFunctionBody().front();
  for (Value value : body.getTerminator()->getOperands())
    use(value, INT64_MAX);
}

LogicalResult Runner::runView(Operation *op, int64_t offset) {
  // The source's bytes reinterpreted with the view's shape: no kernel, no
  // copy, no bytes of its own.
  Value result = op->getResult(0);
  if (failed(checkSharedOffset(op, result, offset)))
    return failure();
  auto viewSource = cast<ViewLikeOpInterface>(op).getViewSource();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(result.getType()).getShape();
  tensors[result] = tensors.lookup(viewSource)
                        .view(at::IntArrayRef(shape.data(), shape.size()));
  return success();
}

LogicalResult Runner::runKernelOp(Operation *op,
                                  function_ref<int64_t(unsigned)> offsetOf) {
  std::vector<at::Tensor> operands;
  for (Value operand : op->getOperands())
    operands.push_back(tensors.lookup(operand));
  // Where each result goes, and what the kernel writes into: the same,
  // except that a kernel never writes into the buffer of an argument it
  // reads (an update written over the old value it reads): it computes into
  // a temporary that is copied into the argument's buffer once every result
  // is computed. The optimizer updates are the exception: they update the
  // state in place, element by element, as torch.optim does.
  std::vector<at::Tensor> destinations, kernelOuts;
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    at::Tensor destination;
    if (BlockArgument argument = storage.getUpdatedArgument(result)) {
      if (failed(checkSharedOffset(op, result, offsetOf(index))))
        return failure();
      destination = tensors.lookup(argument);
    } else {
      FailureOr<at::Tensor> slot =
          makeArenaDestination(op, result, offsetOf(index));
      if (failed(slot))
        return failure();
      destination = *slot;
    }
    bool readByOp = storage.getUpdatedArgument(result) &&
                    !kernelUpdatesInPlace(op) &&
                    llvm::any_of(operands, [&](const at::Tensor &operand) {
                      return operand.is_alias_of(destination);
                    });
    destinations.push_back(destination);
    kernelOuts.push_back(readByOp ? at::empty_like(destination) : destination);
  }
  // The kernel's allocations take arena bytes the plan leaves free while it
  // runs, until its results are placed and its temporaries freed.
  std::optional<KernelLoans> loans;
  if (planned)
    loans.emplace(getDirectedSlots(op, destinations, kernelOuts),
                  [this] { return getFreeRanges(); });
  if (failed(runKernelAndPlace(op, destinations, operands, kernelOuts,
                               loans ? &*loans : nullptr)))
    return failure();
  if (int64_t kept = loans ? loans->finish() : 0)
    return op->emitOpError()
           << "internal error: ATen kept " << kept
           << " bytes of temporaries that the executor lent it from the "
              "arena's free bytes after the kernel returned";
  return success();
}

LogicalResult Runner::runKernelAndPlace(Operation *op,
                                        ArrayRef<at::Tensor> destinations,
                                        ArrayRef<at::Tensor> operands,
                                        ArrayRef<at::Tensor> kernelOuts,
                                        KernelLoans *loans) {
  FailureOr<std::vector<at::Tensor>> results =
      runKernel(op, operands, kernelOuts);
  if (failed(results))
    return failure();
  // The results' slots are theirs from here on; the copies below may still
  // take free bytes.
  if (loans)
    loans->stopLendingSlots();
  // A result computed in another result's slot (two results of one size),
  // or in its own with other strides, moves out first, so that copying does
  // not overwrite what it still has to read.
  for (size_t index = 0; index < results->size(); ++index) {
    at::Tensor &computed = (*results)[index];
    if (!isComputedInPlace(computed, destinations[index]) &&
        llvm::any_of(destinations, [&](const at::Tensor &destination) {
          return sharesBytes(computed, destination);
        }))
      computed = computed.clone();
  }
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (failed(place(op, result, destinations[index], (*results)[index])))
      return failure();
  return success();
}

std::vector<std::pair<size_t, void *>>
Runner::getDirectedSlots(Operation *op, ArrayRef<at::Tensor> destinations,
                         ArrayRef<at::Tensor> kernelOuts) const {
  std::vector<std::pair<size_t, void *>> slots;
  if (!planned || !kernelAllocatesResults(op))
    return slots;
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    const at::Tensor &destination = destinations[index];
    if (storage.getUpdatedArgument(result) ||
        !kernelOuts[index].is_same(destination) || destination.nbytes() == 0)
      continue;
    slots.emplace_back(destination.nbytes(), destination.data_ptr());
  }
  return slots;
}

std::vector<ArenaRange> Runner::getFreeRanges() const {
  std::vector<std::pair<int64_t, int64_t>> occupied;
  for (const Slot &slot : live)
    if (slot.bytes > 0)
      occupied.push_back({slot.offset, slot.offset + slot.bytes});
  llvm::sort(occupied);
  auto *base = static_cast<uint8_t *>(arena.data_ptr());
  std::vector<ArenaRange> ranges;
  int64_t start = 0;
  for (auto [begin, end] : occupied) {
    if (begin > start)
      ranges.push_back({base + start, size_t(begin - start)});
    start = std::max(start, end);
  }
  if (arena.numel() > start)
    ranges.push_back({base + start, size_t(arena.numel() - start)});
  return ranges;
}

void Runner::finishOp(Operation *op, int64_t step, CpuRunReport &report) {
  if (planned && checking) {
    int64_t occupied = analysis.getWorkspaceBytes()[step];
    for (const Slot &slot : live)
      occupied += slot.bytes;
    measuredPeak = std::max(measuredPeak, report.argumentBytes + occupied);
  }
  // Values whose bytes were last needed here leave the arena; unplanned,
  // the executor drops its reference to values last used here (a view
  // keeps its owner's storage alive).
  llvm::erase_if(live, [&](const Slot &slot) { return slot.lastStep <= step; });
  if (!planned)
    for (Value operand : op->getOperands())
      if (!isa<BlockArgument>(operand) && valueLastStep.lookup(operand) <= step)
        tensors.erase(operand);
}

LogicalResult Runner::recordStep(bool lastStep, CpuRunReport &report) {
  Block &body = function.getFunctionBody().front();
  Operation *terminator = body.getTerminator();
  std::vector<NamedArray> scalars;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    auto name = function.getResultAttrOfType<StringAttr>(index, attr::kName);
    std::string resultName =
        name ? name.str() : "result" + std::to_string(index);
    const at::Tensor &tensor = tensors.lookup(value);
    if (!storage.getUpdatedArgument(value) && tensor.numel() == 1)
      scalars.push_back({resultName, toNpy(tensor)});
    if (lastStep) {
      BlockArgument updated = storage.getUpdatedArgument(value);
      report.results.push_back({resultName, toNpy(tensor),
                                updated ? getValueName(updated) : ""});
    }
  }
  report.stepScalars.push_back(std::move(scalars));
  if (!lastStep)
    return success();
  report.measuredPeakBytes = planned ? measuredPeak : 0;
  for (BlockArgument argument : body.getArguments()) {
    report.arguments.push_back(
        {getValueName(argument), toNpy(tensors.lookup(argument))});
    if (storage.getUpdate(argument))
      report.finalState.push_back(report.arguments.back());
  }
  if (planned && report.measuredPeakBytes != report.analysisPeakBytes)
    return function.emitOpError()
           << "measured a peak of " << report.measuredPeakBytes
           << " bytes in the arena (arguments included), but the analysis "
              "says "
           << report.analysisPeakBytes;
  return success();
}

LogicalResult Runner::runStep(ArrayRef<at::Tensor> arguments, bool lastStep,
                              CpuRunReport &report) {
  Block &body = function.getFunctionBody().front();
  tensors.clear();
  live.clear();
  slotOffsets.clear();
  for (auto [argument, tensor] : llvm::zip(body.getArguments(), arguments))
    tensors[argument] = tensor;
  // ATen's allocations are tagged with the op that makes them, until the
  // step ends or fails.
  auto untag = llvm::make_scope_exit([] { setAllocationTag(nullptr); });

  for (auto [step, op] : llvm::enumerate(analysis.getSchedule())) {
    PlacementAttr placement = getPlacement(op);
    auto offsetOf = [&](unsigned index) -> int64_t {
      return planned ? placement.getOffsets()[index] : 0;
    };
    setAllocationTag(op);
    if (failed(isViewOp(op) ? runView(op, offsetOf(0))
                            : runKernelOp(op, offsetOf)))
      return failure();
    finishOp(op, int64_t(step), report);
  }
  return recordStep(lastStep, report);
}

} // namespace

/// The op an allocation tag names (the runner tags each op's allocations
/// with the op), as its name and location; empty for no op.
static std::string describeTaggedOp(const void *tag) {
  if (!tag)
    return "";
  Operation *op = static_cast<Operation *>(const_cast<void *>(tag));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at " << op->getLoc();
  return text;
}

/// Sets `lr` on every optimizer update in `function`.
static void setLearningRate(FunctionOpInterface function, double lr) {
  Builder builder(function.getContext());
  FloatAttr attr = builder.getF64FloatAttr(lr);
  function.walk([&](Operation *op) {
    if (auto sgd = dyn_cast<nn::SgdOp>(op))
      sgd.setLrAttr(attr);
    else if (auto adam = dyn_cast<nn::AdamOp>(op))
      adam.setLrAttr(attr);
  });
}

/// Checks that per-step learning rates fit the run: one per step, and an
/// optimizer update to take them.
static LogicalResult checkLearningRates(FunctionOpInterface function,
                                        const CpuRunOptions &options) {
  if (options.learningRates.empty())
    return success();
  int64_t steps = std::max<int64_t>(options.steps, 1);
  if (int64_t(options.learningRates.size()) != steps)
    return function.emitOpError()
           << "is given " << options.learningRates.size()
           << " learning rates for " << steps << " steps; give one per step";
  bool updates = false;
  function.walk(
      [&](Operation *op) { updates |= isa<nn::SgdOp, nn::AdamOp>(op); });
  if (!updates)
    return function.emitOpError()
           << "is given learning rates, but has no optimizer update "
           << "(nn.sgd or nn.adam) to take them";
  return success();
}

FailureOr<CpuRunReport> mlir::remat::runOnCpu(FunctionOpInterface function,
                                              const CpuRunOptions &options) {
  FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
  if (failed(analysis) || failed(checkLearningRates(function, options)))
    return failure();
  try {
    if (options.threads > 0)
      at::set_num_threads(options.threads);
    FailureOr<std::vector<LoadedArgument>> arguments =
        loadArguments(function, options);
    if (failed(arguments))
      return failure();
    std::vector<at::Tensor> buffers;
    for (const LoadedArgument &argument : *arguments)
      buffers.push_back(argument.buffer);
    CpuRunReport report;
    OutsideArenaScope counting;
    Runner runner(function, *analysis);
    runner.prepare(options.warnUnplanned, report);
    int64_t steps = std::max<int64_t>(options.steps, 1);
    auto start = std::chrono::steady_clock::now();
    for (int64_t step = 0; step < steps; ++step) {
      // This step's batch goes into the argument's buffer; a seed without
      // one per step moves on by one.
      for (LoadedArgument &argument : *arguments) {
        if (argument.perStep.defined())
          argument.buffer.copy_(argument.perStep.select(0, step));
        else if (argument.advancesEachStep && step > 0)
          argument.buffer.add_(1);
      }
      if (!options.learningRates.empty())
        setLearningRate(function, options.learningRates[step]);
      if (failed(runner.runStep(buffers, step + 1 == steps, report)))
        return failure();
    }
    report.runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    // The arena itself is allocated through ATen too.
    int64_t arenaAllocation =
        report.planned ? std::max<int64_t>(report.arenaBytes, 1) : 0;
    report.outsideArenaPeakBytes = counting.getPeak() - arenaAllocation;
    report.outsideArenaPeakOp = describeTaggedOp(counting.getPeakTag());
    return report;
  } catch (const c10::Error &error) {
    return function.emitOpError()
           << "ATen failed: " << error.what_without_backtrace();
  } catch (const std::exception &error) {
    return function.emitOpError() << "failed: " << error.what();
  }
}

//===----------------------------------------------------------------------===//
// CpuStepRunner
//===----------------------------------------------------------------------===//

struct CpuStepRunner::State {
  State(FunctionOpInterface function, PeakMemory analysis)
      : function(function), analysis(std::move(analysis)),
        runner(function, this->analysis) {}

  FunctionOpInterface function;
  PeakMemory analysis;
  Runner runner;
  CpuRunReport report;
  int64_t outsideArenaPeak = 0;
  std::string outsideArenaPeakOp;
};

CpuStepRunner::CpuStepRunner(std::unique_ptr<State> state)
    : state(std::move(state)) {}

CpuStepRunner::~CpuStepRunner() = default;

FailureOr<std::unique_ptr<CpuStepRunner>>
CpuStepRunner::create(FunctionOpInterface function) {
  for (BlockArgument argument : function.getArguments())
    if (!getScalarType(
            cast<RankedTensorType>(argument.getType()).getElementType()))
      return emitError(argument.getLoc())
             << "argument '" << getValueName(argument)
             << "' has an element type the CPU executor cannot hold";
  FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
  if (failed(analysis))
    return failure();
  auto state = std::make_unique<State>(function, std::move(*analysis));
  try {
    state->runner.prepare(/*warnUnplanned=*/false, state->report);
  } catch (const c10::Error &error) {
    return function.emitOpError()
           << "ATen failed: " << error.what_without_backtrace();
  }
  return std::unique_ptr<CpuStepRunner>(new CpuStepRunner(std::move(state)));
}

FailureOr<std::vector<NamedArray>>
CpuStepRunner::runStep(ArrayRef<ArgumentBuffer> buffers, bool check) {
  FunctionOpInterface function = state->function;
  if (buffers.size() != function.getNumArguments())
    return function.emitOpError()
           << "takes " << function.getNumArguments() << " arguments, but "
           << buffers.size() << " buffers were given";
  std::vector<at::Tensor> tensors;
  for (auto [argument, buffer] :
       llvm::zip_equal(function.getArguments(), buffers)) {
    auto type = cast<RankedTensorType>(argument.getType());
    at::ScalarType scalar = *getScalarType(type.getElementType());
    if (ArrayRef<int64_t>(buffer.shape) != type.getShape() ||
        getNpyType(scalar) != buffer.type || !buffer.data)
      return emitError(argument.getLoc())
             << "argument '" << getValueName(argument)
             << "': the buffer given does not hold a " << type;
    tensors.push_back(at::from_blob(buffer.data, buffer.shape,
                                    at::TensorOptions().dtype(scalar)));
  }
  CpuRunReport &report = state->report;
  report.stepScalars.clear();
  state->runner.setChecking(check);
  try {
    OutsideArenaScope counting;
    if (failed(state->runner.runStep(tensors, /*lastStep=*/false, report)))
      return failure();
    // The arena was allocated before counting started.
    if (counting.getPeak() > state->outsideArenaPeak) {
      state->outsideArenaPeak = counting.getPeak();
      state->outsideArenaPeakOp = describeTaggedOp(counting.getPeakTag());
    }
  } catch (const c10::Error &error) {
    return function.emitOpError()
           << "ATen failed: " << error.what_without_backtrace();
  } catch (const std::exception &error) {
    return function.emitOpError() << "failed: " << error.what();
  }
  if (check && report.planned &&
      state->runner.getMeasuredPeak() != report.analysisPeakBytes)
    return function.emitOpError()
           << "measured a peak of " << state->runner.getMeasuredPeak()
           << " bytes in the arena (arguments included), but the analysis "
              "says "
           << report.analysisPeakBytes;
  return std::move(report.stepScalars.front());
}

int64_t CpuStepRunner::getPeakBytes() const {
  return state->report.analysisPeakBytes;
}
int64_t CpuStepRunner::getArenaBytes() const {
  return state->report.arenaBytes;
}
int64_t CpuStepRunner::getArgumentBytes() const {
  return state->report.argumentBytes;
}
int64_t CpuStepRunner::getOutsideArenaPeakBytes() const {
  return state->outsideArenaPeak;
}
const std::string &CpuStepRunner::getOutsideArenaPeakOp() const {
  return state->outsideArenaPeakOp;
}
