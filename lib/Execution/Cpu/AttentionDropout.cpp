//===- AttentionDropout.cpp - attention with dropout on the CPU -----------===//
//
// ATen's CPU flash kernels refuse dropout, so nn.attention with dropout_p >
// 0 runs here as the math of flash attention over whole score matrices:
// scores, probabilities from the log-sum-exp, and the keep mask drawn from
// remat's generator at each score's flat index in [B, Hq, Lq, Lk], the same
// mask the CUDA kernels draw. The [Lq, Lk] matrices live only inside the
// kernel; the op's results are those of the flash kernels. bf16 and f16
// operands compute in f32 (the flash kernels' accumulation), their results
// rounded once.
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

/// The dropout's keep mask scaled by 1 / (1 - p), over the scores.
at::Tensor getKeepScale(const AttentionDropoutCall &call,
                        const at::Tensor &scores) {
  return getDropoutMask(call.seed, call.dropout, scores.sizes(),
                        scores.scalar_type()) *
         (1.0 / (1.0 - call.dropout));
}
} // namespace

std::pair<at::Tensor, at::Tensor> mlir::remat::attentionWithDropout(
    const AttentionDropoutCall &call, const at::Tensor &query,
    const at::Tensor &key, const at::Tensor &value) {
  int64_t heads = query.size(1);
  at::Tensor scores =
      getScores(call, widen(query), repeatHeads(widen(key), heads));
  at::Tensor logsumexp = at::logsumexp(scores, -1);
  // A query whose every key is dropped: output 0 and log-sum-exp 0, as the
  // flash kernels.
  logsumexp = logsumexp.masked_fill(at::isinf(logsumexp), 0.0);
  at::Tensor probabilities = at::exp(scores - logsumexp.unsqueeze(-1));
  at::Tensor weights = probabilities * getKeepScale(call, scores);
  at::Tensor output = at::matmul(weights, repeatHeads(widen(value), heads));
  return {output.to(query.scalar_type()).contiguous(),
          logsumexp.to(at::kFloat).contiguous()};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
mlir::remat::attentionWithDropoutBackward(const AttentionDropoutCall &call,
                                          const at::Tensor &narrowGradOutput,
                                          const at::Tensor &narrowQuery,
                                          const at::Tensor &key,
                                          const at::Tensor &value,
                                          const at::Tensor &output,
                                          const at::Tensor &logsumexp) {
  at::ScalarType type = narrowQuery.scalar_type();
  at::Tensor query = widen(narrowQuery), gradOutput = widen(narrowGradOutput);
  int64_t heads = query.size(1), keyHeads = key.size(1);
  at::Tensor keys = repeatHeads(widen(key), heads),
             values = repeatHeads(widen(value), heads);
  at::Tensor scores = getScores(call, query, keys);
  at::Tensor probabilities = at::exp(scores - logsumexp.unsqueeze(-1));
  at::Tensor keepScale = getKeepScale(call, scores);
  at::Tensor weights = probabilities * keepScale;
  // D = rowsum(dO * O) = rowsum(P * Z * (dO v^T)); dS = P (Z dO v^T - D).
  at::Tensor gradWeights =
      at::matmul(gradOutput, values.transpose(-2, -1)) * keepScale;
  at::Tensor delta = (gradOutput * widen(output)).sum(-1, /*keepdim=*/true);
  at::Tensor gradScores = probabilities * (gradWeights - delta);
  at::Tensor gradQuery = at::matmul(gradScores, keys) * call.scale;
  at::Tensor gradKey =
      at::matmul(gradScores.transpose(-2, -1), query) * call.scale;
  at::Tensor gradValue = at::matmul(weights.transpose(-2, -1), gradOutput);
  return {gradQuery.to(type).contiguous(),
          sumGroups(gradKey, keyHeads).to(type).contiguous(),
          sumGroups(gradValue, keyHeads).to(type).contiguous()};
}
