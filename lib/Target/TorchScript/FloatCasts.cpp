//===- FloatCasts.cpp - the float conversions a program's types record ---===//
//
// torch.export records the type of every tensor it traced. Inside a
// `torch.autocast` region those types carry autocast's policy: a linear of
// f32 operands gives bf16, a cross entropy of bf16 logits gives f32, and
// the add of a bf16 and an f32 tensor gives f32 by type promotion. The nn
// dialect's ops compute in their operands' one type, so these conversions
// become explicit `aten::to` nodes here, read off the recorded types:
//
//  - an op computes in the float type of its first float result: each float
//    operand of another type is converted to it first (one conversion per
//    value and type, shared by the ops that read it);
//  - a normalization whose parameters are wider than its input (autocast
//    leaves layer_norm of a bf16 input with f32 weights to a mixed kernel
//    that computes in f32) computes in its widest float operand type, and
//    its results are converted to their recorded types after it.
//
// A program without autocast or mixed types records one float type per
// operand and result, and nothing changes.
//
//===----------------------------------------------------------------------===//

#include "GraphPasses.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <torch/csrc/jit/ir/constants.h>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

static bool isFloat(c10::ScalarType type) { return c10::isFloatingType(type); }

/// Normalizations that ATen runs on an input narrower than their weights.
static bool isMixedPrecisionNorm(const jit::Node *node) {
  static const llvm::StringSet<> kinds = {
      "aten::layer_norm",
      "aten::native_layer_norm",
      "aten::batch_norm",
      "aten::native_batch_norm",
      "aten::group_norm",
      "aten::native_group_norm",
      "aten::instance_norm",
      "aten::rms_norm",
      "aten::_native_batch_norm_legit",
      "aten::_native_batch_norm_legit_functional",
      "aten::_native_batch_norm_legit_no_training"};
  return kinds.contains(node->kind().toQualString());
}

/// Conversions keep their own types: the converter makes them nn.convert.
static bool isConversion(const jit::Node *node) {
  return isKind(node, "aten::to") || isKind(node, "aten::_to_copy") ||
         isKind(node, "aten::type_as") ||
         isKind(node, "aten::_assert_tensor_metadata");
}

namespace {
class FloatCaster {
public:
  FloatCaster(jit::Graph &graph, const RecordedTypes &recorded)
      : graph(graph), recorded(recorded) {}

  void run();

private:
  std::optional<c10::ScalarType> getType(const jit::Value *value) const;
  std::optional<c10::ScalarType> getComputeType(const jit::Node *node) const;
  jit::Value *convert(jit::Value *value, c10::ScalarType type,
                      jit::Node *before, const jit::Node *reader);
  void convertOperands(jit::Node *node, c10::ScalarType type);
  void convertResults(jit::Node *node, c10::ScalarType computeType);

  jit::Graph &graph;
  const RecordedTypes &recorded;
  /// The conversions made so far, by value and type.
  llvm::DenseMap<std::pair<const jit::Value *, int>, jit::Value *> converted;
};
} // namespace

/// The recorded element type of `value`, else that of its graph type (a
/// TorchScript module's, after shape propagation).
std::optional<c10::ScalarType>
FloatCaster::getType(const jit::Value *value) const {
  auto it = recorded.find(value);
  if (it != recorded.end())
    return it->second;
  if (auto type = value->type()->cast<c10::TensorType>())
    if (type->scalarType())
      return *type->scalarType();
  return std::nullopt;
}

std::optional<c10::ScalarType>
FloatCaster::getComputeType(const jit::Node *node) const {
  std::optional<c10::ScalarType> resultType;
  for (const jit::Value *output : node->outputs())
    if (std::optional<c10::ScalarType> type = getType(output);
        type && isFloat(*type)) {
      resultType = type;
      break;
    }
  if (!resultType || !isMixedPrecisionNorm(node))
    return resultType;
  c10::ScalarType widest = *resultType;
  for (const jit::Value *input : node->inputs())
    if (std::optional<c10::ScalarType> type = getType(input);
        type && isFloat(*type) && c10::promoteTypes(widest, *type) == *type)
      widest = *type;
  return widest;
}

/// `value` converted to `type`, inserted before `before`; the conversion
/// takes its source line and module from `reader`, the op it is for.
jit::Value *FloatCaster::convert(jit::Value *value, c10::ScalarType type,
                                 jit::Node *before, const jit::Node *reader) {
  auto key = std::make_pair(static_cast<const jit::Value *>(value),
                            static_cast<int>(type));
  if (jit::Value *done = converted.lookup(key))
    return done;
  jit::WithInsertPoint guard(before);
  jit::Node *cast =
      graph.create(c10::Symbol::fromQualString("aten::to"),
                   {value, graph.insertConstant(static_cast<int64_t>(type)),
                    graph.insertConstant(false), graph.insertConstant(false),
                    graph.insertConstant(c10::IValue())});
  cast->copyMetadata(const_cast<jit::Node *>(reader));
  graph.insertNode(cast);
  if (auto valueType = value->type()->cast<c10::TensorType>())
    cast->output()->setType(valueType->withScalarType(type));
  converted[key] = cast->output();
  return cast->output();
}

void FloatCaster::convertOperands(jit::Node *node, c10::ScalarType type) {
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    jit::Value *input = node->input(i);
    // The tensors of a list (cat, stack) convert one by one, in the list
    // itself: a list is read by one op.
    if (input->node()->kind() == c10::prim::ListConstruct &&
        input->type()->cast<c10::ListType>()) {
      jit::Node *list = input->node();
      for (size_t j = 0; j < list->inputs().size(); ++j) {
        std::optional<c10::ScalarType> elementType = getType(list->input(j));
        if (elementType && isFloat(*elementType) && *elementType != type)
          list->replaceInput(j, convert(list->input(j), type, list, node));
      }
      continue;
    }
    if (!input->type()->cast<c10::TensorType>())
      continue;
    std::optional<c10::ScalarType> inputType = getType(input);
    if (inputType && isFloat(*inputType) && *inputType != type)
      node->replaceInput(i, convert(input, type, node, node));
  }
}

void FloatCaster::convertResults(jit::Node *node, c10::ScalarType computeType) {
  for (jit::Value *output : node->outputs()) {
    std::optional<c10::ScalarType> type = getType(output);
    if (!type || !isFloat(*type) || *type == computeType || !output->hasUses())
      continue;
    jit::Node *next = node->next();
    std::vector<jit::Use> uses = output->uses();
    // The op computes in computeType now; the conversion gives the type
    // its readers had.
    if (auto outputType = output->type()->cast<c10::TensorType>())
      output->setType(outputType->withScalarType(computeType));
    jit::Value *result = convert(output, *type, next, node);
    for (const jit::Use &use : uses)
      use.user->replaceInput(use.offset, result);
  }
}

void FloatCaster::run() {
  std::vector<jit::Node *> nodes(graph.nodes().begin(), graph.nodes().end());
  for (jit::Node *node : nodes) {
    if (!node->kind().is_aten() || isConversion(node))
      continue;
    std::optional<c10::ScalarType> computeType = getComputeType(node);
    if (!computeType)
      continue;
    convertOperands(node, *computeType);
    if (isMixedPrecisionNorm(node))
      convertResults(node, *computeType);
  }
}

void torchscript::insertFloatCasts(jit::Graph &graph,
                                   const RecordedTypes &recorded) {
  FloatCaster(graph, recorded).run();
}
