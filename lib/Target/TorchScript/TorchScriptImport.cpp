//===- TorchScriptImport.cpp - a TorchScript module as one nn function ----===//
//
// Loads the module, prepares its forward graph (PrepareGraph.cpp), converts
// its nodes (NodeConverter), and assembles the function: arguments with
// names and roles, results, op names from module paths, and the weights.
//
//===----------------------------------------------------------------------===//

#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "ExportedProgram.h"
#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNDialect.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"

#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <map>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

namespace {
struct ArgumentInfo {
  std::string name;
  ArgumentRole role;
};

/// Assembles the imported function around the converted body.
class FunctionAssembler {
public:
  FunctionAssembler(PreparedGraph &prepared, Location fileLoc,
                    const TorchScriptImportOptions &options)
      : prepared(prepared), fileLoc(fileLoc), options(options),
        body(std::make_unique<Block>()) {}

  FailureOr<OwningOpRef<ModuleOp>> run();
  /// Every op's name and module, once run() named them.
  std::vector<ImportedOpOrigin> takeOpOrigins() { return std::move(origins); }

private:
  LogicalResult addArguments();
  Value addArgument(Type type, llvm::StringRef name, ArgumentRole role);
  LogicalResult collectResults(NodeConverter &converter);
  void nameOps(NodeConverter &converter);

  PreparedGraph &prepared;
  Location fileLoc;
  const TorchScriptImportOptions &options;
  std::unique_ptr<Block> body;
  std::vector<ArgumentInfo> arguments;
  SmallVector<Value> results;
  std::vector<std::string> resultNames;
  /// Per result, the name of the argument it is the new value of, or "".
  std::vector<std::string> resultUpdates;
  llvm::StringSet<> usedNames;
  std::vector<ImportedOpOrigin> origins;
};
} // namespace

Value FunctionAssembler::addArgument(Type type, llvm::StringRef name,
                                     ArgumentRole role) {
  std::string unique = name.str();
  for (int k = 2; usedNames.contains(unique); ++k)
    unique = name.str() + "." + std::to_string(k);
  usedNames.insert(unique);
  arguments.push_back({unique, role});
  return body->addArgument(type, fileLoc);
}

LogicalResult FunctionAssembler::addArguments() {
  for (auto [name, type] :
       llvm::zip_equal(prepared.inputNames, prepared.inputTypes))
    addArgument(type, name, ArgumentRole::Input);
  for (const LiftedTensor &lifted : prepared.lifted) {
    Type elementType =
        getElementType(fileLoc.getContext(), lifted.value.scalar_type());
    if (!elementType)
      return emitError(fileLoc)
             << (lifted.isBuffer ? "buffer '" : "parameter '") << lifted.name
             << "' has element type "
             << c10::toString(lifted.value.scalar_type())
             << ", which the nn dialect does not take";
    std::vector<int64_t> sizes = lifted.value.sizes().vec();
    addArgument(RankedTensorType::get(sizes, elementType), lifted.name,
                lifted.isBuffer ? ArgumentRole::Buffer : ArgumentRole::Weight);
  }
  return success();
}

LogicalResult FunctionAssembler::collectResults(NodeConverter &converter) {
  auto outputs = prepared.graph->outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value value = converter.lookup(outputs[i]);
    if (!value)
      return emitError(fileLoc)
             << "the forward returns a value of type '"
             << outputs[i]->type()->repr_str()
             << "'; an imported function returns tensors only";
    results.push_back(value);
    resultNames.push_back(outputs.size() == 1
                              ? std::string("output")
                              : "output." + std::to_string(i));
    resultUpdates.emplace_back();
  }
  for (auto [buffer, update] : converter.getBufferUpdates()) {
    auto argument = dyn_cast<BlockArgument>(buffer);
    if (!argument || argument.getOwner() != body.get())
      continue;
    results.push_back(update);
    const std::string &bufferName = arguments[argument.getArgNumber()].name;
    resultNames.push_back(bufferName + ".new");
    resultUpdates.push_back(bufferName);
  }
  return success();
}

/// Names each op after the module that produced it: the module's path when
/// it produced one op, else the path and the op's label or kind; duplicates
/// get .2, .3, ...
void FunctionAssembler::nameOps(NodeConverter &converter) {
  std::map<std::string, int> opsPerPath;
  for (const NodeConverter::CreatedOp &created : converter.getCreatedOps())
    if (created.suffix.empty())
      ++opsPerPath[created.modulePath];
  Builder b(fileLoc.getContext());
  for (const NodeConverter::CreatedOp &created : converter.getCreatedOps()) {
    std::string kind = created.op->getName().stripDialect().str();
    std::string base = created.modulePath;
    if (base.empty())
      base = kind;
    else if (!created.suffix.empty())
      base += "." + created.suffix;
    else if (!created.label.empty())
      base += "." + created.label;
    else if (opsPerPath[created.modulePath] > 1)
      base += "." + kind;
    std::string name = base;
    for (int k = 2; usedNames.contains(name); ++k)
      name = base + "." + std::to_string(k);
    usedNames.insert(name);
    created.op->setAttr(attr::kName, b.getStringAttr(name));
    setPhase(created.op, Phase::Forward);
    origins.push_back({name, created.modulePath, !created.suffix.empty()});
  }
}

FailureOr<OwningOpRef<ModuleOp>> FunctionAssembler::run() {
  if (failed(addArguments()))
    return failure();
  NodeConverter converter(
      body.get(), fileLoc,
      [this](Type type, llvm::StringRef name, ArgumentRole role) {
        return addArgument(type, name, role);
      });
  for (auto [input, argument] :
       llvm::zip(prepared.graph->inputs(), body->getArguments()))
    converter.map(input, argument);
  for (jit::Node *node : prepared.graph->nodes())
    if (failed(converter.convert(node)))
      return failure();
  if (failed(collectResults(converter)))
    return failure();
  for (auto [info, argument] : llvm::zip(arguments, body->getArguments()))
    if (info.role == ArgumentRole::Input && converter.isLabel(argument))
      info.role = ArgumentRole::Label;
  nameOps(converter);

  MLIRContext *context = fileLoc.getContext();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(body.get());
  func::ReturnOp::create(builder, fileLoc, results);
  builder.setInsertionPointToEnd(module->getBody());
  auto function = func::FuncOp::create(
      builder, fileLoc, options.functionName,
      builder.getFunctionType(body->getArgumentTypes(),
                              ValueRange(results).getTypes()));
  function.getBody().push_back(body.release());
  for (auto [index, info] : llvm::enumerate(arguments))
    function.setArgAttrs(index,
                         getArgumentAttributes(context, info.name, info.role));
  for (auto [index, name] : llvm::enumerate(resultNames))
    function.setResultAttr(index, attr::kName, builder.getStringAttr(name));
  for (auto [index, updated] : llvm::enumerate(resultUpdates))
    if (!updated.empty())
      function.setResultAttr(index, attr::kUpdates,
                             builder.getStringAttr(updated));
  if (!options.weightsPath.empty())
    function->setAttr(attr::kWeights,
                      builder.getStringAttr(options.weightsPath));
  if (failed(verify(*module)))
    return failure();
  return module;
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

static FailureOr<NpyArray> toNpy(const at::Tensor &tensor, Location loc,
                                 llvm::StringRef name) {
  NpyArray array;
  switch (tensor.scalar_type()) {
  case c10::ScalarType::Float:
    array.type = NpyType::F32;
    break;
  case c10::ScalarType::Double:
    array.type = NpyType::F64;
    break;
  case c10::ScalarType::Half:
    array.type = NpyType::F16;
    break;
  case c10::ScalarType::BFloat16:
    array.type = NpyType::BF16;
    break;
  case c10::ScalarType::Long:
    array.type = NpyType::I64;
    break;
  case c10::ScalarType::Int:
    array.type = NpyType::I32;
    break;
  default:
    return emitError(loc) << "weight '" << name << "' has element type "
                          << c10::toString(tensor.scalar_type())
                          << ", which cannot be written";
  }
  at::Tensor contiguous = tensor.detach().contiguous();
  array.shape = contiguous.sizes().vec();
  array.data.resize(contiguous.nbytes());
  // A zero-element tensor may have no storage: memcpy needs non-null pointers.
  if (contiguous.nbytes() != 0)
    std::memcpy(array.data.data(), contiguous.data_ptr(), contiguous.nbytes());
  return array;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// The first line of a LibTorch error, without its backtrace.
static std::string getMessage(const std::exception &error) {
  const char *text = error.what();
  if (auto *c10Error = dynamic_cast<const c10::Error *>(&error))
    text = c10Error->what_without_backtrace();
  llvm::StringRef message(text);
  return message.take_until([](char c) { return c == '\n'; }).trim().str();
}

static FailureOr<TorchScriptImport>
importPrepared(FailureOr<PreparedGraph> prepared,
               const TorchScriptImportOptions &options, Location fileLoc) {
  if (failed(prepared))
    return failure();
  FunctionAssembler assembler(*prepared, fileLoc, options);
  FailureOr<OwningOpRef<ModuleOp>> imported = assembler.run();
  if (failed(imported))
    return failure();
  TorchScriptImport result;
  result.module = std::move(*imported);
  result.opOrigins = assembler.takeOpOrigins();
  for (const LiftedTensor &lifted : prepared->lifted) {
    FailureOr<NpyArray> array = toNpy(lifted.value, fileLoc, lifted.name);
    if (failed(array))
      return failure();
    result.weights.push_back({lifted.name, std::move(*array)});
  }
  return result;
}

FailureOr<TorchScriptImport>
remat::importTorchScript(llvm::StringRef path,
                         const TorchScriptImportOptions &options,
                         MLIRContext *context) {
  context->loadDialect<func::FuncDialect, nn::NNDialect, RematDialect>();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  if (!llvm::sys::fs::is_regular_file(path))
    return emitError(fileLoc) << "cannot read '" << path
                              << "': no such file";
  // Both kinds of file are zip archives; a torch.export program's holds its
  // graph as JSON under models/.
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> archive;
  try {
    archive =
        std::make_unique<caffe2::serialize::PyTorchStreamReader>(path.str());
  } catch (const std::exception &) {
    // Not an archive: jit::load says so below.
  }
  if (archive && isExportedProgram(*archive)) {
    try {
      return importPrepared(
          prepareExportedProgram(*archive, options.inputTypes,
                                 options.inputTypesOption, fileLoc),
          options, fileLoc);
    } catch (const std::exception &error) {
      return emitError(fileLoc) << "LibTorch failed while importing: "
                                << getMessage(error);
    }
  }
  archive.reset();

  jit::Module module;
  try {
    module = jit::load(path.str());
  } catch (const std::exception &error) {
    return emitError(fileLoc) << "cannot load '" << path
                              << "' as a TorchScript module or a "
                                 "torch.export program: "
                              << getMessage(error);
  }
  try {
    return importPrepared(prepareGraph(module, options.inputTypes,
                                       options.inputTypesOption, fileLoc),
                          options, fileLoc);
  } catch (const std::exception &error) {
    return emitError(fileLoc) << "LibTorch failed while importing: "
                              << getMessage(error);
  }
}

FailureOr<std::vector<RankedTensorType>>
remat::getExportedInputTypes(llvm::StringRef path, MLIRContext *context) {
  context->loadDialect<func::FuncDialect, nn::NNDialect, RematDialect>();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> archive;
  try {
    if (llvm::sys::fs::is_regular_file(path))
      archive =
          std::make_unique<caffe2::serialize::PyTorchStreamReader>(path.str());
  } catch (const std::exception &) {
    // Not an archive: no program.
  }
  if (!archive || !isExportedProgram(*archive))
    return std::vector<RankedTensorType>();
  try {
    FailureOr<PreparedGraph> prepared =
        prepareExportedProgram(*archive, {}, "", fileLoc);
    if (failed(prepared))
      return failure();
    return prepared->inputTypes;
  } catch (const std::exception &error) {
    return emitError(fileLoc) << "LibTorch failed while importing: "
                              << getMessage(error);
  }
}
