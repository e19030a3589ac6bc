//===- Functionalize.cpp - in-place ops and lists made functional ---------===//
//
// Removes mutation from a graph, where nothing else can see it: appends and
// assignments into Python lists (each reader gets a list of the elements at
// its point), in-place ops on fresh tensors and their views (replaced by
// their functional forms), and `torch.empty` (replaced by zeros: only a
// program without a defined result reads its values). What is left mutates
// an argument: an error, except the batch-norm step counter, which is dropped.
//
//===----------------------------------------------------------------------===//

#include "GraphPasses.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <torch/csrc/jit/passes/remove_mutation.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

//===----------------------------------------------------------------------===//
// Python lists
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

/// Whether every use of `list` is in its block and either a mutation this
/// pass rewrites (an append or a constant-index assignment whose result is
/// unused) or a read, with at least one mutation.
static bool hasOnlyRewritableMutations(jit::Value *list) {
  jit::Block *block = list->node()->owningBlock();
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
  return mutated;
}

/// The nodes using `list`, each once, in graph order.
static std::vector<jit::Node *> getUsersInOrder(jit::Value *list) {
  std::vector<jit::Node *> users;
  for (const jit::Use &use : list->uses())
    if (llvm::find(users, use.user) == users.end())
      users.push_back(use.user);
  std::sort(users.begin(), users.end(),
            [](jit::Node *a, jit::Node *b) { return a->isBefore(b); });
  return users;
}

/// Whether each assignment's index is within the list's length as it
/// evolves from `length` (checked before any rewrite, so that a failure
/// leaves the graph as it was).
static bool indicesInRange(ArrayRef<jit::Node *> users, size_t length) {
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
  return true;
}

/// Folds the mutations among `users` into `elements` and gives each reader
/// a list of the elements at its point.
static void rewriteUsers(jit::Value *list, ArrayRef<jit::Node *> users,
                         std::vector<jit::Value *> elements) {
  jit::Node *producer = list->node();
  auto listType = list->type()->cast<c10::ListType>();
  jit::Graph &graph = *list->owningGraph();
  jit::Value *current = list;
  bool stale = false; // whether `current` lacks the latest mutations
  for (jit::Node *user : users) {
    if (isKind(user, "aten::append")) {
      elements.push_back(user->input(1));
      user->destroy();
      stale = true;
      continue;
    }
    if (isKind(user, "aten::_set_item")) {
      int64_t index = jit::toIValue(user->input(1))->toInt();
      if (index < 0)
        index += static_cast<int64_t>(elements.size());
      elements[index] = user->input(2);
      user->destroy();
      stale = true;
      continue;
    }
    if (stale) {
      jit::Node *snapshot =
          graph.createList(listType->getElementType(), elements);
      snapshot->insertBefore(user);
      snapshot->copyMetadata(producer);
      current = snapshot->output();
      stale = false;
    }
    if (current != list)
      user->replaceInputWith(list, current);
  }
}

/// Makes the mutation of one Python list functional: `list` (made by
/// prim::ListConstruct, or `aten::copy` / `list()` of a list whose elements
/// are known) is appended to or assigned into (`xs.append(y)`,
/// `xs[i] = y`) with constant indices in straight-line code, and otherwise
/// only read. Each reader then gets a list of the elements at its point.
/// LibTorch's own pass stops at a list read before it is mutated
/// (DenseNet's `torch.cat(features)` then `features.append(...)`).
static bool functionalizeList(jit::Value *list) {
  if (!list->type()->cast<c10::ListType>() || !hasOnlyRewritableMutations(list))
    return false;
  std::vector<jit::Node *> users = getUsersInOrder(list);
  std::optional<std::vector<jit::Value *>> elements =
      getListElements(list, users.front());
  if (!elements || !indicesInRange(users, elements->size()))
    return false;
  rewriteUsers(list, users, std::move(*elements));
  return true;
}

bool torchscript::functionalizeLists(jit::Graph &graph) {
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

//===----------------------------------------------------------------------===//
// Uninitialized tensors
//===----------------------------------------------------------------------===//

bool torchscript::replaceEmpty(jit::Graph &graph) {
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

//===----------------------------------------------------------------------===//
// In-place ops
//===----------------------------------------------------------------------===//

bool torchscript::isInPlace(const jit::Node *node) {
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

/// The constant bounds [start, end) of a slice with step 1 of a value whose
/// size along the slice's dimension is known.
struct SliceBounds {
  int64_t dim, start, end, size;
};
/// The integer `value` holds as a constant (not None).
static std::optional<int64_t> getIntConstant(jit::Value *value) {
  c10::optional<c10::IValue> constant = jit::toIValue(value);
  if (!constant || !constant->isInt())
    return std::nullopt;
  return constant->toInt();
}

static std::optional<SliceBounds> getSliceBounds(jit::Node *slice) {
  if (slice->kind() != c10::Symbol::fromQualString("aten::slice") ||
      slice->inputs().size() != 5)
    return std::nullopt;
  auto type = slice->input(0)->type()->cast<c10::TensorType>();
  std::optional<int64_t> dim = getIntConstant(slice->input(1));
  std::optional<int64_t> step = getIntConstant(slice->input(4));
  if (!type || !type->sizes().concrete_sizes() || !dim || !step || *step != 1)
    return std::nullopt;
  std::vector<int64_t> sizes = *type->sizes().concrete_sizes();
  int64_t rank = sizes.size();
  if (*dim < -rank || *dim >= rank)
    return std::nullopt;
  SliceBounds bounds{*dim < 0 ? *dim + rank : *dim, 0, 0, 0};
  bounds.size = sizes[bounds.dim];
  auto getBound = [&](jit::Value *value, int64_t missing) -> int64_t {
    std::optional<int64_t> bound = getIntConstant(value);
    int64_t result = bound ? *bound : missing;
    if (result < 0)
      result += bounds.size;
    return std::clamp<int64_t>(result, 0, bounds.size);
  };
  if (!jit::toIValue(slice->input(2)) || !jit::toIValue(slice->input(3)))
    return std::nullopt;
  bounds.start = getBound(slice->input(2), 0);
  bounds.end = std::max(bounds.start, getBound(slice->input(3), bounds.size));
  return bounds;
}

/// Replaces the in-place `node` on a slice of a fresh tensor that is read
/// afterwards (`b = bias.clone(); b[n:2 * n].zero_()`, Swin V2's qkv bias):
/// the slice gets the functional form's value, and the base's later readers
/// read the base rebuilt around it, `cat(base[:start], new, base[end:])`.
/// No other view of the base may be read after `node`.
static bool replaceSliceWrite(jit::Graph &graph, jit::Node *node) {
  jit::Value *self = node->input(0);
  jit::Node *slice = self->node();
  std::optional<SliceBounds> bounds = getSliceBounds(slice);
  if (!bounds)
    return false;
  jit::Value *base = slice->input(0);
  if (getFreshBase(base) != base)
    return false;
  for (const jit::Use &use : base->uses()) {
    if (use.user == slice || !mayAliasInput(use.user))
      continue;
    for (jit::Value *output : use.user->outputs())
      for (const jit::Use &aliasUse : output->uses())
        if (runsAfter(aliasUse.user, node))
          return false;
  }
  jit::Node *functional = createFunctional(graph, node);
  if (!functional)
    return false;
  jit::WithInsertPoint insertPoint(node);
  auto createSlice = [&](int64_t start, int64_t end) {
    jit::Node *piece = graph.create(
        slice->kind(),
        {base, graph.insertConstant(bounds->dim), graph.insertConstant(start),
         graph.insertConstant(end), graph.insertConstant(int64_t(1))},
        1);
    piece->insertBefore(node);
    piece->copyMetadata(node);
    return piece->output();
  };
  std::vector<jit::Value *> pieces;
  if (bounds->start > 0)
    pieces.push_back(createSlice(0, bounds->start));
  pieces.push_back(functional->output());
  if (bounds->end < bounds->size)
    pieces.push_back(createSlice(bounds->end, bounds->size));
  jit::Node *list = graph.createList(c10::TensorType::get(), pieces);
  list->insertBefore(node);
  jit::Node *cat =
      graph.create(c10::Symbol::fromQualString("aten::cat"),
                   {list->output(), graph.insertConstant(bounds->dim)}, 1);
  cat->insertBefore(node);
  cat->copyMetadata(node);
  cat->output()->setType(base->type());
  base->replaceAllUsesAfterNodeWith(node, cat->output());
  self->replaceAllUsesAfterNodeWith(functional, functional->output());
  node->output()->replaceAllUsesWith(functional->output());
  node->destroy();
  return true;
}

bool torchscript::functionalize(std::shared_ptr<jit::Graph> &graph) {
  bool changed = jit::RemoveTensorMutation(graph);
  changed |= jit::InplaceToFunctionalActivation(graph);
  // Only straight-line code: inside a branch that has not folded, later
  // readers of the written value may not run after the write.
  for (jit::Node *node : getAllNodes(*graph))
    if (isInPlace(node) && node->owningBlock() == graph->block())
      changed |=
          replaceInPlace(*graph, node) || replaceSliceWrite(*graph, node);
  return changed;
}

LogicalResult torchscript::removeMutation(std::shared_ptr<jit::Graph> &graph,
                                          const PreparedGraph &prepared,
                                          Location fileLoc) {
  size_t firstLifted = prepared.inputNames.size();
  for (jit::Node *node : getAllNodes(*graph)) {
    // An op inside a branch that did not fold: checkStraightLine reports
    // the branch.
    if (!isInPlace(node) || node->owningBlock() != graph->block())
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
