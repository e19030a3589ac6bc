//===- AttentionDropout.cpp - attention with dropout on the CPU -----------===//
//
// ATen's CPU flash kernels refuse dropout, so nn.attention with dropout_p >
// 0 runs here as the math of flash attention over whole score matrices,
// one batch element at a time: scores, probabilities from the log-sum-exp,
// and the keep mask drawn from remat's generator at each score's flat index
// in [B, Hq, Lq, Lk], the same mask the CUDA kernels draw. The [Hq, Lq, Lk]
// matrices of one element live only inside the kernel; the op's results are
// those of the flash kernels. bf16 and f16 operands compute in f32 (the
// flash kernels' accumulation), their results rounded once.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::remat;

namespace {
/// Key and value heads repeated to the query's (grouped-query heads).
at::Tensor repeatHeads(const at::Tensor &kv, int64_t queryHeads) {
  int64_t group = queryHeads / kv.size(1);
  return group == 1 ? kv : kv.repeat_interleave(group, 1);
}

/// A grouped gradient [B, Hq, L, E] summed over the query heads of each key
/// head: [B, Hkv, L, E].
at::Tensor sumGroups(const at::Tensor &grad, int64_t keyHeads) {
  int64_t group = grad.size(1) / keyHeads;
  if (group == 1)
    return grad;
  return grad.view({grad.size(0), keyHeads, group, grad.size(2), grad.size(3)})
      .sum(2);
}

/// The type the math runs in: f32 for bf16 and f16 operands, as the flash
/// kernels accumulate.
at::Tensor widen(const at::Tensor &tensor) {
  return tensor.to(at::promote_types(tensor.scalar_type(), at::kFloat));
}

/// scale * q k^T + mask, with the causal flag's dropped keys at -inf.
at::Tensor getScores(const AttentionDropoutCall &call, const at::Tensor &query,
                     const at::Tensor &keys) {
  at::Tensor scores = at::matmul(query, keys.transpose(-2, -1)) * call.scale;
  if (call.mask)
    scores = scores + *call.mask;
  if (call.causal) {
    at::Tensor dropped =
        at::ones({scores.size(2), scores.size(3)}, at::kBool).triu(1);
    scores =
        scores.masked_fill(dropped, -std::numeric_limits<float>::infinity());
  }
  return scores;
}

/// The dropout's keep mask scaled by 1 / (1 - p), over the scores of batch
/// element `batch` (the mask's indices continue over the batch).
at::Tensor getKeepScale(const AttentionDropoutCall &call,
                        const at::Tensor &scores, int64_t batch) {
  return getDropoutMask(call.seed, call.dropout, scores.sizes(),
                        scores.scalar_type(), batch * scores.numel()) *
         (1.0 / (1.0 - call.dropout));
}

/// The call for batch element `batch` alone: its rows of a per-element mask.
AttentionDropoutCall forBatchElement(const AttentionDropoutCall &call,
                                     int64_t batch, int64_t batchSize) {
  AttentionDropoutCall element = call;
  if (call.mask && call.mask->dim() == 4 && call.mask->size(0) == batchSize)
    element.mask = call.mask->narrow(0, batch, 1);
  return element;
}

/// Batch element `batch` of `tensor`, in the type the math runs in.
at::Tensor elementOf(const at::Tensor &tensor, int64_t batch) {
  return widen(tensor.narrow(0, batch, 1));
}

/// `shape` with its last dimension `last`.
std::vector<int64_t> withLast(at::IntArrayRef shape, int64_t last) {
  std::vector<int64_t> result(shape.begin(), shape.end());
  result.back() = last;
  return result;
}
} // namespace

// One batch element at a time: the [Hq, Lq, Lk] matrices of one element are
// the kernel's temporaries, not those of the whole batch.
std::pair<at::Tensor, at::Tensor> mlir::remat::attentionWithDropout(
    const AttentionDropoutCall &call, const at::Tensor &query,
    const at::Tensor &key, const at::Tensor &value) {
  int64_t batchSize = query.size(0), heads = query.size(1);
  at::Tensor output =
      at::empty(withLast(query.sizes(), value.size(3)), query.options());
  at::Tensor logsumexp = at::empty({batchSize, heads, query.size(2)},
                                   query.options().dtype(at::kFloat));
  for (int64_t batch = 0; batch < batchSize; ++batch) {
    AttentionDropoutCall element = forBatchElement(call, batch, batchSize);
    at::Tensor scores = getScores(element, elementOf(query, batch),
                                  repeatHeads(elementOf(key, batch), heads));
    at::Tensor rowLogsumexp = at::logsumexp(scores, -1);
    // A query whose every key is dropped: output 0 and log-sum-exp 0, as
    // the flash kernels.
    rowLogsumexp = rowLogsumexp.masked_fill(at::isinf(rowLogsumexp), 0.0);
    at::Tensor probabilities = at::exp(scores - rowLogsumexp.unsqueeze(-1));
    at::Tensor weights = probabilities * getKeepScale(element, scores, batch);
    output.narrow(0, batch, 1)
        .copy_(
            at::matmul(weights, repeatHeads(elementOf(value, batch), heads)));
    logsumexp.narrow(0, batch, 1).copy_(rowLogsumexp);
  }
  return {output, logsumexp};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
mlir::remat::attentionWithDropoutBackward(
    const AttentionDropoutCall &call, const at::Tensor &gradOutput,
    const at::Tensor &query, const at::Tensor &key, const at::Tensor &value,
    const at::Tensor &output, const at::Tensor &logsumexp) {
  int64_t batchSize = query.size(0), heads = query.size(1),
          keyHeads = key.size(1);
  at::Tensor gradQuery = at::empty(query.sizes(), query.options()),
             gradKey = at::empty(key.sizes(), key.options()),
             gradValue = at::empty(value.sizes(), value.options());
  for (int64_t batch = 0; batch < batchSize; ++batch) {
    AttentionDropoutCall element = forBatchElement(call, batch, batchSize);
    at::Tensor q = elementOf(query, batch), dO = elementOf(gradOutput, batch);
    at::Tensor keys = repeatHeads(elementOf(key, batch), heads),
               values = repeatHeads(elementOf(value, batch), heads);
    at::Tensor scores = getScores(element, q, keys);
    at::Tensor probabilities =
        at::exp(scores - logsumexp.narrow(0, batch, 1).unsqueeze(-1));
    at::Tensor keepScale = getKeepScale(element, scores, batch);
    at::Tensor weights = probabilities * keepScale;
    // D = rowsum(dO * O) = rowsum(P * Z * (dO v^T)); dS = P (Z dO v^T - D).
    at::Tensor gradWeights =
        at::matmul(dO, values.transpose(-2, -1)) * keepScale;
    at::Tensor delta =
        (dO * elementOf(output, batch)).sum(-1, /*keepdim=*/true);
    at::Tensor gradScores = probabilities * (gradWeights - delta);
    gradQuery.narrow(0, batch, 1)
        .copy_(at::matmul(gradScores, keys) * element.scale);
    gradKey.narrow(0, batch, 1)
        .copy_(sumGroups(at::matmul(gradScores.transpose(-2, -1), q) *
                             element.scale,
                         keyHeads));
    gradValue.narrow(0, batch, 1)
        .copy_(sumGroups(at::matmul(weights.transpose(-2, -1), dO), keyHeads));
  }
  return {gradQuery, gradKey, gradValue};
}
