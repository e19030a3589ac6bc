//===- PrepareGraph.cpp - straight-line TorchScript with full shapes ------===//
//
// Turns a loaded module's forward method into a graph the converter can walk
// node by node: every call inlined, `self` gone (tensors become graph inputs,
// everything else constants), shape queries and control flow folded for the
// given input shapes, in-place ops made functional, full types everywhere.
// This file holds the driver, prepareGraph, and the steps before folding
// (inlining, input types, lifting the module's attributes) and after it
// (dropping unused and ordering lifted tensors, the final checks); the
// folding is in FoldGraph.cpp, the removal of mutation in Functionalize.cpp,
// the tensors computed at import in ConstantSubgraphs.cpp.
//
//===----------------------------------------------------------------------===//

#include "GraphPasses.h"
#include "TorchGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

Location torchscript::getNodeLocation(const jit::Node *node,
                                      Location fallback) {
  // Saved modules keep the range of the original Python source beside the
  // range in their serialized code; prefer the original.
  jit::SourceRange range = node->sourceRange();
  if (c10::optional<jit::SourceRange> original =
          range.findSourceRangeThatGenerated())
    range = *original;
  auto position = range.file_line_col();
  if (!position)
    return fallback;
  auto [file, line, column] = *position;
  return FileLineColLoc::get(fallback.getContext(), file, line, column + 1);
}

Type torchscript::getElementType(MLIRContext *context, c10::ScalarType type) {
  Builder b(context);
  switch (type) {
  case c10::ScalarType::Float:
    return b.getF32Type();
  case c10::ScalarType::Double:
    return b.getF64Type();
  case c10::ScalarType::Half:
    return b.getF16Type();
  case c10::ScalarType::BFloat16:
    return b.getBF16Type();
  case c10::ScalarType::Long:
    return b.getI64Type();
  case c10::ScalarType::Int:
    return b.getI32Type();
  default:
    return nullptr;
  }
}

std::optional<c10::ScalarType> torchscript::getScalarType(Type type) {
  if (type.isF32())
    return c10::ScalarType::Float;
  if (type.isF64())
    return c10::ScalarType::Double;
  if (type.isF16())
    return c10::ScalarType::Half;
  if (type.isBF16())
    return c10::ScalarType::BFloat16;
  if (type.isSignlessInteger(64))
    return c10::ScalarType::Long;
  if (type.isSignlessInteger(32))
    return c10::ScalarType::Int;
  return std::nullopt;
}

/// Every node of `block` and of the blocks nested in it, in program order.
static void collectNodes(jit::Block *block, std::vector<jit::Node *> &nodes) {
  for (jit::Node *node : block->nodes()) {
    nodes.push_back(node);
    for (jit::Block *nested : node->blocks())
      collectNodes(nested, nodes);
  }
}

std::vector<jit::Node *> torchscript::getAllNodes(jit::Graph &graph) {
  std::vector<jit::Node *> nodes;
  collectNodes(graph.block(), nodes);
  return nodes;
}

bool torchscript::isKind(const jit::Node *node, llvm::StringRef kind) {
  return node->kind().toQualString() == kind;
}

//===----------------------------------------------------------------------===//
// Inlining
//===----------------------------------------------------------------------===//

/// The dotted path of the submodule that `value` holds when it is read from
/// the graph's `self` by a chain of `prim::GetAttr` ("blocks.0"), or nothing.
static std::optional<std::string> getSubmodulePath(jit::Value *value,
                                                   jit::Value *self) {
  std::vector<std::string> names;
  while (value != self) {
    jit::Node *node = value->node();
    if (node->kind() != c10::prim::GetAttr)
      return std::nullopt;
    names.push_back(node->s(c10::attr::name));
    value = node->input(0);
  }
  std::reverse(names.begin(), names.end());
  return llvm::join(names, ".");
}

/// Inlines every call in `graph`, each callee's own calls first (as
/// LibTorch's inliner does, so that the inlined call stacks nest). LibTorch's
/// inliner names the module instance of a method call by the last attribute
/// read only: "0" for `self.blocks[0]`, losing the nn.ModuleList's name
/// "blocks". Here the instance is named by its whole path from the calling
/// method's `self` ("blocks.0"), so getModulePath joins the full path.
static void inlineCalls(jit::Graph &graph) {
  jit::Value *self = graph.inputs().empty() ? nullptr : graph.inputs()[0];
  for (jit::Node *node : getAllNodes(graph)) {
    if (node->kind() != c10::prim::CallMethod &&
        node->kind() != c10::prim::CallFunction)
      continue;
    jit::GraphFunction *callee = jit::tryToGraphFunction(node);
    if (!callee)
      continue;
    std::shared_ptr<jit::Graph> body = callee->graph()->copy();
    inlineCalls(*body);
    jit::Node *getAttr = node->input(0)->node();
    std::optional<std::string> path;
    if (node->kind() == c10::prim::CallMethod &&
        getAttr->kind() == c10::prim::GetAttr)
      path = getSubmodulePath(node->input(0), self);
    std::string name = path ? getAttr->s(c10::attr::name) : std::string();
    if (path)
      getAttr->s_(c10::attr::name, *path);
    // A function call's first input is the function itself.
    if (node->kind() == c10::prim::CallFunction)
      node->removeInput(0);
    jit::inlineCallTo(node, callee, body.get());
    if (path)
      getAttr->s_(c10::attr::name, name);
  }
}

//===----------------------------------------------------------------------===//
// Lifting the module's attributes
//===----------------------------------------------------------------------===//

namespace {
/// Replaces `prim::GetAttr` chains on `self` by graph inputs (tensors) and
/// constants (everything else).
class AttributeLifter {
public:
  AttributeLifter(jit::Graph &graph, PreparedGraph &prepared,
                  Location fileLoc)
      : graph(graph), prepared(prepared), fileLoc(fileLoc) {}

  LogicalResult run(const c10::IValue &self);

private:
  struct ObjectRef {
    c10::IValue object;
    std::string path;
  };

  LogicalResult lift(jit::Node *getAttr);
  jit::Value *getLiftedInput(const std::string &path, const at::Tensor &value,
                             bool isBuffer);

  jit::Graph &graph;
  PreparedGraph &prepared;
  Location fileLoc;
  std::unordered_map<const jit::Value *, ObjectRef> objects;
  std::map<std::string, jit::Value *> liftedByPath;
  /// One input per tensor, however many attributes hold it (tied weights),
  /// named as `named_parameters()` / `named_buffers()` name it: the first
  /// path in module order.
  std::unordered_map<const c10::TensorImpl *, jit::Value *> liftedByTensor;
  std::unordered_map<const c10::TensorImpl *, std::string> canonicalNames;
  std::unordered_set<const c10::TensorImpl *> parameters;
};
} // namespace

jit::Value *AttributeLifter::getLiftedInput(const std::string &path,
                                            const at::Tensor &value,
                                            bool isBuffer) {
  auto it = liftedByPath.find(path);
  if (it != liftedByPath.end())
    return it->second;
  const c10::TensorImpl *impl = value.unsafeGetTensorImpl();
  auto tied = liftedByTensor.find(impl);
  if (tied != liftedByTensor.end())
    return liftedByPath[path] = tied->second;
  jit::Value *input = graph.addInput();
  input->setType(c10::TensorType::create(value));
  auto canonical = canonicalNames.find(impl);
  prepared.lifted.push_back(
      {canonical != canonicalNames.end() ? canonical->second : path, value,
       isBuffer});
  liftedByPath[path] = input;
  liftedByTensor[impl] = input;
  return input;
}

/// Whether `value` is a non-empty list holding only tensors.
static bool isTensorList(const c10::IValue &value) {
  if (!value.isList() || value.toListRef().empty())
    return false;
  return llvm::all_of(value.toListRef(), [](const c10::IValue &element) {
    return element.isTensor();
  });
}

LogicalResult AttributeLifter::lift(jit::Node *getAttr) {
  Location loc = getNodeLocation(getAttr, fileLoc);
  auto parent = objects.find(getAttr->input(0));
  if (parent == objects.end())
    return emitError(loc) << "reads attribute '"
                          << getAttr->s(c10::attr::name)
                          << "' of a value that is not the module or one of "
                             "its submodules";
  const std::string &name = getAttr->s(c10::attr::name);
  auto object = parent->second.object.toObject();
  auto classType = object->type();
  c10::optional<size_t> slot = classType->findAttributeSlot(name);
  if (!slot)
    return emitError(loc) << "reads attribute '" << name
                          << "' that the module does not have";
  c10::IValue value = object->getSlot(*slot);
  std::string path = parent->second.path.empty()
                         ? name
                         : parent->second.path + "." + name;
  jit::Value *output = getAttr->output();

  if (value.isTensor()) {
    bool isBuffer = !classType->is_module() || !classType->is_parameter(*slot);
    output->replaceAllUsesWith(
        getLiftedInput(path, value.toTensor(), isBuffer));
    return success();
  }
  if (value.isObject()) {
    objects[output] = {value, path};
    return success();
  }
  jit::WithInsertPoint insertPoint(getAttr);
  if (isTensorList(value)) {
    // A list of the module's tensors (nn.LSTM's `_flat_weights`): each
    // lifted as the others are, the list built in the graph.
    std::vector<jit::Value *> elements;
    size_t index = 0;
    for (const c10::IValue &element : value.toListRef())
      elements.push_back(getLiftedInput(
          path + "." + std::to_string(index++), element.toTensor(),
          !parameters.count(element.toTensor().unsafeGetTensorImpl())));
    jit::Node *list =
        graph.insertNode(graph.createList(c10::TensorType::get(), elements));
    list->setScope(getAttr->scope());
    output->replaceAllUsesWith(list->output());
    return success();
  }
  c10::optional<jit::Value *> constant = graph.insertConstant(
      value, c10::nullopt, getAttr->scope());
  if (!constant)
    return emitError(loc) << "reads attribute '" << path << "' of type '"
                          << value.type()->repr_str()
                          << "', which the importer cannot make a constant";
  output->replaceAllUsesWith(*constant);
  return success();
}

LogicalResult AttributeLifter::run(const c10::IValue &self) {
  jit::Value *selfInput = graph.inputs()[0];
  objects[selfInput] = {self, ""};
  jit::Module module(self.toObject());
  for (const auto &parameter : module.named_parameters(/*recurse=*/true)) {
    canonicalNames.emplace(parameter.value.unsafeGetTensorImpl(),
                           parameter.name);
    parameters.insert(parameter.value.unsafeGetTensorImpl());
  }
  for (const auto &buffer : module.named_buffers(/*recurse=*/true))
    canonicalNames.emplace(buffer.value.unsafeGetTensorImpl(), buffer.name);
  std::vector<jit::Node *> getAttrs;
  for (jit::Node *node : getAllNodes(graph))
    if (node->kind() == c10::prim::GetAttr)
      getAttrs.push_back(node);
  for (jit::Node *node : getAttrs)
    if (failed(lift(node)))
      return failure();
  for (jit::Node *node : llvm::reverse(getAttrs)) {
    if (node->output()->hasUses())
      return emitError(getNodeLocation(node, fileLoc))
             << "uses submodule '" << objects[node->output()].path
             << "' as a value; only its tensors and constants can be imported";
    node->destroy();
  }
  if (selfInput->hasUses())
    return emitError(fileLoc)
           << "the forward method uses 'self' as a value; only its tensors "
              "and constants can be imported";
  graph.eraseInput(0);
  return success();
}

//===----------------------------------------------------------------------===//
// The whole preparation
//===----------------------------------------------------------------------===//

/// Fails at the first node whose results still have no full type, with
/// the error LibTorch gives when the node runs on inputs of these shapes.
static LogicalResult checkShapes(jit::Graph &graph, Location fileLoc) {
  for (jit::Node *node : graph.nodes()) {
    if (node->kind() == c10::prim::Constant)
      continue;
    for (jit::Value *output : node->outputs()) {
      auto type = output->type()->cast<c10::TensorType>();
      if (!type || (type->sizes().concrete_sizes() && type->scalarType()))
        continue;
      std::string error = "its inputs have no known shapes";
      runOnExamples(node, /*onMeta=*/false, &error);
      return emitError(getNodeLocation(node, fileLoc))
             << "'" << node->kind().toQualString()
             << "' fails for the given input shapes: " << error;
    }
  }
  return success();
}

/// The text of an exception's message: a constant, or `"...{}...".format(...)`
/// of constants (constant propagation leaves aten::format).
static c10::optional<c10::IValue> formatMessage(jit::Value *message) {
  if (c10::optional<c10::IValue> constant = jit::toIValue(message))
    return constant;
  jit::Node *format = message->node();
  if (!isKind(format, "aten::format") || format->inputs().empty())
    return c10::nullopt;
  c10::optional<c10::IValue> pattern = jit::toIValue(format->input(0));
  if (!pattern || !pattern->isString())
    return c10::nullopt;
  llvm::StringRef rest = pattern->toStringRef();
  std::ostringstream text;
  for (size_t i = 1; i < format->inputs().size(); ++i) {
    c10::optional<c10::IValue> argument = jit::toIValue(format->input(i));
    size_t at = rest.find("{}");
    if (!argument || at == llvm::StringRef::npos)
      return c10::nullopt;
    text << rest.take_front(at).str();
    if (argument->isString())
      text << argument->toStringRef();
    else
      text << *argument;
    rest = rest.drop_front(at + 2);
  }
  text << rest.str();
  return c10::IValue(text.str());
}

static LogicalResult checkStraightLine(jit::Graph &graph, Location fileLoc) {
  for (jit::Node *node : graph.nodes()) {
    // Packed sequences: the recurrent layers' shapes depend on the lengths'
    // values, which the importer cannot follow.
    if (isKind(node, "aten::_pack_padded_sequence"))
      return emitError(getNodeLocation(node, fileLoc))
             << "packed sequences (pack_padded_sequence) are not supported: "
                "pass the padded batch to the recurrent layer";
    // A `raise` (or a failed `assert`) that the inputs' shapes reach.
    if (node->kind() == c10::prim::RaiseException) {
      c10::optional<c10::IValue> message;
      if (!node->inputs().empty())
        message = formatMessage(node->input(0));
      auto diag = emitError(getNodeLocation(node, fileLoc))
                  << "the model raises an exception for the given input "
                     "shapes";
      c10::optional<c10::IValue> kind = node->inputs().size() < 2
                                            ? c10::nullopt
                                            : jit::toIValue(node->input(1));
      if (kind && kind->isString()) {
        llvm::StringRef name = kind->toStringRef();
        diag << ": " << name.substr(name.rfind('.') + 1); // builtins.
      }
      if (message && message->isString())
        diag << ": " << message->toStringRef();
      return diag;
    }
    if (node->kind() != c10::prim::If && node->kind() != c10::prim::Loop)
      continue;
    auto diag = emitError(getNodeLocation(node, fileLoc))
                << "control flow ('" << node->kind().toQualString()
                << "') that does not fold away for the given input shapes; "
                   "the importer needs straight-line code";
    // What decides a branch: the op whose result it tests.
    if (node->kind() == c10::prim::If) {
      const jit::Node *condition = node->input(0)->node();
      if (condition->kind() == c10::prim::Param)
        diag << " (it tests an input of forward)";
      else
        diag << " (it tests the result of '"
             << condition->kind().toQualString() << "')";
    }
    return diag;
  }
  return success();
}

/// Sets the type of each model input from the caller's full types. The
/// inputs are named as forward's Python parameters (as its schema says;
/// the graph's own names may have changed in inlining).
static LogicalResult setInputTypes(jit::Graph &graph,
                                   const c10::FunctionSchema &schema,
                                   ArrayRef<RankedTensorType> inputTypes,
                                   StringRef inputTypesOption,
                                   PreparedGraph &prepared, Location fileLoc) {
  size_t modelInputs = graph.inputs().size() - 1; // without self
  std::vector<std::string> names;
  for (size_t i = 0; i < modelInputs; ++i)
    names.push_back(i + 1 < schema.arguments().size()
                        ? schema.arguments()[i + 1].name()
                        : graph.inputs()[i + 1]->debugNameBase());
  if (inputTypes.size() != modelInputs) {
    auto diag = emitError(fileLoc)
                << "the model's forward takes " << modelInputs << " input"
                << (modelInputs == 1 ? "" : "s") << " (";
    llvm::interleaveComma(names, diag);
    return diag << ") but " << inputTypes.size()
                << " " << inputTypesOption << " option" << (inputTypes.size() == 1 ? "" : "s")
                << (inputTypes.size() == 1 ? " was" : " were") << " given";
  }
  for (size_t i = 0; i < modelInputs; ++i) {
    RankedTensorType type = inputTypes[i];
    std::optional<c10::ScalarType> scalarType =
        getScalarType(type.getElementType());
    if (!scalarType)
      return emitError(fileLoc) << "input '" << names[i]
                                << "' has element type " << type.getElementType()
                                << "; the importer takes f32, f64, f16, bf16, "
                                   "i64 and i32";
    std::vector<int64_t> sizes(type.getShape().begin(), type.getShape().end());
    graph.inputs()[i + 1]->setType(c10::TensorType::createContiguous(
        *scalarType, at::kCPU, sizes));
  }
  prepared.inputNames = std::move(names);
  prepared.inputTypes.assign(inputTypes.begin(), inputTypes.end());
  return success();
}

/// Drops the results that are None (a scripted GoogLeNet returns its
/// auxiliary outputs as None in training mode without auxiliary logits):
/// the function returns the others, in order.
static void dropNoneResults(jit::Graph &graph) {
  for (size_t i = graph.outputs().size(); i-- > 0;)
    if (graph.outputs()[i]->type()->kind() == c10::TypeKind::NoneType)
      graph.eraseOutput(i);
}

/// Removes the lifted inputs that nothing reads any more.
static void dropUnusedLifted(jit::Graph &graph, PreparedGraph &prepared) {
  size_t firstLifted = prepared.inputNames.size();
  for (size_t i = prepared.lifted.size(); i-- > 0;) {
    if (graph.inputs()[firstLifted + i]->hasUses())
      continue;
    graph.eraseInput(firstLifted + i);
    prepared.lifted.erase(prepared.lifted.begin() + i);
  }
}

/// Orders the lifted inputs as the module lists its parameters, then its
/// buffers (as `named_parameters()` and `named_buffers()` do), so that the
/// order does not depend on which the code reads first.
static void sortLifted(jit::Module &module, PreparedGraph &prepared) {
  std::map<std::string, size_t> rank;
  for (const auto &parameter : module.named_parameters(/*recurse=*/true))
    rank.emplace(parameter.name, rank.size());
  for (const auto &buffer : module.named_buffers(/*recurse=*/true))
    rank.emplace(buffer.name, rank.size());
  auto getRank = [&](const LiftedTensor &lifted) {
    auto it = rank.find(lifted.name);
    return it == rank.end() ? rank.size() : it->second;
  };
  size_t firstLifted = prepared.inputNames.size();
  std::vector<size_t> order(prepared.lifted.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return getRank(prepared.lifted[a]) < getRank(prepared.lifted[b]);
  });
  std::vector<size_t> inputOrder(firstLifted);
  std::iota(inputOrder.begin(), inputOrder.end(), 0);
  std::vector<LiftedTensor> sorted;
  for (size_t index : order) {
    inputOrder.push_back(firstLifted + index);
    sorted.push_back(prepared.lifted[index]);
  }
  prepared.graph->block()->permuteInputs(inputOrder);
  prepared.lifted = std::move(sorted);
}

LogicalResult torchscript::finishPreparation(
    PreparedGraph &prepared, const std::set<std::string> &modelTensorNames,
    Location fileLoc) {
  jit::Graph &graph = *prepared.graph;
  foldIntegerBuffers(graph, prepared);
  foldToFixpoint(prepared.graph);
  functionalize(prepared.graph);
  jit::LowerAllTuples(prepared.graph);
  foldToFixpoint(prepared.graph);
  if (foldConstantSubgraphs(graph))
    foldToFixpoint(prepared.graph);
  // In-place ops in branches that folded only after the tuples were lowered.
  functionalize(prepared.graph);
  if (failed(removeMutation(prepared.graph, prepared, fileLoc)))
    return failure();
  // Mixed types that shape propagation found (a TorchScript module's
  // layer_norm of a bf16 input with f32 weights under autocast).
  insertFloatCasts(graph, RecordedTypes());
  simplifyAttentionMasks(graph);
  materializeConstants(graph, modelTensorNames, prepared);
  dropNoneResults(graph);
  dropUnusedLifted(graph, prepared);
  if (failed(checkStraightLine(graph, fileLoc)) ||
      failed(checkShapes(graph, fileLoc)))
    return failure();
  return success();
}

FailureOr<PreparedGraph>
torchscript::prepareGraph(jit::Module &module,
                          ArrayRef<RankedTensorType> inputTypes,
                          StringRef inputTypesOption, Location fileLoc) {
  module.train(true);
  c10::optional<jit::Method> forward = module.find_method("forward");
  if (!forward)
    return emitError(fileLoc) << "the module has no forward method";

  PreparedGraph prepared;
  prepared.graph = forward->graph()->copy();
  jit::Graph &graph = *prepared.graph;
  inlineCalls(graph);
  if (failed(setInputTypes(graph, forward->function().getSchema(), inputTypes,
                           inputTypesOption, prepared, fileLoc)))
    return failure();
  AttributeLifter lifter(graph, prepared, fileLoc);
  if (failed(lifter.run(module._ivalue())))
    return failure();

  std::set<std::string> modelTensorNames;
  for (const auto &parameter : module.named_parameters(/*recurse=*/true))
    modelTensorNames.insert(parameter.name);
  for (const auto &buffer : module.named_buffers(/*recurse=*/true))
    modelTensorNames.insert(buffer.name);
  if (failed(finishPreparation(prepared, modelTensorNames, fileLoc)))
    return failure();
  sortLifted(module, prepared);
  return prepared;
}
