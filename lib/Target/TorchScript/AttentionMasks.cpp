//===- AttentionMasks.cpp - constant attention masks made simple ----------===//
//
// Models build their attention masks from positions alone (Hugging Face's
// causal and padding masks from `arange`), so after the constant subgraphs
// are folded a mask is a constant. A mask that keeps every score goes; one
// that keeps exactly the causal triangle becomes the causal flag (no mask
// tensor, and the flash kernels skip the dropped blocks); any other boolean
// mask becomes the additive one that attention takes (0 where it keeps,
// -inf where it drops), so that no boolean tensor reaches the nn function.
//
//===----------------------------------------------------------------------===//

#include "GraphPasses.h"

#include <limits>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

/// SDPA's inputs: query, key, value, attn_mask, dropout_p, is_causal.
constexpr size_t kQueryInput = 0, kKeyInput = 1, kMaskInput = 3,
                 kCausalInput = 5;

/// Where `mask` keeps a score: true, or a value above the lowest float
/// (Hugging Face's float masks drop with finfo.min, not -inf; the softmax
/// weighs both as 0).
static at::Tensor getKept(const at::Tensor &mask) {
  if (mask.scalar_type() == at::kBool)
    return mask;
  return mask.gt(std::numeric_limits<float>::lowest()) &
         mask.ne(-std::numeric_limits<double>::infinity());
}

/// Whether `mask` adds nothing where it keeps (a boolean mask, or a float
/// one that is 0 there).
static bool addsNothing(const at::Tensor &mask, const at::Tensor &kept) {
  if (mask.scalar_type() == at::kBool)
    return true;
  return mask.masked_select(kept).eq(0).all().item<bool>();
}

/// Makes the constant mask of one SDPA node simple; returns whether it
/// changed the node.
static bool simplifyMask(jit::Graph &graph, jit::Node *node) {
  c10::optional<c10::IValue> constant = jit::toIValue(node->input(kMaskInput));
  c10::optional<c10::IValue> causal = jit::toIValue(node->input(kCausalInput));
  auto query = node->input(kQueryInput)->type()->cast<c10::TensorType>();
  auto key = node->input(kKeyInput)->type()->cast<c10::TensorType>();
  if (!constant || !constant->isTensor() || !causal || !causal->isBool() ||
      !query || !key)
    return false;
  c10::optional<std::vector<int64_t>> querySizes =
      query->sizes().concrete_sizes();
  c10::optional<std::vector<int64_t>> keySizes = key->sizes().concrete_sizes();
  c10::optional<c10::ScalarType> queryType = query->scalarType();
  if (!querySizes || !keySizes || querySizes->size() != 4 ||
      keySizes->size() != 4 || !queryType)
    return false;
  at::Tensor mask = constant->toTensor();
  std::vector<int64_t> scores = {(*querySizes)[0], (*querySizes)[1],
                                 (*querySizes)[2], (*keySizes)[2]};
  if (mask.dim() > 4 || !at::is_expandable_to(mask.sizes(), scores))
    return false; // the converter names the input
  at::Tensor kept = getKept(mask);
  bool plain = addsNothing(mask, kept);
  at::Tensor expanded = kept.expand(scores);
  at::Tensor triangle = at::ones({scores[2], scores[3]}, at::kBool).tril();
  jit::WithInsertPoint insertPoint(node);
  if (plain && expanded.all().item<bool>()) {
    node->replaceInput(kMaskInput, graph.insertConstant(c10::IValue()));
    return true;
  }
  if (plain && !causal->toBool() && expanded.eq(triangle).all().item<bool>()) {
    node->replaceInput(kMaskInput, graph.insertConstant(c10::IValue()));
    node->replaceInput(kCausalInput, graph.insertConstant(true));
    return true;
  }
  if (mask.scalar_type() != at::kBool)
    return false;
  at::Tensor additive =
      at::zeros(mask.sizes(), at::TensorOptions().dtype(*queryType))
          .masked_fill(mask.logical_not(),
                       -std::numeric_limits<double>::infinity());
  node->replaceInput(kMaskInput, graph.insertConstant(additive));
  return true;
}

bool torchscript::simplifyAttentionMasks(jit::Graph &graph) {
  bool changed = false;
  for (jit::Node *node : getAllNodes(graph))
    if (isKind(node, "aten::scaled_dot_product_attention") &&
        node->inputs().size() > kCausalInput)
      changed |= simplifyMask(graph, node);
  return changed;
}
