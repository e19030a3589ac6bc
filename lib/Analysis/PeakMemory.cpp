//===- PeakMemory.cpp - bytes live at every op of a step ------------------===//
//
// Extracts lifetimes from the IR (the only IR-dependent part) and hands them
// to the IR-free memory model.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/PeakMemory.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/CostOpInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;

FailureOr<int64_t> mlir::remat::getValueBytes(Value value, Location loc) {
  if (std::optional<int64_t> bytes = getTypeBytes(value.getType()))
    return *bytes;
  if (exceedsByteRange(value.getType()))
    return emitError(loc) << "value of type " << value.getType()
                          << " has more bytes than the int64 range holds";
  return emitError(loc) << "value of type " << value.getType()
                        << " has no static size; remat needs statically "
                           "shaped tensors of sized element types";
}

LogicalResult PeakMemory::measureArguments(Block &block,
                                           const ValueStorage &storage) {
  for (BlockArgument argument : block.getArguments()) {
    FailureOr<int64_t> bytes = getValueBytes(argument, argument.getLoc());
    if (failed(bytes))
      return failure();
    if (storage.getUpdate(argument))
      updatedArgumentBytes += *bytes;
    std::optional<int64_t> sum = addBytes(argumentBytes, *bytes);
    if (!sum)
      return emitError(argument.getLoc())
             << "the arguments' bytes exceed the int64 range at this argument";
    argumentBytes = *sum;
  }
  return success();
}

LogicalResult
PeakMemory::collectSteps(Block &block,
                         llvm::DenseMap<Operation *, int64_t> &stepOf) {
  for (Operation &op : block.without_terminator()) {
    auto costOp = dyn_cast<CostOpInterface>(&op);
    if (!costOp)
      return op.emitOpError()
             << "has no cost information (it implements no CostOpInterface, "
                "directly or through an external model), so remat cannot "
                "plan it";
    stepOf[&op] = schedule.size();
    schedule.push_back(&op);
    workspaceBytes.push_back(costOp.getWorkspaceBytes());
  }
  return success();
}

LogicalResult
PeakMemory::measureValues(Block &block, const ValueStorage &storage,
                          const llvm::DenseMap<Operation *, int64_t> &stepOf) {
  Operation *terminator = block.getTerminator();
  int64_t lastStep = static_cast<int64_t>(schedule.size()) - 1;
  llvm::DenseMap<Value, int64_t> indexOf;
  for (Operation *op : schedule) {
    int64_t defined = stepOf.lookup(op);
    for (Value value : op->getResults()) {
      FailureOr<int64_t> bytes = getValueBytes(value, op->getLoc());
      if (failed(bytes))
        return failure();
      StorageKind kind = storage.getKind(value);
      Value owner = storage.getOwner(value);
      int64_t ownBytes = kind == StorageKind::Arena ? *bytes : 0;
      ValueLifetime info{value, {ownBytes, defined, defined}, false, kind,
                         isa<BlockArgument>(owner) ? -1
                                                   : indexOf.lookup(owner)};
      if (kind == StorageKind::Arena)
        info.ownerIndex = values.size();
      indexOf[value] = values.size();
      for (OpOperand &use : value.getUses()) {
        Operation *user = block.findAncestorOpInBlock(*use.getOwner());
        if (user == terminator)
          info.isFunctionResult = true;
        else if (user)
          info.lifetime.last =
              std::max(info.lifetime.last, stepOf.lookup(user));
      }
      if (info.isFunctionResult)
        info.lifetime.last = lastStep;
      // The owner's bytes live while any view of them does.
      if (kind == StorageKind::View && info.ownerIndex >= 0) {
        ValueLifetime &ownerInfo = values[info.ownerIndex];
        ownerInfo.lifetime.last =
            std::max(ownerInfo.lifetime.last, info.lifetime.last);
        ownerInfo.isFunctionResult |= info.isFunctionResult;
      }
      values.push_back(info);
    }
  }
  return success();
}

LogicalResult PeakMemory::computeProfile() {
  int64_t steps = static_cast<int64_t>(schedule.size());
  std::vector<Lifetime> lifetimes;
  for (const ValueLifetime &info : values)
    lifetimes.push_back(info.lifetime);
  for (int64_t step = 0; step < steps; ++step)
    lifetimes.push_back({workspaceBytes[step], step, step});
  profile = computeLiveProfile(argumentBytes, lifetimes, steps);
  if (profile.overflows())
    return schedule[profile.overflowStep]->emitOpError()
           << "runs with more bytes live than the int64 range holds "
              "(arguments, live values and workspace)";
  return success();
}

FailureOr<PeakMemory> PeakMemory::analyze(FunctionOpInterface function) {
  PeakMemory result;
  result.function = function;
  Region &body = function.getFunctionBody();
  if (body.empty())
    return function.emitOpError("has no body to analyze");
  if (!body.hasOneBlock())
    return function.emitOpError(
        "has several blocks; remat analyzes single-block bodies");
  Block &block = body.front();
  ValueStorage storage(function);
  llvm::DenseMap<Operation *, int64_t> stepOf;
  if (failed(result.measureArguments(block, storage)) ||
      failed(result.collectSteps(block, stepOf)) ||
      failed(result.measureValues(block, storage, stepOf)) ||
      failed(result.computeProfile()))
    return failure();
  return result;
}

Operation *PeakMemory::getPeakOp() const {
  return profile.peakStep < 0 ? nullptr : schedule[profile.peakStep];
}

MemoryBreakdown PeakMemory::getBreakdown(int64_t step) const {
  MemoryBreakdown breakdown;
  breakdown.arguments = argumentBytes;
  if (step < 0 || step >= static_cast<int64_t>(schedule.size()))
    return breakdown;
  breakdown.workspace = workspaceBytes[step];
  for (const ValueLifetime &info : values) {
    if (!info.lifetime.isLiveAt(step))
      continue;
    if (info.isFunctionResult)
      breakdown.results += info.lifetime.bytes;
    else
      breakdown.activations += info.lifetime.bytes;
  }
  return breakdown;
}

/// Prints an op as `nn.relu "name"`.
static void printOp(raw_ostream &os, Operation *op) {
  os << op->getName();
  StringRef name = getOpName(op);
  if (!name.empty())
    os << " \"" << name << "\"";
}

void PeakMemory::print(raw_ostream &os) const {
  os << "peak-memory @" << FunctionOpInterface(function).getName()
     << ": arguments "
     << argumentBytes << " bytes, " << schedule.size() << " steps\n";
  for (size_t step = 0; step < schedule.size(); ++step) {
    os << "  step " << step << " ";
    printOp(os, schedule[step]);
    os << ": live " << profile.liveBytes[step] << ", workspace "
       << workspaceBytes[step] << "\n";
  }
  os << "  peak " << profile.peakBytes << " bytes";
  if (Operation *peakOp = getPeakOp()) {
    MemoryBreakdown breakdown = getBreakdown(profile.peakStep);
    os << " at step " << profile.peakStep << " ";
    printOp(os, peakOp);
    os << ": arguments " << breakdown.arguments << ", results "
       << breakdown.results << ", activations " << breakdown.activations
       << ", workspace " << breakdown.workspace;
  }
  os << "\n";
}
