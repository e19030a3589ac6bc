//===- CudaEmitter.cpp - a planned step as one CUDA C++ source ------------===//
//
// Checks that the function is planned (remat-plan-memory's offsets and arena
// size) and that every value has a CUDA element type, walks its ops in
// schedule order - chains of element-wise ops into generated kernels, every
// other op into a library call - and writes, in this order: the runtime
// (Runtime/*.cuh, embedded at build time), the generated kernels, the step
// function, the tables the harness reads, and main(). Nothing is written
// unless the whole function lowers.
//
//===----------------------------------------------------------------------===//

#include "remat/Target/Cuda/CudaEmitter.h"

#include "StepWriter.h"

#include "remat/Analysis/PeakMemory.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAll.h"
#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::cuda;

/// The runtime's files, in order (generated from Runtime/*.cuh).
#include "RuntimeSources.inc"

//===----------------------------------------------------------------------===//
// StepWriter
//===----------------------------------------------------------------------===//

/// `text` as a C++ string literal.
static std::string quote(StringRef text) {
  std::string result = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += char(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char octal[5];
      std::snprintf(octal, sizeof(octal), "\\%03o", unsigned(c));
      result += octal;
    } else {
      result += char(c);
    }
  }
  return result + "\"";
}

StepWriter::StepWriter(FunctionOpInterface function) : storage(function) {
  if (MemoryPlanAttr plan = getMemoryPlan(function))
    arenaBytes = plan.getArenaBytes();
}

std::string StepWriter::getElementCType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return "";
  Type element = type.getElementType();
  if (element.isF32())
    return "float";
  if (element.isSignlessInteger(64))
    return "int64_t";
  return "";
}

int64_t StepWriter::getByteSize(Value value) {
  return getElementCount(value) * (getElementCType(value) == "float" ? 4 : 8);
}

int64_t StepWriter::getPlannedOffset(Value result) {
  auto opResult = cast<OpResult>(result);
  return getPlacement(opResult.getOwner())
      .getOffsets()[opResult.getResultNumber()];
}

bool StepWriter::isMaterializedView(Value value) const {
  if (storage.getKind(value) != StorageKind::View || !storage.isInArena(value))
    return false;
  // A plan that knows views gives a view its source's offset (its owner's);
  // a plan that does not never does, as both are live at the view op. (The
  // owner's offset would not tell: such a plan may reuse the dead owner's
  // slot for a view of a view.)
  Value source = cast<ViewLikeOpInterface>(value.getDefiningOp()).getViewSource();
  return getPlannedOffset(value) != getPlannedOffset(source);
}

BufferPlace StepWriter::getPlace(Value value) const {
  // A materialized view has its own slot; a view of one is at the first
  // materialized view on the way to the owner (or the owner).
  Value at = value;
  while (storage.getKind(at) == StorageKind::View && !isMaterializedView(at))
    at = cast<ViewLikeOpInterface>(at.getDefiningOp()).getViewSource();
  if (storage.getKind(at) == StorageKind::View)
    return {-1, getPlannedOffset(at)};
  Value owner = storage.getOwner(at);
  if (auto argument = dyn_cast<BlockArgument>(owner))
    return {int64_t(argument.getArgNumber()), 0};
  return {-1, getPlannedOffset(owner)};
}

std::string StepWriter::getPointer(Value value, bool isConst) const {
  std::string type = (isConst ? "const " : "") + getElementCType(value) + " *";
  BufferPlace location = getPlace(value);
  if (location.argument >= 0)
    return llvm::formatv("(({0})arguments[{1}])", type, location.argument)
        .str();
  return llvm::formatv("(({0})(arena + {1}))", type, location.offset).str();
}

int64_t StepWriter::getScratchOffset() const {
  return (arenaBytes + 255) / 256 * 256;
}

std::string StepWriter::getScratchPointer(Value value, int64_t offset) const {
  return llvm::formatv("(({0} *)(arena + {1}))", getElementCType(value),
                       getScratchOffset() + offset)
      .str();
}

std::string StepWriter::getPointer(Value value) const {
  return getPointer(value, /*isConst=*/false);
}

std::string StepWriter::getConstPointer(Value value) const {
  return getPointer(value, /*isConst=*/true);
}

std::string StepWriter::getWorkspace(Operation *op) const {
  PlacementAttr placement = getPlacement(op);
  std::optional<int64_t> offset =
      placement ? placement.getWorkspace() : std::nullopt;
  auto cost = dyn_cast<CostOpInterface>(op);
  int64_t bytes = cost ? cost.getWorkspaceBytes() : 0;
  if (!offset || bytes <= 0)
    return "nullptr, 0";
  return llvm::formatv("arena + {0}, {1}", *offset, bytes).str();
}

std::string StepWriter::getOpLabel(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>(attr::kName);
  return quote(name ? name.getValue() : op->getName().getStringRef());
}

std::vector<std::string> StepWriter::addUpdate(Update update,
                                               ArrayRef<StringRef> names) {
  std::string base = std::to_string(updates.size()) +
                     " * remat_rt::kNumHyperparameters + remat_rt::";
  updates.push_back(std::move(update));
  std::vector<std::string> expressions;
  for (StringRef name : names)
    expressions.push_back("ctx.hyperparameters[" + base + name.str() + "]");
  return expressions;
}

int64_t mlir::remat::cuda::getElementCount(Value value) {
  return cast<RankedTensorType>(value.getType()).getNumElements();
}

ArrayRef<int64_t> mlir::remat::cuda::getShape(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

/// The rank limit of the runtime's Dims and the harness tables.
constexpr int64_t kMaxRank = 8;

static LogicalResult checkValue(Value value, Location loc) {
  std::string ctype = StepWriter::getElementCType(value);
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (ctype.empty())
    return emitError(loc) << "value '" << getValueName(value) << "' of type "
                          << value.getType()
                          << " has no CUDA lowering (static f32 or i64 "
                             "tensors only)";
  if (type.getRank() > kMaxRank)
    return emitError(loc) << "value '" << getValueName(value) << "' has rank "
                          << type.getRank() << "; the CUDA lowering takes at "
                          << "most " << kMaxRank;
  return success();
}

static LogicalResult checkPlanned(func::FuncOp function) {
  if (!getMemoryPlan(function))
    return emitFunctionError(function)
           << "has no memory plan: run remat-plan-memory (or remat-opt with "
              "--budget, whose pipeline ends with it) before --emit-cuda";
  for (BlockArgument argument : function.getArguments())
    if (failed(checkValue(argument, argument.getLoc())))
      return failure();
  for (Operation &op : function.getBody().front().without_terminator()) {
    if (!isa<nn::NNDialect>(op.getDialect()))
      return emitOpError(&op) << "has no CUDA lowering (the CUDA lowering "
                                 "takes nn ops)";
    for (Value result : op.getResults())
      if (failed(checkValue(result, op.getLoc())))
        return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The step and its tables
//===----------------------------------------------------------------------===//

/// Whether `op` continues the element-wise chain ending in `last`.
static bool extendsChain(Operation *op, Operation *last) {
  if (!isElementwise(op) || !last)
    return false;
  if (getShape(op->getResult(0)) != getShape(last->getResult(0)))
    return false;
  return llvm::is_contained(op->getOperands(), last->getResult(0));
}

static LogicalResult writeStep(func::FuncOp function, StepWriter &writer) {
  SmallVector<Operation *> chain;
  auto flush = [&] {
    // One kernel for the chain, unless it would race on a slot the plan
    // reuses: then kernels for its longest safe prefixes, one after another.
    ArrayRef<Operation *> rest = chain;
    while (!rest.empty()) {
      size_t size = rest.size();
      while (size > 1 && hasFusionHazard(rest.take_front(size), writer))
        --size;
      emitElementwiseGroup(rest.take_front(size), writer);
      rest = rest.drop_front(size);
    }
    chain.clear();
  };
  Block &body = function.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (isElementwise(&op)) {
      if (!extendsChain(&op, chain.empty() ? nullptr : chain.back()))
        flush();
      chain.push_back(&op);
      continue;
    }
    flush();
    if (failed(emitLibraryCall(&op, writer)))
      return failure();
  }
  flush();
  for (auto [index, value] :
       llvm::enumerate(body.getTerminator()->getOperands()))
    writer.body() << "  results[" << index << "] = (void *)"
                  << writer.getPointer(value) << ";\n";
  return success();
}

static std::string elementTypeOf(Value value) {
  return StepWriter::getElementCType(value) == "float"
             ? "remat_rt::ElementType::F32"
             : "remat_rt::ElementType::I64";
}

static std::string shapeOf(Value value) {
  ArrayRef<int64_t> shape = getShape(value);
  std::string text = std::to_string(shape.size()) + ", {";
  for (auto [index, size] : llvm::enumerate(shape))
    text += (index ? ", " : "") + std::to_string(size);
  return text + "}";
}

static void writeTables(func::FuncOp function, const StepWriter &writer,
                        raw_ostream &os) {
  os << "static const remat_rt::ArgumentInfo kArguments[] = {\n";
  for (BlockArgument argument : function.getArguments()) {
    ArgumentRole role = getArgumentRole(function, argument.getArgNumber())
                            .value_or(ArgumentRole::Input);
    os << "  {" << quote(getValueName(argument)) << ", "
       << quote(stringifyArgumentRole(role)) << ", "
       << elementTypeOf(argument) << ", " << shapeOf(argument) << ", "
       << nn::getIndexBound(argument) << "},\n";
  }
  os << "  {nullptr, nullptr, remat_rt::ElementType::F32, 0, {}, 0}};\n";
  os << "static const remat_rt::ResultInfo kResults[] = {\n";
  Operation *terminator = function.getBody().front().getTerminator();
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    auto name = function.getResultAttrOfType<StringAttr>(index, attr::kName);
    BlockArgument updated = writer.getStorage().getUpdatedArgument(value);
    os << "  {"
       << quote(name ? name.getValue().str() : "result" + std::to_string(index))
       << ", " << elementTypeOf(value) << ", " << shapeOf(value) << ", "
       << (updated ? int64_t(updated.getArgNumber()) : -1) << "},\n";
  }
  os << "  {nullptr, remat_rt::ElementType::F32, 0, {}, -1}};\n\n";
  os << "static const remat_rt::UpdateInfo kUpdates[] = {\n";
  for (const StepWriter::Update &update : writer.getUpdates())
    os << "  {" << quote(update.weight) << ", " << quote(update.kind) << "},\n";
  os << "  {nullptr, nullptr}};\n";
  os << "static const double kHyperparameters[] = {\n";
  for (const StepWriter::Update &update : writer.getUpdates()) {
    os << " ";
    for (double value : update.defaults)
      os << " " << llvm::format("%.17g", value) << ",";
    os << "\n";
  }
  os << "  0};\n\n";
  auto weights = function->getAttrOfType<StringAttr>(attr::kWeights);
  int64_t arena = getMemoryPlan(function).getArenaBytes();
  os << "static const remat_rt::StepInfo kStep{" << quote(function.getSymName())
     << ", kArguments, " << function.getNumArguments() << ", kResults, "
     << terminator->getNumOperands() << ", " << arena << ", "
     << writer.getScratchBytes() << ", "
     << (weights ? quote(weights.getValue()) : "nullptr") << ", remat_step, "
     << "kUpdates, " << writer.getUpdates().size() << ", kHyperparameters};\n\n"
     << "#ifdef REMAT_STEP_LIBRARY\n"
     << "const remat_rt::StepInfo &remat_rt::getLibraryStep() { return kStep; "
        "}\n"
     << "#else\n"
     << "int main(int argc, char **argv) {\n"
     << "  return remat_rt::runHarness(argc, argv, kStep);\n}\n"
     << "#endif\n";
}

LogicalResult mlir::remat::emitCuda(ModuleOp module, raw_ostream &os) {
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      functions.push_back(function);
  if (functions.size() != 1)
    return emitError(module.getLoc())
           << "--emit-cuda takes a module with one function with a body; "
              "this one has "
           << functions.size();
  func::FuncOp function = functions.front();
  if (failed(checkPlanned(function)))
    return failure();

  StepWriter writer(function);
  if (failed(writeStep(function, writer)))
    return failure();

  os << "// Generated by remat-translate --emit-cuda from @"
     << function.getSymName()
     << ": the planned training step, its runtime and a harness.\n"
        "// Build: scripts/build-cuda.sh THIS_FILE -o step; run and options: "
        "docs/cuda.md.\n"
        "// With -DREMAT_STEP_LIBRARY: a shared library with C entry points "
        "in place of the harness (docs/cuda.md).\n\n";
  for (const char *source : kRuntimeSources)
    os << source << "\n";
  os << "//===--- generated kernels ---===//\n\n" << writer.kernels().str();
  os << "//===--- the step ---===//\n\n"
     << "static void remat_step(remat_rt::Context &ctx, void *const "
        "*arguments, char *arena, void **results) {\n"
     << writer.body().str() << "}\n\n";
  writeTables(function, writer, os);
  return success();
}

void mlir::remat::registerCudaEmitter() {
  TranslateFromMLIRRegistration registration(
      "emit-cuda", "a planned step as one CUDA C++ source with its harness",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("--emit-cuda takes a module");
        // Everything goes to a string first: no half-written output.
        std::string text;
        llvm::raw_string_ostream stream(text);
        if (failed(emitCuda(module, stream)))
          return failure();
        os << text;
        return success();
      },
      [](DialectRegistry &registry) {
        registry.insert<func::FuncDialect>();
        registerRematDialects(registry);
      });
}
