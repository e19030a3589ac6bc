//===- PrepareGraph.cpp - straight-line TorchScript with full shapes ------===//
//
// Turns a loaded module's forward method into a graph the converter can walk
// node by node: every call inlined, `self` gone (tensors become graph inputs,
// everything else constants), shape queries and control flow folded for the
// given input shapes, in-place ops made functional, full types everywhere.
//
//===----------------------------------------------------------------------===//

#include "TorchGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

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

/// The ATen scalar type of an nn element type (the inverse of
/// getElementType).
static std::optional<c10::ScalarType> getScalarType(Type type) {
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

static std::vector<jit::Node *> getAllNodes(jit::Graph &graph) {
  std::vector<jit::Node *> nodes;
  collectNodes(graph.block(), nodes);
  return nodes;
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
};
} // namespace

jit::Value *AttributeLifter::getLiftedInput(const std::string &path,
                                            const at::Tensor &value,
                                            bool isBuffer) {
  auto it = liftedByPath.find(path);
  if (it != liftedByPath.end())
    return it->second;
  jit::Value *input = graph.addInput();
  input->setType(c10::TensorType::create(value));
  prepared.lifted.push_back({path, value, isBuffer});
  liftedByPath[path] = input;
  return input;
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
// Folding shapes and control flow
//===----------------------------------------------------------------------===//

/// The complete sizes of a tensor-typed value, if its type has them.
static std::optional<std::vector<int64_t>> getSizes(const jit::Value *value) {
  auto type = value->type()->cast<c10::TensorType>();
  if (!type)
    return std::nullopt;
  auto sizes = type->sizes().concrete_sizes();
  if (!sizes)
    return std::nullopt;
  return *sizes;
}

/// Replaces queries of a tensor's shape (`x.shape`, `x.size(d)`, `x.dim()`,
/// `x.numel()`) by constants where the shape is known.
static bool foldShapeQueries(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph)) {
    llvm::StringRef kind = node->kind().toQualString();
    if (kind != "aten::size" && kind != "aten::dim" && kind != "aten::numel")
      continue;
    std::optional<std::vector<int64_t>> sizes = getSizes(node->input(0));
    if (!sizes)
      continue;
    c10::IValue value;
    if (kind == "aten::dim") {
      value = static_cast<int64_t>(sizes->size());
    } else if (kind == "aten::numel") {
      int64_t count = 1;
      for (int64_t size : *sizes)
        count *= size;
      value = count;
    } else if (node->inputs().size() == 1) {
      value = c10::List<int64_t>(*sizes);
    } else {
      c10::optional<c10::IValue> dim = jit::toIValue(node->input(1));
      if (!dim || !dim->isInt())
        continue;
      int64_t d = dim->toInt();
      int64_t rank = static_cast<int64_t>(sizes->size());
      if (d < -rank || d >= rank)
        continue;
      value = (*sizes)[d < 0 ? d + rank : d];
    }
    jit::WithInsertPoint insertPoint(node);
    node->output()->replaceAllUsesWith(node->owningGraph()->insertConstant(value));
    changed = true;
  }
  return changed;
}

/// A tensor standing for `type` when a node is run to learn its result
/// shapes: on the meta device (no data), or zeros on the CPU for kernels
/// that have no meta implementation.
static c10::optional<at::Tensor> makeExample(const c10::TensorType &type,
                                              bool onMeta) {
  c10::optional<std::vector<int64_t>> sizes = type.sizes().concrete_sizes();
  c10::optional<c10::ScalarType> scalarType = type.scalarType();
  if (!sizes || !scalarType)
    return c10::nullopt;
  return at::zeros(*sizes, at::TensorOptions()
                               .dtype(*scalarType)
                               .device(onMeta ? at::kMeta : at::kCPU));
}

/// Whether some op may write the list `list` (`xs.append(y)`): its
/// elements where it is read are then not those of its ListConstruct.
static bool mayBeWritten(const jit::Value *list) {
  for (const jit::Use &use : list->uses()) {
    if (use.user->kind() == c10::prim::ListUnpack)
      continue;
    const c10::FunctionSchema *schema = use.user->maybeSchema();
    if (!schema || use.offset >= schema->arguments().size())
      return true;
    const c10::AliasInfo *info = schema->arguments()[use.offset].alias_info();
    if (info && info->isWrite())
      return true;
  }
  return false;
}

/// Runs `node` on example inputs (every tensor input typed in full, every
/// other input a constant) and returns its outputs, or nothing.
static c10::optional<jit::Stack> runOnExamples(jit::Node *node, bool onMeta,
                                               std::string *error = nullptr) {
  const jit::Operator *op = node->maybeOperator();
  if (!op)
    return c10::nullopt;
  jit::Stack stack;
  for (jit::Value *input : node->inputs()) {
    if (c10::optional<c10::IValue> constant = jit::toIValue(input)) {
      stack.push_back(*constant);
    } else if (auto type = input->type()->cast<c10::TensorType>()) {
      c10::optional<at::Tensor> example = makeExample(*type, onMeta);
      if (!example)
        return c10::nullopt;
      stack.push_back(*example);
    } else if (input->node()->kind() == c10::prim::ListConstruct &&
               input->type()->isSubtypeOf(*c10::ListType::ofTensors()) &&
               !mayBeWritten(input)) {
      c10::List<at::Tensor> list;
      for (jit::Value *element : input->node()->inputs()) {
        auto elementType = element->type()->cast<c10::TensorType>();
        c10::optional<at::Tensor> example =
            elementType ? makeExample(*elementType, onMeta) : c10::nullopt;
        if (!example)
          return c10::nullopt;
        list.push_back(*example);
      }
      stack.push_back(list);
    } else if (input->node()->kind() == c10::prim::ListConstruct &&
               input->type()->isSubtypeOf(
                   *c10::ListType::ofOptionalTensors()) &&
               !mayBeWritten(input)) {
      // The indices of `x[idx]` (aten::index): tensors or None.
      c10::List<c10::optional<at::Tensor>> list;
      for (jit::Value *element : input->node()->inputs()) {
        if (element->type()->kind() == c10::TypeKind::NoneType) {
          list.push_back(c10::nullopt);
          continue;
        }
        auto elementType = element->type()->cast<c10::TensorType>();
        c10::optional<at::Tensor> example =
            elementType ? makeExample(*elementType, onMeta) : c10::nullopt;
        if (!example)
          return c10::nullopt;
        list.push_back(*example);
      }
      stack.push_back(list);
    } else if (input->type()->isSubtypeOf(*c10::ListType::ofTensors()) &&
               input->node()->outputs().size() == 1) {
      // A list an op returns (chunk, split, unbind): that op's own result
      // on examples, so that prim::ListUnpack and list indexing of it get
      // their shapes.
      c10::optional<jit::Stack> produced =
          runOnExamples(input->node(), onMeta);
      if (!produced || produced->size() != 1)
        return c10::nullopt;
      stack.push_back(produced->front());
    } else {
      return c10::nullopt;
    }
  }
  try {
    op->getOperation(node)(stack);
  } catch (const std::exception &exception) {
    if (error) {
      auto *c10Error = dynamic_cast<const c10::Error *>(&exception);
      llvm::StringRef message = c10Error ? c10Error->what_without_backtrace()
                                         : exception.what();
      *error = message.take_until([](char c) { return c == '\n'; }).str();
    }
    return c10::nullopt;
  }
  return stack;
}

/// The result type of the two heavy ops that LibTorch 1.13 cannot run on
/// the meta device (convolution and batch norm), from their shape rules, so
/// that they never run on zeros of the real size: the output of a 2-D
/// convolution is floor((in + 2 pad - dil (k - 1) - 1) / stride) + 1 per
/// spatial dimension; batch norm keeps its input's type.
static bool inferConvolutionOrNormShape(jit::Node *node) {
  llvm::StringRef kind = node->kind().toQualString();
  bool isConv = kind == "aten::conv2d" || kind == "aten::_convolution";
  if (!isConv && kind != "aten::batch_norm")
    return false;
  auto input = node->input(0)->type()->cast<c10::TensorType>();
  c10::optional<std::vector<int64_t>> sizes =
      input ? input->sizes().concrete_sizes() : c10::nullopt;
  if (!sizes || !input->scalarType())
    return false;
  if (!isConv) {
    node->output()->setType(
        c10::TensorType::createContiguous(*input->scalarType(), at::kCPU, *sizes));
    return true;
  }
  auto weight = node->input(1)->type()->cast<c10::TensorType>();
  c10::optional<std::vector<int64_t>> kernel =
      weight ? weight->sizes().concrete_sizes() : c10::nullopt;
  auto getList = [&](size_t index) -> c10::optional<std::vector<int64_t>> {
    c10::optional<c10::IValue> value = jit::toIValue(node->input(index));
    if (!value || !value->isIntList())
      return c10::nullopt;
    std::vector<int64_t> list = value->toIntVector();
    if (list.size() == 1)
      list.push_back(list[0]);
    return list;
  };
  c10::optional<std::vector<int64_t>> stride = getList(3), padding = getList(4),
                                      dilation = getList(5);
  if (kind == "aten::_convolution") {
    c10::optional<c10::IValue> transposed = jit::toIValue(node->input(6));
    if (!transposed || !transposed->isBool() || transposed->toBool())
      return false;
  }
  if (!kernel || kernel->size() != 4 || sizes->size() != 4 || !stride ||
      !padding || !dilation || stride->size() != 2 || padding->size() != 2 ||
      dilation->size() != 2)
    return false;
  std::vector<int64_t> output = {(*sizes)[0], (*kernel)[0]};
  for (int d = 0; d < 2; ++d) {
    int64_t extent = (*sizes)[2 + d] + 2 * (*padding)[d] -
                     (*dilation)[d] * ((*kernel)[2 + d] - 1) - 1;
    if (extent < 0 || (*stride)[d] <= 0)
      return false;
    output.push_back(extent / (*stride)[d] + 1);
  }
  node->output()->setType(
      c10::TensorType::createContiguous(*input->scalarType(), at::kCPU, output));
  return true;
}

/// Gives each tensor result of a straight-line node its full type by
/// running the node on examples of its inputs (on the meta device, else on
/// zeros). Each node runs once.
static bool propagateShapes(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : graph.nodes()) {
    bool needsTypes = llvm::any_of(node->outputs(), [](jit::Value *output) {
      auto type = output->type()->cast<c10::TensorType>();
      return type && !(type->sizes().concrete_sizes() && type->scalarType());
    });
    if (!needsTypes || !node->blocks().empty())
      continue;
    if (inferConvolutionOrNormShape(node)) {
      changed = true;
      continue;
    }
    c10::optional<jit::Stack> outputs = runOnExamples(node, /*onMeta=*/true);
    if (!outputs)
      outputs = runOnExamples(node, /*onMeta=*/false);
    // prim::ListUnpack has no operator to run: its results are the elements
    // of the list its producer (chunk, split, unbind) returns on examples.
    if (!outputs && node->kind() == c10::prim::ListUnpack &&
        node->input(0)->node()->outputs().size() == 1)
      for (bool onMeta : {true, false}) {
        c10::optional<jit::Stack> list =
            runOnExamples(node->input(0)->node(), onMeta);
        if (!list || list->size() != 1 || !list->front().isTensorList())
          continue;
        outputs = jit::Stack();
        for (const at::Tensor &element : list->front().toTensorVector())
          outputs->push_back(element);
        break;
      }
    if (!outputs || outputs->size() != node->outputs().size())
      continue;
    for (auto [output, value] : llvm::zip(node->outputs(), *outputs)) {
      if (!value.isTensor() || !output->type()->cast<c10::TensorType>())
        continue;
      const at::Tensor &tensor = value.toTensor();
      output->setType(c10::TensorType::createContiguous(
          tensor.scalar_type(), at::kCPU, tensor.sizes().vec()));
      changed = true;
    }
  }
  return changed;
}

/// Runs shape propagation, shape-query folding, constant propagation and
/// loop unrolling until nothing changes.
static void foldToFixpoint(std::shared_ptr<jit::Graph> &graph) {
  for (int round = 0; round < 32; ++round) {
    bool changed = propagateShapes(*graph);
    changed |= foldShapeQueries(*graph);
    changed |= jit::ConstantPropagation(graph);
    changed |= jit::UnrollConstantLoops(graph);
    changed |= jit::RemoveListMutation(graph);
    jit::EliminateDeadCode(graph);
    if (!changed)
      return;
  }
}

//===----------------------------------------------------------------------===//
// In-place ops
//===----------------------------------------------------------------------===//

static bool isInPlace(const jit::Node *node) {
  const c10::FunctionSchema *schema = node->maybeSchema();
  return schema && schema->is_mutable();
}

/// Whether a node's result may share storage with one of its inputs (views
/// and in-place ops), as its schema says; unknown nodes may.
static bool mayAliasInput(const jit::Node *node) {
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema)
    return node->kind() != c10::prim::Param;
  return llvm::any_of(schema->returns(), [](const c10::Argument &result) {
    return result.alias_info() != nullptr;
  });
}

/// Replaces the in-place `node` (`x.add_(y)`) by its functional form when
/// nothing else can see the storage it writes: `x` comes from an op that
/// made it fresh and no view of `x` exists. Later reads of `x` read the new
/// value. LibTorch's own pass leaves some of these (ResNet's
/// `out += identity`).
static bool replaceInPlace(jit::Graph &graph, jit::Node *node) {
  jit::Value *self = node->input(0);
  if (self->node()->kind() == c10::prim::Param || mayAliasInput(self->node()))
    return false;
  for (const jit::Use &use : self->uses())
    if (use.user != node && mayAliasInput(use.user))
      return false;
  llvm::StringRef name = node->kind().toUnqualString();
  if (!name.ends_with("_"))
    return false;
  c10::Symbol functionalKind = c10::Symbol::fromQualString(
      ("aten::" + name.drop_back()).str());
  jit::Node *functional = graph.create(functionalKind, node->inputs(), 1);
  functional->insertBefore(node);
  if (!functional->maybeOperator()) {
    functional->destroy();
    return false;
  }
  functional->copyMetadata(node);
  functional->output()->setType(node->output()->type());
  self->replaceAllUsesAfterNodeWith(functional, functional->output());
  node->output()->replaceAllUsesWith(functional->output());
  node->destroy();
  return true;
}

/// Makes in-place ops functional. What is left mutates an argument: the
/// batch-norm step counter `num_batches_tracked` (read only when momentum is
/// None, which the importer rejects) is dropped; anything else is an error.
static LogicalResult removeMutation(std::shared_ptr<jit::Graph> &graph,
                                    const PreparedGraph &prepared,
                                    Location fileLoc) {
  jit::RemoveTensorMutation(graph);
  jit::InplaceToFunctionalActivation(graph);
  size_t firstLifted = prepared.inputNames.size();
  for (jit::Node *node : getAllNodes(*graph)) {
    if (!isInPlace(node) || replaceInPlace(*graph, node))
      continue;
    Location loc = getNodeLocation(node, fileLoc);
    const jit::Value *target = node->input(0);
    auto inputs = graph->inputs();
    auto it = llvm::find(inputs, target);
    if (it == inputs.end())
      return emitError(loc) << "in-place op '" << node->kind().toQualString()
                            << "' on a value that may be aliased cannot be "
                               "made functional";
    size_t index = it - inputs.begin();
    std::string name = index < firstLifted
                           ? prepared.inputNames[index]
                           : prepared.lifted[index - firstLifted].name;
    if (!llvm::StringRef(name).ends_with("num_batches_tracked") ||
        node->output()->hasUses())
      return emitError(loc) << "in-place op '" << node->kind().toQualString()
                            << "' updates argument '" << name
                            << "'; the imported function cannot update its "
                               "arguments";
    node->destroy();
  }
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

static LogicalResult checkStraightLine(jit::Graph &graph, Location fileLoc) {
  for (jit::Node *node : graph.nodes()) {
    if (node->kind() != c10::prim::If && node->kind() != c10::prim::Loop)
      continue;
    return emitError(getNodeLocation(node, fileLoc))
           << "control flow ('" << node->kind().toQualString()
           << "') that does not fold away for the given input shapes; the "
              "importer needs straight-line code";
  }
  return success();
}

/// Sets the type of each model input from the caller's full types.
static LogicalResult setInputTypes(jit::Graph &graph,
                                   ArrayRef<RankedTensorType> inputTypes,
                                   PreparedGraph &prepared, Location fileLoc) {
  size_t modelInputs = graph.inputs().size() - 1; // without self
  std::vector<std::string> names;
  for (size_t i = 0; i < modelInputs; ++i)
    names.push_back(graph.inputs()[i + 1]->debugNameBase());
  if (inputTypes.size() != modelInputs) {
    auto diag = emitError(fileLoc)
                << "the model's forward takes " << modelInputs << " input"
                << (modelInputs == 1 ? "" : "s") << " (";
    llvm::interleaveComma(names, diag);
    return diag << ") but " << inputTypes.size()
                << " --input-shape option" << (inputTypes.size() == 1 ? "" : "s")
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
  return success();
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

FailureOr<PreparedGraph>
torchscript::prepareGraph(jit::Module &module,
                          ArrayRef<RankedTensorType> inputTypes,
                          Location fileLoc) {
  module.train(true);
  c10::optional<jit::Method> forward = module.find_method("forward");
  if (!forward)
    return emitError(fileLoc) << "the module has no forward method";

  PreparedGraph prepared;
  prepared.graph = forward->graph()->copy();
  jit::Graph &graph = *prepared.graph;
  inlineCalls(graph);
  if (failed(setInputTypes(graph, inputTypes, prepared, fileLoc)))
    return failure();
  AttributeLifter lifter(graph, prepared, fileLoc);
  if (failed(lifter.run(module._ivalue())))
    return failure();

  foldToFixpoint(prepared.graph);
  if (failed(removeMutation(prepared.graph, prepared, fileLoc)))
    return failure();
  jit::LowerAllTuples(prepared.graph);
  foldToFixpoint(prepared.graph);
  dropUnusedLifted(graph, prepared);
  sortLifted(module, prepared);
  if (failed(checkStraightLine(graph, fileLoc)) ||
      failed(checkShapes(graph, fileLoc)))
    return failure();
  return prepared;
}
