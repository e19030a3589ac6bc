//===- ConstantSubgraphs.cpp - tensors computed at import -----------------===//
//
// Computes the tensors that depend on no input and no weight (attention masks
// built with `x.new_zeros(...)` and assignments into its slices) by running
// their ops at import, then makes each constant tensor that an op reads an
// `nn.full` or a new `buffer` argument whose value goes into the weights
// directory.
//
//===----------------------------------------------------------------------===//

#include "GraphPasses.h"
#include "NodeConverter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

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

/// Whether `node` makes a fresh tensor from constants alone (`torch.zeros`,
/// `torch.full`, ...) that in-place ops later write with constants,
/// directly or through views (`m = torch.zeros(h, w); m[a:b, c:d] = k`).
/// Constant propagation leaves such a tensor alone because of the writes;
/// here it is computed, writes included. A write of anything else (`m[0] =
/// x[0]`) leaves it to the in-place rewrite.
static bool makesWrittenTensor(jit::Node *node) {
  static const char *const factories[] = {"aten::zeros", "aten::ones",
                                          "aten::full", "aten::arange",
                                          "aten::eye"};
  if (node->outputs().size() != 1 ||
      llvm::none_of(factories,
                    [&](const char *kind) { return isKind(node, kind); }))
    return false;
  std::vector<jit::Value *> aliases = {node->output()};
  bool written = false;
  for (size_t i = 0; i < aliases.size(); ++i)
    for (const jit::Use &use : aliases[i]->uses()) {
      if (use.offset == 0 && isInPlace(use.user)) {
        for (jit::Value *input : use.user->inputs().slice(1))
          if (!jit::toIValue(input))
            return false;
        written = true;
        continue;
      }
      const c10::FunctionSchema *schema = use.user->maybeSchema();
      if (use.offset == 0 && schema &&
          llvm::any_of(schema->returns(), [](const c10::Argument &result) {
            return result.alias_info() != nullptr;
          }))
        llvm::append_range(aliases, use.user->outputs());
    }
  return written;
}

bool ConstantSubgraphFolder::tryRun(jit::Node *node) {
  if (!node->blocks().empty() || isRandom(node) || node->hasSideEffects() ||
      node->outputs().empty())
    return false;
  jit::Stack stack;
  bool computedInput = false, constantTensorInput = false;
  for (auto [index, input] : llvm::enumerate(node->inputs())) {
    auto it = known.find(input);
    if (it != known.end()) {
      stack.push_back(it->second);
      computedInput = true;
      continue;
    }
    if (c10::optional<c10::IValue> constant = jit::toIValue(input)) {
      constantTensorInput |= constant->isTensor();
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
  // Ops on scalar constants alone are constant propagation's, except a
  // fresh tensor that is written later. Ops on constant tensors are computed
  // here too: constant propagation declines views of a constant wherever
  // the graph writes a tensor of the same type (an integer buffer viewed
  // before indexing, where batch norm counts its steps). An in-place op
  // writes a value computed here: a write into one of the graph's constants
  // would reach its other readers, which are not computed here.
  // A list of constants stays constant propagation's: it may hold what no
  // constant can (x[:, idx] is [None, idx]).
  if (node->kind() == c10::prim::ListConstruct)
    constantTensorInput = false;
  if ((!computedInput && !constantTensorInput && !makesWrittenTensor(node)) ||
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
    // An op not computed here that writes a tensor computed here (`m =
    // x.new_zeros(...); m[0] = x[0]`): the tensor's readers after the write
    // would read the snapshot without it. Nothing is folded then (the graph
    // is not changed yet); the in-place rewrite sees the original ops.
    if (isInPlace(node) && node->inputs().size() > 0 &&
        known.count(node->input(0)))
      return false;
    escapeInputs(node, node);
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

bool torchscript::foldConstantSubgraphs(jit::Graph &graph) {
  return ConstantSubgraphFolder(graph).run();
}

/// Makes each constant list of tensors (constant propagation folds `[idx]`
/// once idx is a constant) a prim::ListConstruct of tensor constants, which
/// materializeConstants then gives their arguments.
static void splitTensorListConstants(jit::Graph &graph) {
  for (jit::Node *node : getAllNodes(graph)) {
    if (node->kind() != c10::prim::Constant || !node->output()->hasUses())
      continue;
    auto listType = node->output()->type()->cast<c10::ListType>();
    c10::optional<c10::IValue> value = jit::toIValue(node->output());
    if (!listType || !value || !value->isList() ||
        llvm::none_of(value->toListRef(), [](const c10::IValue &element) {
          return element.isTensor();
        }))
      continue;
    jit::WithInsertPoint insertPoint(node);
    std::vector<jit::Value *> elements;
    for (const c10::IValue &element : value->toListRef())
      elements.push_back(graph.insertConstant(element));
    jit::Node *list = graph.createList(listType->getElementType(), elements);
    list->insertBefore(node);
    list->copyMetadata(node);
    node->output()->replaceAllUsesWith(list->output());
  }
}

/// Whether an in-place op may write `value`, directly or through a view
/// of it (a result its schema says aliases it) or a list that holds it.
static bool mayBeWrittenThroughViews(jit::Value *value) {
  std::vector<jit::Value *> aliases = {value};
  for (size_t i = 0; i < aliases.size(); ++i)
    for (const jit::Use &use : aliases[i]->uses()) {
      if (isInPlace(use.user))
        return true;
      // A list holds the tensor itself: what reads the list may write it.
      if (use.user->kind() == c10::prim::ListConstruct) {
        aliases.push_back(use.user->output());
        continue;
      }
      const c10::FunctionSchema *schema = use.user->maybeSchema();
      if (!schema)
        return true; // unknown aliasing: assume the worst
      if (llvm::any_of(schema->returns(), [](const c10::Argument &result) {
            return result.alias_info() != nullptr;
          }))
        llvm::append_range(aliases, use.user->outputs());
    }
  return false;
}

void torchscript::foldIntegerBuffers(jit::Graph &graph,
                                      PreparedGraph &prepared) {
  size_t first = prepared.inputNames.size();
  for (size_t i = prepared.lifted.size(); i-- > 0;) {
    const LiftedTensor &lifted = prepared.lifted[i];
    if (!lifted.isBuffer || lifted.value.is_floating_point() ||
        lifted.value.is_complex())
      continue;
    jit::Value *input = graph.inputs()[first + i];
    if (mayBeWrittenThroughViews(input))
      continue;
    jit::WithInsertPoint insertPoint(graph.block()->nodes().front());
    input->replaceAllUsesWith(graph.insertConstant(lifted.value.clone()));
    graph.eraseInput(first + i);
    prepared.lifted.erase(prepared.lifted.begin() + i);
  }
}

void torchscript::materializeConstants(
    jit::Graph &graph, const std::set<std::string> &modelTensorNames,
    PreparedGraph &prepared) {
  std::set<std::string> taken = modelTensorNames;
  for (const LiftedTensor &lifted : prepared.lifted)
    taken.insert(lifted.name);
  splitTensorListConstants(graph);
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
    if (getModulePath(node).empty())
      node->setScope(reader->scope());
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
