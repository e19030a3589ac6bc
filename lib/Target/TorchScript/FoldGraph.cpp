//===- FoldGraph.cpp - shapes and control flow for given inputs -----------===//
//
// Folds a graph for the shapes of its inputs, round after round until nothing
// changes: shape and type queries (`x.size(1)`, `x.dtype`) become constants,
// each op's results get full types from running it on examples of its inputs,
// and LibTorch's constant propagation and loop unrolling then fold the control
// flow those constants decide. Each round also makes Python lists functional,
// replaces `torch.empty` by zeros (Functionalize.cpp) and drops warnings and
// type-refinement casts.
//
//===----------------------------------------------------------------------===//

#include "GraphPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

//===----------------------------------------------------------------------===//
// Shape and type queries
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

/// Whether `value` is a tensor that its op makes anew (its schema says the
/// result aliases no input, and the op writes none).
static bool isFreshTensor(const jit::Value *value) {
  const c10::FunctionSchema *schema = value->node()->maybeSchema();
  if (value->type()->kind() != c10::TypeKind::TensorType || !schema ||
      schema->is_mutable())
    return false;
  return llvm::none_of(schema->returns(), [](const c10::Argument &result) {
    return result.alias_info() != nullptr;
  });
}

/// The tensor whose object `value` is or was made from: up through the ops
/// whose result aliases their first input (views, and `contiguous` or
/// `flatten`, which may return the input itself).
static const jit::Value *getAliasRoot(const jit::Value *value) {
  while (true) {
    const jit::Node *node = value->node();
    const c10::FunctionSchema *schema = node->maybeSchema();
    if (!schema || schema->is_mutable() || node->inputs().empty() ||
        llvm::none_of(schema->returns(), [](const c10::Argument &result) {
          return result.alias_info() != nullptr;
        }))
      return value;
    value = node->input(0);
  }
}

/// Whether `a` and `b` are different tensor objects: made from different
/// fresh results, or from a fresh result and an input of the graph (two
/// inputs may be one tensor).
static bool areDistinctTensors(const jit::Value *a, const jit::Value *b) {
  auto isGraphInput = [](const jit::Value *value) {
    return value->node()->kind() == c10::prim::Param &&
           value->type()->kind() == c10::TypeKind::TensorType;
  };
  const jit::Value *rootA = getAliasRoot(a), *rootB = getAliasRoot(b);
  if (rootA == rootB || (isGraphInput(rootA) && isGraphInput(rootB)))
    return false;
  return (isFreshTensor(rootA) || isGraphInput(rootA)) &&
         (isFreshTensor(rootB) || isGraphInput(rootB));
}

/// The constant that a query of a value's type (`x.shape`, `x.size(d)`,
/// `x.dim()`, `x.numel()`, `x.dtype`, `x.device`, `x.is_cuda`,
/// `x.is_nested`: imported tensors are dense CPU tensors) or identity
/// (`x is x`) stands for, when the types decide it.
static c10::optional<c10::IValue> foldTypeQuery(jit::Node *node) {
  llvm::StringRef kind = node->kind().toQualString();
  if (kind == "aten::__is__" || kind == "aten::__isnot__") {
    // `x is x`; `x is None` where the type of x is not optional; `x is y`
    // where x and y are different objects (nn.MultiheadAttention's
    // cross-attention checks `query is not key`).
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
    else if ((isNone(a) && isTensor(b)) || (isTensor(a) && isNone(b)) ||
             areDistinctTensors(a, b))
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
      if (llvm::MulOverflow(count, size, count))
        return c10::nullopt;
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

/// The value of a query of the running mode that a training step decides:
/// gradients are enabled, autocast is not (the step is imported in fp32),
/// nothing runs in inference mode. nn.MultiheadAttention and
/// nn.TransformerEncoderLayer branch on these to choose their fast path.
static c10::optional<c10::IValue> foldModeQuery(jit::Node *node) {
  llvm::StringRef kind = node->kind().toQualString();
  if (kind == "aten::is_grad_enabled")
    return c10::IValue(true);
  if (kind == "aten::is_autocast_enabled" ||
      kind == "aten::is_autocast_cpu_enabled" ||
      kind == "aten::is_inference_mode_enabled")
    return c10::IValue(false);
  return c10::nullopt;
}

/// The string `aten::format` makes of constant strings and numbers, each
/// `{}` replaced by the next argument (LibTorch's constant propagation
/// leaves this vararg op alone): nn.TransformerEncoder tests the length of
/// a message it formats to leave its fast path.
static c10::optional<c10::IValue> foldConstantFormat(jit::Node *node) {
  if (node->kind().toQualString() != llvm::StringRef("aten::format") ||
      node->inputs().empty())
    return c10::nullopt;
  std::vector<std::string> parts;
  for (jit::Value *input : node->inputs()) {
    c10::optional<c10::IValue> value = jit::toIValue(input);
    if (!value)
      return c10::nullopt;
    if (value->isString())
      parts.push_back(value->toStringRef());
    else if (value->isInt())
      parts.push_back(std::to_string(value->toInt()));
    else if (value->isBool())
      parts.push_back(value->toBool() ? "True" : "False");
    else
      return c10::nullopt;
  }
  std::string text, rest = parts.front();
  size_t next = 1;
  for (size_t at; (at = rest.find("{}")) != std::string::npos;) {
    text += rest.substr(0, at) + (next < parts.size() ? parts[next++] : "{}");
    rest = rest.substr(at + 2);
  }
  text += rest;
  return c10::IValue(text);
}

/// Replaces the queries foldTypeQuery and foldModeQuery decide, and
/// constant formatting, by constants.
static bool foldShapeQueries(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph)) {
    if (node->outputs().size() != 1 || !node->output()->hasUses())
      continue;
    c10::optional<c10::IValue> value = foldTypeQuery(node);
    if (!value)
      value = foldModeQuery(node);
    if (!value)
      value = foldConstantFormat(node);
    if (!value)
      continue;
    jit::WithInsertPoint insertPoint(node);
    node->output()->replaceAllUsesWith(
        node->owningGraph()->insertConstant(*value));
    changed = true;
  }
  return changed;
}

//===----------------------------------------------------------------------===//
// Shape propagation
//===----------------------------------------------------------------------===//

c10::optional<at::Tensor> torchscript::makeExample(const c10::TensorType &type,
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

/// An example of a list element that is a fully typed tensor, or nothing.
static c10::optional<at::Tensor> makeElementExample(const jit::Value *element,
                                                    bool onMeta) {
  auto type = element->type()->cast<c10::TensorType>();
  return type ? makeExample(*type, onMeta) : c10::nullopt;
}

c10::optional<jit::Stack> torchscript::runOnExamples(jit::Node *node,
                                                     bool onMeta,
                                                     std::string *error) {
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
        c10::optional<at::Tensor> example = makeElementExample(element, onMeta);
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
        c10::optional<at::Tensor> example = makeElementExample(element, onMeta);
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

/// The result type of the two heavy ops that LibTorch (1.13 at least) cannot
/// run on the meta device (convolution and batch norm), from their shape
/// rules, so that they never run on zeros of the real size: the output of a 2-D
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

/// Replaces the elements of `a, b, c = [x, y, z]` (prim::ListUnpack of a
/// prim::ListConstruct that nothing writes) by the values listed, so that
/// they keep their types (F.multi_head_attention_forward returns q, k and
/// v from _in_projection_packed as a list).
static bool forwardListUnpacks(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : graph.nodes()) {
    if (node->kind() != c10::prim::ListUnpack)
      continue;
    jit::Node *list = node->input(0)->node();
    if (list->kind() != c10::prim::ListConstruct ||
        list->inputs().size() != node->outputs().size() ||
        mayBeWritten(node->input(0)))
      continue;
    for (auto [output, element] : llvm::zip(node->outputs(), list->inputs()))
      if (output->hasUses()) {
        output->replaceAllUsesWith(element);
        changed = true;
      }
  }
  return changed;
}

//===----------------------------------------------------------------------===//
// Cleanups
//===----------------------------------------------------------------------===//

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
// Folding to a fixpoint
//===----------------------------------------------------------------------===//

void torchscript::foldToFixpoint(std::shared_ptr<jit::Graph> &graph) {
  for (int round = 0; round < 10000; ++round) {
    bool changed = forwardListUnpacks(*graph);
    changed |= propagateShapes(*graph);
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
