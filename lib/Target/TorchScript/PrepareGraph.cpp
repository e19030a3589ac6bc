//===- PrepareGraph.cpp - straight-line TorchScript with full shapes ------===//
//
// Turns a loaded module's forward method into a graph the converter can walk
// node by node: every call inlined, `self` gone (tensors become graph inputs,
// everything else constants), shape queries and control flow folded for the
// given input shapes, in-place ops made functional, full types everywhere.
//
//===----------------------------------------------------------------------===//

#include "NodeConverter.h"
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
#include <set>
#include <sstream>
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

static bool isKind(const jit::Node *node, llvm::StringRef kind) {
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

/// The constant that a query of a value's type (`x.shape`, `x.size(d)`,
/// `x.dim()`, `x.numel()`, `x.dtype`, `x.device`, `x.is_cuda`,
/// `x.is_nested`: imported tensors are dense CPU tensors) or identity
/// (`x is x`) stands for, when the types decide it.
static c10::optional<c10::IValue> foldTypeQuery(jit::Node *node) {
  llvm::StringRef kind = node->kind().toQualString();
  if (kind == "aten::__is__" || kind == "aten::__isnot__") {
    // `x is x`; `x is None` where the type of x is not optional.
    auto isNone = [](const jit::Value *value) {
      return value->type()->kind() == c10::TypeKind::NoneType;
    };
    auto isTensor = [](const jit::Value *value) {
      return value->type()->kind() == c10::TypeKind::TensorType;
    };
    jit::Value *a = node->input(0), *b = node->input(1);
    bool same;
    if (a == b || (isNone(a) && isNone(b)))
      same = true;
    else if ((isNone(a) && isTensor(b)) || (isTensor(a) && isNone(b)))
      same = false;
    else
      return c10::nullopt;
    return c10::IValue(same == (kind == "aten::__is__"));
  }
  if (node->inputs().empty())
    return c10::nullopt;
  auto type = node->input(0)->type()->cast<c10::TensorType>();
  if (!type)
    return c10::nullopt;
  // Every imported tensor lives on the CPU, in its strided layout.
  if (kind == "prim::device")
    return c10::IValue(c10::Device(at::kCPU));
  if (kind == "prim::is_cpu")
    return c10::IValue(true);
  if (kind.starts_with("prim::is_") &&
      llvm::is_contained({"cuda", "nested", "sparse", "sparse_csr", "quantized",
                          "mkldnn", "meta", "xpu", "vulkan", "ipu", "mps",
                          "ort", "hpu", "xla", "lazy"},
                         kind.drop_front(9)))
    return c10::IValue(false);
  if (kind == "prim::dtype") {
    if (!type->scalarType())
      return c10::nullopt;
    return c10::IValue(static_cast<int64_t>(*type->scalarType()));
  }
  if (kind != "aten::size" && kind != "aten::dim" && kind != "aten::numel")
    return c10::nullopt;
  std::optional<std::vector<int64_t>> sizes = getSizes(node->input(0));
  if (!sizes)
    return c10::nullopt;
  if (kind == "aten::dim")
    return c10::IValue(static_cast<int64_t>(sizes->size()));
  if (kind == "aten::numel") {
    int64_t count = 1;
    for (int64_t size : *sizes)
      count *= size;
    return c10::IValue(count);
  }
  if (node->inputs().size() == 1)
    return c10::IValue(c10::List<int64_t>(*sizes));
  c10::optional<c10::IValue> dim = jit::toIValue(node->input(1));
  if (!dim || !dim->isInt())
    return c10::nullopt;
  int64_t d = dim->toInt();
  int64_t rank = static_cast<int64_t>(sizes->size());
  if (d < -rank || d >= rank)
    return c10::nullopt;
  return c10::IValue((*sizes)[d < 0 ? d + rank : d]);
}

/// Replaces the queries foldTypeQuery decides by constants.
static bool foldShapeQueries(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph)) {
    if (node->outputs().size() != 1 || !node->output()->hasUses())
      continue;
    c10::optional<c10::IValue> value = foldTypeQuery(node);
    if (!value)
      continue;
    jit::WithInsertPoint insertPoint(node);
    node->output()->replaceAllUsesWith(
        node->owningGraph()->insertConstant(*value));
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

/// Drops the ops whose only effect is on the world outside the computation
/// (`warnings.warn`): an imported function has no such effects.
static bool dropWarnings(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph)) {
    if (!isKind(node, "aten::warn"))
      continue;
    node->destroy();
    changed = true;
  }
  return changed;
}

/// Replaces the ops that make tensors of unspecified values
/// (`torch.empty`) by ones that make zeros: a program that reads those
/// values has no defined result, and the others cannot tell.
static bool replaceEmpty(jit::Graph &graph) {
  static const std::pair<const char *, const char *> replacements[] = {
      {"aten::empty", "aten::zeros"},
      {"aten::empty_like", "aten::zeros_like"},
      {"aten::new_empty", "aten::new_zeros"}};
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph)) {
    for (auto [from, to] : replacements) {
      if (!isKind(node, from))
        continue;
      std::vector<jit::Value *> inputs(node->inputs().begin(),
                                       node->inputs().end());
      // aten::empty's memory format has no counterpart in aten::zeros.
      if (isKind(node, "aten::empty") && inputs.size() == 6)
        inputs.pop_back();
      jit::Node *zeros =
          graph.create(c10::Symbol::fromQualString(to), inputs, 1);
      zeros->insertBefore(node);
      if (!zeros->maybeOperator()) {
        zeros->destroy();
        continue;
      }
      zeros->copyMetadata(node);
      zeros->output()->setType(node->output()->type());
      node->output()->replaceAllUsesWith(zeros->output());
      node->destroy();
      changed = true;
      break;
    }
  }
  return changed;
}

/// Drops the casts that TorchScript's type refinement leaves
/// (`prim::unchecked_cast` of a value already of the cast's type, as
/// `isinstance` and `is not None` checks make them once they fold).
static bool dropRefinementCasts(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph)) {
    if (node->kind() != c10::prim::unchecked_cast ||
        !node->input()->type()->isSubtypeOf(*node->output()->type()))
      continue;
    node->output()->replaceAllUsesWith(node->input());
    node->destroy();
    changed = true;
  }
  return changed;
}

//===----------------------------------------------------------------------===//
// Lists
//===----------------------------------------------------------------------===//

/// Whether `node`, which takes `list` as its input `index`, only reads it:
/// its schema neither writes that argument nor returns something that may
/// be the list itself (a result that aliases the list's elements, as
/// `list[i]` does, is fine).
static bool onlyReadsList(jit::Node *node, size_t index) {
  if (node->kind() == c10::prim::ListUnpack)
    return true;
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema || index >= schema->arguments().size())
    return false;
  const c10::AliasInfo *argument = schema->arguments()[index].alias_info();
  if (!argument)
    return true;
  if (argument->isWrite())
    return false;
  for (const c10::Argument &result : schema->returns()) {
    const c10::AliasInfo *info = result.alias_info();
    if (info && info->beforeSets() == argument->beforeSets())
      return false;
  }
  return true;
}

/// The elements of a list value defined in `block`: the inputs of its
/// prim::ListConstruct, or constants for a constant list.
static std::optional<std::vector<jit::Value *>>
getListElements(jit::Value *list, jit::Node *insertBefore) {
  jit::Node *producer = list->node();
  if (producer->kind() == c10::prim::ListConstruct)
    return std::vector<jit::Value *>(producer->inputs().begin(),
                                     producer->inputs().end());
  c10::optional<c10::IValue> constant = jit::toIValue(list);
  if (!constant || !constant->isList())
    return std::nullopt;
  std::vector<jit::Value *> elements;
  jit::WithInsertPoint insertPoint(insertBefore);
  for (const c10::IValue &element : constant->toListRef()) {
    c10::optional<jit::Value *> value =
        list->owningGraph()->insertConstant(element);
    if (!value)
      return std::nullopt;
    elements.push_back(*value);
  }
  return elements;
}

/// Makes the mutation of one Python list functional: `list` (made by
/// prim::ListConstruct, or `aten::copy` / `list()` of a list whose elements
/// are known) is appended to or assigned into (`xs.append(y)`,
/// `xs[i] = y`) with constant indices in straight-line code, and otherwise
/// only read. Each reader then gets a list of the elements at its point.
/// LibTorch's own pass stops at a list read before it is mutated
/// (DenseNet's `torch.cat(features)` then `features.append(...)`).
static bool functionalizeList(jit::Value *list) {
  jit::Node *producer = list->node();
  jit::Block *block = producer->owningBlock();
  auto listType = list->type()->cast<c10::ListType>();
  if (!listType)
    return false;
  bool mutated = false;
  for (const jit::Use &use : list->uses()) {
    jit::Node *user = use.user;
    if (user->owningBlock() != block)
      return false;
    bool appends = isKind(user, "aten::append");
    if (appends || isKind(user, "aten::_set_item")) {
      if (use.offset != 0 || user->output()->hasUses())
        return false;
      if (!appends) {
        c10::optional<c10::IValue> index = jit::toIValue(user->input(1));
        if (!index || !index->isInt())
          return false;
      }
      mutated = true;
      continue;
    }
    if (!onlyReadsList(user, use.offset))
      return false;
  }
  if (!mutated)
    return false;

  std::vector<jit::Node *> users;
  for (const jit::Use &use : list->uses())
    if (llvm::find(users, use.user) == users.end())
      users.push_back(use.user);
  std::sort(users.begin(), users.end(),
            [](jit::Node *a, jit::Node *b) { return a->isBefore(b); });
  std::optional<std::vector<jit::Value *>> elements =
      getListElements(list, users.front());
  if (!elements)
    return false;
  // Check the indices against the list's length as it evolves first, so
  // that a failure leaves the graph as it was.
  size_t length = elements->size();
  for (jit::Node *user : users) {
    if (isKind(user, "aten::append")) {
      ++length;
    } else if (isKind(user, "aten::_set_item")) {
      int64_t index = jit::toIValue(user->input(1))->toInt();
      if (index < -static_cast<int64_t>(length) ||
          index >= static_cast<int64_t>(length))
        return false;
    }
  }

  jit::Graph &graph = *list->owningGraph();
  jit::Value *current = list;
  bool stale = false; // whether `current` lacks the latest mutations
  for (jit::Node *user : users) {
    if (isKind(user, "aten::append")) {
      elements->push_back(user->input(1));
      user->destroy();
      stale = true;
      continue;
    }
    if (isKind(user, "aten::_set_item")) {
      int64_t index = jit::toIValue(user->input(1))->toInt();
      if (index < 0)
        index += static_cast<int64_t>(elements->size());
      (*elements)[index] = user->input(2);
      user->destroy();
      stale = true;
      continue;
    }
    if (stale) {
      jit::Node *snapshot =
          graph.createList(listType->getElementType(), *elements);
      snapshot->insertBefore(user);
      snapshot->copyMetadata(producer);
      current = snapshot->output();
      stale = false;
    }
    if (current != list)
      user->replaceInputWith(list, current);
  }
  return true;
}

/// Makes the mutation of lists functional where functionalizeList can.
static bool functionalizeLists(jit::Graph &graph) {
  // The lists' producers first: the rewrites destroy other nodes.
  std::vector<jit::Node *> producers;
  for (jit::Node *node : getAllNodes(graph)) {
    bool copies = (isKind(node, "aten::copy") || isKind(node, "aten::list")) &&
                  node->inputs().size() == 1 &&
                  node->input(0)->type()->cast<c10::ListType>();
    if ((node->kind() == c10::prim::ListConstruct || copies) &&
        node->outputs().size() == 1 &&
        node->output()->type()->cast<c10::ListType>())
      producers.push_back(node);
  }
  bool changed = false;
  for (jit::Node *node : producers) {
    if (node->kind() != c10::prim::ListConstruct) {
      // A copy of a list whose elements are known is a new ListConstruct.
      std::optional<std::vector<jit::Value *>> elements;
      jit::Value *source = node->input(0);
      bool sourceMutated = llvm::any_of(source->uses(), [](const jit::Use &use) {
        const c10::FunctionSchema *schema = use.user->maybeSchema();
        return !schema || schema->is_mutable();
      });
      if (!sourceMutated)
        elements = getListElements(source, node);
      if (!elements)
        continue;
      jit::Node *list = node->owningGraph()->createList(
          node->output()->type()->cast<c10::ListType>()->getElementType(),
          *elements);
      list->insertBefore(node);
      list->copyMetadata(node);
      node->output()->replaceAllUsesWith(list->output());
      node->destroy();
      changed = true;
      node = list;
    }
    changed |= functionalizeList(node->output());
  }
  return changed;
}

/// Runs shape propagation, shape-query folding, constant propagation and
/// loop unrolling until nothing changes. Each round may fold one more
/// layer of shape checks (ViT-B/16's 12 attention blocks need more than
/// 32 rounds); the bound only guards against a pass that keeps changing.
static void foldToFixpoint(std::shared_ptr<jit::Graph> &graph) {
  for (int round = 0; round < 10000; ++round) {
    bool changed = propagateShapes(*graph);
    changed |= foldShapeQueries(*graph);
    changed |= jit::ConstantPropagation(graph);
    changed |= jit::UnrollConstantLoops(graph);
    changed |= jit::RemoveListMutation(graph);
    changed |= functionalizeLists(*graph);
    changed |= dropWarnings(*graph);
    changed |= replaceEmpty(*graph);
    changed |= dropRefinementCasts(*graph);
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

/// Whether the result of `node` may share storage with its first input and
/// with no other input: a view (`x.flatten(1)`, `x[:, 1:]`) or an in-place
/// op's result, as the node's schema says.
static bool isViewOfFirstInput(const jit::Node *node) {
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema || node->outputs().size() != 1 || schema->arguments().empty() ||
      !schema->arguments()[0].alias_info())
    return false;
  for (size_t i = 1; i < schema->arguments().size(); ++i)
    if (schema->arguments()[i].alias_info())
      return false;
  return true;
}

/// The value that owns the storage `value` sees, following views back to
/// the op that made the storage fresh; null when that storage may come
/// from an argument, a constant or an op whose aliasing is unknown.
static jit::Value *getFreshBase(jit::Value *value) {
  while (true) {
    jit::Node *producer = value->node();
    if (producer->kind() == c10::prim::Param ||
        producer->kind() == c10::prim::Constant)
      return nullptr;
    if (!mayAliasInput(producer))
      return value;
    if (!isViewOfFirstInput(producer))
      return nullptr;
    value = producer->input(0);
  }
}

/// Whether `user` runs after `node` (the graph's return runs last).
static bool runsAfter(jit::Node *user, jit::Node *node) {
  return user == user->owningGraph()->return_node() || user->isAfter(node);
}

/// The functional form of the in-place `node` (`add` for `add_`), inserted
/// before it, or null when ATen has none.
static jit::Node *createFunctional(jit::Graph &graph, jit::Node *node) {
  llvm::StringRef name = node->kind().toUnqualString();
  if (!name.ends_with("_") || node->outputs().size() != 1)
    return nullptr;
  jit::WithInsertPoint insertPoint(node);
  std::vector<jit::Value *> inputs(node->inputs().begin(),
                                   node->inputs().end());
  std::string functionalName = ("aten::" + name.drop_back()).str();
  // `x.fill_(v)` and `x.zero_()` are `full_like(x, v)` and `zeros_like(x)`.
  if (name == "fill_" || name == "zero_") {
    functionalName = name == "fill_" ? "aten::full_like" : "aten::zeros_like";
    jit::Value *none = graph.insertConstant(c10::IValue());
    inputs.resize(name == "fill_" ? 2 : 1);
    inputs.insert(inputs.end(), 5, none);
  }
  jit::Node *functional = graph.create(
      c10::Symbol::fromQualString(functionalName), inputs, 1);
  functional->insertBefore(node);
  if (!functional->maybeOperator()) {
    functional->destroy();
    return nullptr;
  }
  functional->copyMetadata(node);
  functional->output()->setType(node->output()->type());
  return functional;
}

/// Replaces the in-place `node` (`x.add_(y)`) by its functional form when
/// nothing else can see the storage it writes: `x` is fresh or a view of a
/// fresh value (`x.flatten(1).dropout_()`), and no other value that shares
/// that storage (the base, its other views) is read after `node`. Later
/// reads of `x` read the new value. LibTorch's own pass leaves some of
/// these (ResNet's `out += identity`).
static bool replaceInPlace(jit::Graph &graph, jit::Node *node) {
  jit::Value *self = node->input(0);
  jit::Value *base = getFreshBase(self);
  if (!base)
    return false;
  // Every value that may share the base's storage: the outputs of its
  // users that may alias their inputs (views, in-place ops, lists and
  // tuples that hold it), transitively.
  std::vector<jit::Value *> aliases = {base};
  for (size_t i = 0; i < aliases.size(); ++i)
    for (const jit::Use &use : aliases[i]->uses()) {
      // Views of `self` taken after `node` will read the new value.
      if (use.user == node || !mayAliasInput(use.user) ||
          (aliases[i] == self && runsAfter(use.user, node)))
        continue;
      for (jit::Value *output : use.user->outputs())
        if (llvm::find(aliases, output) == aliases.end())
          aliases.push_back(output);
    }
  for (jit::Value *alias : aliases) {
    if (alias == self)
      continue;
    for (const jit::Use &use : alias->uses())
      if (runsAfter(use.user, node))
        return false;
  }
  jit::Node *functional = createFunctional(graph, node);
  if (!functional)
    return false;
  self->replaceAllUsesAfterNodeWith(functional, functional->output());
  node->output()->replaceAllUsesWith(functional->output());
  node->destroy();
  return true;
}

/// Makes in-place ops functional where replaceInPlace can (LibTorch's
/// passes first).
static bool functionalize(std::shared_ptr<jit::Graph> &graph) {
  bool changed = jit::RemoveTensorMutation(graph);
  changed |= jit::InplaceToFunctionalActivation(graph);
  for (jit::Node *node : getAllNodes(*graph))
    if (isInPlace(node))
      changed |= replaceInPlace(*graph, node);
  return changed;
}

/// Fails at an in-place op that is left. What is left mutates an argument:
/// the batch-norm step counter `num_batches_tracked` (read only when
/// momentum is None, which the importer rejects) is dropped; anything else
/// is an error.
static LogicalResult removeMutation(std::shared_ptr<jit::Graph> &graph,
                                    const PreparedGraph &prepared,
                                    Location fileLoc) {
  size_t firstLifted = prepared.inputNames.size();
  for (jit::Node *node : getAllNodes(*graph)) {
    if (!isInPlace(node))
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
// Constant subgraphs
//===----------------------------------------------------------------------===//

/// Whether `node` draws random numbers (LibTorch's own list misses the
/// in-place forms, `bernoulli_`).
static bool isRandom(const jit::Node *node) {
  if (node->isNondeterministic())
    return true;
  llvm::StringRef name = node->kind().toUnqualString();
  name.consume_back("_");
  return llvm::is_contained(
      {"bernoulli", "dropout", "feature_dropout", "alpha_dropout",
       "feature_alpha_dropout", "rand", "randn", "randint", "rand_like",
       "randn_like", "randint_like", "randperm", "normal", "uniform",
       "exponential", "multinomial", "cauchy", "geometric", "log_normal",
       "random", "poisson", "rrelu"},
      name);
}

/// Whether the first input of `node` lends its result only its type and
/// shape, not its values (`x.new_zeros(...)`, `torch.ones_like(x)`).
static bool readsOnlyTypeOfFirstInput(const jit::Node *node) {
  return llvm::is_contained(
      {"aten::new_zeros", "aten::new_ones", "aten::new_full",
       "aten::zeros_like", "aten::ones_like", "aten::full_like"},
      llvm::StringRef(node->kind().toQualString()));
}

namespace {
/// Computes the tensors that depend on no input and no weight (a mask built
/// with `x.new_zeros(...)` and assignments into its slices) by running
/// their ops in program order, in-place ops included, and replaces each
/// read of them by the value it reads there: a constant, then (after all
/// folding) a `buffer` argument or an `nn.full`, see materializeConstants.
/// The in-place ops on them disappear with the ops that computed them.
class ConstantSubgraphFolder {
public:
  explicit ConstantSubgraphFolder(jit::Graph &graph) : graph(graph) {}

  /// Returns whether the graph changed. Changes nothing when some value
  /// that is read cannot be made a constant.
  bool run();

private:
  /// A read of a computed value by an op that is not computed here.
  struct Escape {
    jit::Value *value;
    jit::Node *reader; ///< a top-level node
    c10::IValue snapshot;
  };

  bool tryRun(jit::Node *node);
  void escapeInputs(jit::Node *node, jit::Node *topLevel);
  void forgetAliases(const at::Tensor &tensor);
  jit::Value *materialize(const c10::IValue &value, jit::Node *before);

  jit::Graph &graph;
  std::unordered_map<jit::Value *, c10::IValue> known;
  std::vector<jit::Node *> computed;
  std::vector<Escape> escapes;
  /// Tensors snapshot per value at the version they had, so that reads of
  /// an unchanged tensor share one constant.
  std::unordered_map<jit::Value *, std::pair<int64_t, c10::IValue>> snapshots;
};
} // namespace

/// Whether jit::Graph::insertConstant takes `value`, or materialize makes
/// it from parts.
static bool isMaterializable(const c10::IValue &value) {
  if (value.isTensor() || value.isInt() || value.isDouble() ||
      value.isBool() || value.isNone() || value.isString() ||
      value.isIntList() || value.isDoubleList() || value.isBoolList() ||
      value.isDevice())
    return true;
  if (value.isList())
    return llvm::all_of(value.toListRef(), [](const c10::IValue &element) {
      return element.isTensor();
    });
  return false;
}

bool ConstantSubgraphFolder::tryRun(jit::Node *node) {
  if (!node->blocks().empty() || isRandom(node) || node->hasSideEffects() ||
      node->outputs().empty())
    return false;
  jit::Stack stack;
  bool computedInput = false;
  for (auto [index, input] : llvm::enumerate(node->inputs())) {
    auto it = known.find(input);
    if (it != known.end()) {
      stack.push_back(it->second);
      computedInput = true;
      continue;
    }
    if (c10::optional<c10::IValue> constant = jit::toIValue(input)) {
      // The graph's constants must not change under in-place ops.
      stack.push_back(constant->isTensor()
                          ? c10::IValue(constant->toTensor().clone())
                          : *constant);
      continue;
    }
    auto type = input->type()->cast<c10::TensorType>();
    if (index != 0 || !type || !readsOnlyTypeOfFirstInput(node))
      return false;
    c10::optional<at::Tensor> example = makeExample(*type, /*onMeta=*/false);
    if (!example)
      return false;
    stack.push_back(*example);
    computedInput = true;
  }
  // Ops on constants alone are constant propagation's. An in-place op
  // writes a value computed here: a write into one of the graph's constants
  // would reach its other readers, which are not computed here.
  if (!computedInput ||
      (isInPlace(node) && !known.count(node->input(0))))
    return false;
  if (node->kind() == c10::prim::ListConstruct) {
    auto listType = node->output()->type()->cast<c10::ListType>();
    if (!listType)
      return false;
    c10::impl::GenericList list(listType->getElementType());
    for (c10::IValue &element : stack)
      list.push_back(std::move(element));
    known[node->output()] = c10::IValue(std::move(list));
    return true;
  }
  if (node->kind() == c10::prim::ListUnpack) {
    if (stack.size() != 1 || !stack[0].isList() ||
        stack[0].toListRef().size() != node->outputs().size())
      return false;
    for (auto [output, element] :
         llvm::zip(node->outputs(), stack[0].toListRef()))
      known[output] = element;
    return true;
  }
  const jit::Operator *op = node->maybeOperator();
  if (!op)
    return false;
  try {
    op->getOperation(node)(stack);
  } catch (const std::exception &) {
    return false;
  }
  if (stack.size() != node->outputs().size())
    return false;
  for (auto [output, value] : llvm::zip(node->outputs(), stack))
    known[output] = value;
  return true;
}

void ConstantSubgraphFolder::forgetAliases(const at::Tensor &tensor) {
  for (auto it = known.begin(); it != known.end();) {
    if (it->second.isTensor() && it->second.toTensor().is_alias_of(tensor))
      it = known.erase(it);
    else
      ++it;
  }
}

void ConstantSubgraphFolder::escapeInputs(jit::Node *node,
                                          jit::Node *topLevel) {
  for (jit::Value *input : node->inputs()) {
    auto it = known.find(input);
    if (it == known.end())
      continue;
    c10::IValue snapshot = it->second;
    if (snapshot.isTensor()) {
      // The value as it is now: later in-place ops must not reach it.
      const at::Tensor &tensor = snapshot.toTensor();
      auto &[version, copy] = snapshots[input];
      if (copy.isNone() || version != tensor._version())
        snapshots[input] = {tensor._version(), tensor.clone()};
      snapshot = snapshots[input].second;
    } else if (snapshot.isList()) {
      c10::impl::GenericList list(snapshot.toList().elementType());
      for (const c10::IValue &element : snapshot.toListRef())
        list.push_back(element.isTensor() ? c10::IValue(element.toTensor().clone())
                                          : element);
      snapshot = c10::IValue(std::move(list));
    }
    escapes.push_back({input, topLevel, snapshot});
  }
  for (jit::Block *block : node->blocks()) {
    for (jit::Node *nested : block->nodes())
      escapeInputs(nested, topLevel);
    escapeInputs(block->return_node(), topLevel);
  }
}

jit::Value *ConstantSubgraphFolder::materialize(const c10::IValue &value,
                                                jit::Node *before) {
  jit::WithInsertPoint insertPoint(before);
  if (value.isList() && !value.isIntList() && !value.isDoubleList() &&
      !value.isBoolList()) {
    std::vector<jit::Value *> elements;
    for (const c10::IValue &element : value.toListRef())
      elements.push_back(graph.insertConstant(element));
    jit::Node *list =
        graph.createList(value.toList().elementType(), elements);
    list->insertBefore(before);
    return list->output();
  }
  return graph.insertConstant(value);
}

bool ConstantSubgraphFolder::run() {
  at::NoGradGuard noGrad;
  std::vector<jit::Node *> nodes(graph.nodes().begin(), graph.nodes().end());
  for (jit::Node *node : nodes) {
    if (node->kind() == c10::prim::Constant)
      continue;
    if (tryRun(node)) {
      computed.push_back(node);
      continue;
    }
    escapeInputs(node, node);
    // An op computed here no longer knows a tensor that another writes.
    if (isInPlace(node))
      for (jit::Value *input : node->inputs())
        if (auto it = known.find(input);
            it != known.end() && it->second.isTensor())
          forgetAliases(it->second.toTensor());
  }
  escapeInputs(graph.return_node(), graph.return_node());
  if (escapes.empty() && computed.empty())
    return false;
  for (const Escape &escape : escapes)
    if (!isMaterializable(escape.snapshot))
      return false;

  // The reads, each of its own snapshot; then the computing ops, last
  // first (none is read any more).
  std::map<std::pair<jit::Value *, const void *>, jit::Value *> made;
  for (const Escape &escape : escapes) {
    const void *identity = escape.snapshot.isTensor()
                               ? escape.snapshot.toTensor().unsafeGetTensorImpl()
                               : nullptr;
    jit::Value *&constant = made[{escape.value, identity}];
    if (!constant || !identity || !constant->node()->isBefore(escape.reader))
      constant = materialize(escape.snapshot, escape.reader);
    // Named after the module whose code computed it.
    constant->node()->copyMetadata(escape.value->node());
    std::function<void(jit::Node *)> replace = [&](jit::Node *node) {
      node->replaceInputWith(escape.value, constant);
      for (jit::Block *block : node->blocks()) {
        for (jit::Node *nested : block->nodes())
          replace(nested);
        replace(block->return_node());
      }
    };
    replace(escape.reader);
  }
  for (jit::Node *node : llvm::reverse(computed)) {
    if (llvm::any_of(node->outputs(),
                     [](jit::Value *output) { return output->hasUses(); }))
      continue;
    node->destroy();
  }
  return true;
}

/// Replaces each constant tensor of rank 1 and more that an op reads: by
/// `aten::full` (nn.full) when it is a floating-point tensor of one value,
/// else by a new `buffer` argument named after the module whose code
/// computed it (`features.1.1.attn.constant`), whose value goes into the
/// weights directory. (Constants of rank 0 stay: the converter reads them
/// as numbers.)
static void materializeConstants(jit::Graph &graph, jit::Module &module,
                                 PreparedGraph &prepared) {
  std::set<std::string> taken;
  for (const auto &parameter : module.named_parameters(/*recurse=*/true))
    taken.insert(parameter.name);
  for (const auto &buffer : module.named_buffers(/*recurse=*/true))
    taken.insert(buffer.name);
  for (const LiftedTensor &lifted : prepared.lifted)
    taken.insert(lifted.name);
  std::vector<jit::Node *> constants;
  for (jit::Node *node : getAllNodes(graph))
    if (node->kind() == c10::prim::Constant && node->output()->hasUses() &&
        node->output()->type()->cast<c10::TensorType>())
      constants.push_back(node);
  for (jit::Node *node : constants) {
    at::Tensor tensor = node->t(c10::attr::value).detach().contiguous();
    if (tensor.dim() == 0)
      continue;
    // Constant propagation's constants have no call stack: they belong to
    // the module of their first reader.
    jit::Node *reader = node->output()->uses().front().user;
    if (!node->callstack() && reader->callstack())
      node->setCallStack(*reader->callstack());
    jit::Value *replacement;
    if (tensor.is_floating_point() && tensor.numel() > 0 &&
        tensor.eq(tensor.flatten()[0]).all().item<bool>()) {
      jit::WithInsertPoint insertPoint(node);
      jit::Value *none = graph.insertConstant(c10::IValue());
      jit::Node *full = graph.create(
          c10::Symbol::fromQualString("aten::full"),
          {graph.insertConstant(tensor.sizes().vec()),
           graph.insertConstant(tensor.flatten()[0].item<double>()),
           graph.insertConstant(static_cast<int64_t>(tensor.scalar_type())),
           none, none, none},
          1);
      full->insertBefore(node);
      full->copyMetadata(node);
      full->output()->setType(c10::TensorType::create(tensor));
      replacement = full->output();
    } else {
      // Not the variable's name: scripted and traced forms name the value
      // differently (Swin's `attn_mask` against `attn_mask3`).
      std::string path = getModulePath(node);
      std::string base = path.empty() ? "constant" : path + ".constant";
      std::string name = base;
      for (int k = 2; taken.count(name); ++k)
        name = base + "." + std::to_string(k);
      taken.insert(name);
      replacement = graph.addInput();
      replacement->setType(c10::TensorType::create(tensor));
      prepared.lifted.push_back({name, tensor, /*isBuffer=*/true});
    }
    node->output()->replaceAllUsesWith(replacement);
  }
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
    return emitError(getNodeLocation(node, fileLoc))
           << "control flow ('" << node->kind().toQualString()
           << "') that does not fold away for the given input shapes; the "
              "importer needs straight-line code";
  }
  return success();
}

/// Sets the type of each model input from the caller's full types. The
/// inputs are named as forward's Python parameters (as its schema says;
/// the graph's own names may have changed in inlining).
static LogicalResult setInputTypes(jit::Graph &graph,
                                   const c10::FunctionSchema &schema,
                                   ArrayRef<RankedTensorType> inputTypes,
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
  if (failed(setInputTypes(graph, forward->function().getSchema(), inputTypes,
                           prepared, fileLoc)))
    return failure();
  AttributeLifter lifter(graph, prepared, fileLoc);
  if (failed(lifter.run(module._ivalue())))
    return failure();

  foldToFixpoint(prepared.graph);
  functionalize(prepared.graph);
  jit::LowerAllTuples(prepared.graph);
  foldToFixpoint(prepared.graph);
  if (ConstantSubgraphFolder(graph).run())
    foldToFixpoint(prepared.graph);
  if (failed(removeMutation(prepared.graph, prepared, fileLoc)))
    return failure();
  materializeConstants(graph, module, prepared);
  dropNoneResults(graph);
  dropUnusedLifted(graph, prepared);
  sortLifted(module, prepared);
  if (failed(checkStraightLine(graph, fileLoc)) ||
      failed(checkShapes(graph, fileLoc)))
    return failure();
  return prepared;
}
