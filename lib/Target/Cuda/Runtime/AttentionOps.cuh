//===- AttentionOps.cuh - scaled dot-product attention kernels -----------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. Attention with flash
// attention's memory: the forward keeps per query only the log-sum-exp of
// its scores beside the output, the backward recomputes the probabilities
// from q, k, v and the log-sum-exp; nothing of size [Lq, Lk] is ever
// stored. As ATen's CPU flash kernels (which remat-run calls): scores
// scale * q.k + mask, keys j > i dropped when causal (top-left), a query
// whose every score is dropped gets output 0 and log-sum-exp 0. Dropout on
// the probabilities draws each keep from remat's generator at the score's
// flat index in [B, Hq, Lq, Lk] (as remat-run), so the backward redraws the
// forward's mask.
//
// One thread per query row (forward, grad_query) or per key row (grad_key,
// grad_value, summed over the query heads that share it and over queries),
// accumulating in float over the keys with the online softmax: each thread
// owns its row's results, so there is no race and no atomic. Simple rather
// than fast (no tiling in shared memory); head dimensions up to
// kAttentionMaxHeadDim.
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

constexpr int64_t kAttentionMaxHeadDim = 256;

/// query [batch, queryHeads, queryLength, headDim], key and value
/// [batch, keyHeads, keyLength, headDim]; the mask (or null) read at
/// b * maskStride[0] + h * maskStride[1] + i * maskStride[2] + j *
/// maskStride[3] (0 along broadcast dimensions).
struct AttentionShape {
  int64_t batch, queryHeads, keyHeads, queryLength, keyLength, headDim;
  int64_t maskStride[4];
  bool causal;
  float scale;
  double dropout; ///< 0, or the probability of dropping (then a seed)
};

/// What the dropout multiplies the probability of (b, h, i, j) by: 0 where
/// it drops it, else 1 / (1 - p). `key` is mixBits(seed).
__device__ inline float attentionKeepScale(const AttentionShape &s,
                                           uint64_t key, int64_t b, int64_t h,
                                           int64_t i, int64_t j) {
  if (s.dropout == 0.0)
    return 1.0f;
  uint64_t index = ((b * s.queryHeads + h) * s.queryLength + i) * s.keyLength + j;
  return uniformAt(key, index) >= s.dropout ? float(1.0 / (1.0 - s.dropout))
                                            : 0.0f;
}

/// The generator's key for the seed operand (or 0 without dropout).
__device__ inline uint64_t attentionDropoutKey(const int64_t *seed) {
  return seed ? mixBits(uint64_t(seed[0])) : 0;
}

/// The scaled, masked score of query row `q` against key row `k`, or -inf
/// where it is dropped.
__device__ inline float attentionScore(const AttentionShape &s, const float *q,
                                       const float *k, const float *mask,
                                       int64_t b, int64_t h, int64_t i,
                                       int64_t j) {
  if (s.causal && j > i)
    return -INFINITY;
  float dot = 0.0f;
  for (int64_t e = 0; e < s.headDim; ++e)
    dot += q[e] * k[e];
  float score = dot * s.scale;
  if (mask)
    score += mask[b * s.maskStride[0] + h * s.maskStride[1] +
                  i * s.maskStride[2] + j * s.maskStride[3]];
  return score;
}

/// The row of key (or value) head that query head `h` of batch `b` reads.
__device__ inline int64_t attentionKeyRow(const AttentionShape &s, int64_t b,
                                          int64_t h, int64_t j) {
  int64_t group = s.queryHeads / s.keyHeads;
  return ((b * s.keyHeads + h / group) * s.keyLength + j) * s.headDim;
}

__global__ void attentionForwardKernel(AttentionShape s, const float *query,
                                       const float *key, const float *value,
                                       const float *mask, const int64_t *seed,
                                       float *output, float *logsumexp) {
  const int64_t rows = s.batch * s.queryHeads * s.queryLength;
  const uint64_t dropoutKey = attentionDropoutKey(seed);
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    int64_t i = r % s.queryLength, h = r / s.queryLength % s.queryHeads,
            b = r / (s.queryLength * s.queryHeads);
    const float *q = query + r * s.headDim;
    float acc[kAttentionMaxHeadDim];
    for (int64_t e = 0; e < s.headDim; ++e)
      acc[e] = 0.0f;
    float max = -INFINITY, sum = 0.0f;
    for (int64_t j = 0; j < s.keyLength; ++j) {
      int64_t row = attentionKeyRow(s, b, h, j);
      float score = attentionScore(s, q, key + row, mask, b, h, i, j);
      if (score == -INFINITY)
        continue;
      float newMax = score > max ? score : max;
      float rescale = expf(max - newMax), p = expf(score - newMax);
      sum = sum * rescale + p;
      float kept = p * attentionKeepScale(s, dropoutKey, b, h, i, j);
      for (int64_t e = 0; e < s.headDim; ++e)
        acc[e] = acc[e] * rescale + kept * value[row + e];
      max = newMax;
    }
    for (int64_t e = 0; e < s.headDim; ++e)
      output[r * s.headDim + e] = sum > 0.0f ? acc[e] / sum : 0.0f;
    logsumexp[r] = sum > 0.0f ? max + logf(sum) : 0.0f;
  }
}

/// grad_query, one thread per query row: D = dO . O, and for each key
/// dS = P (Z dO . v - D), dq += scale * dS k (Z: the dropout's keep scale).
__global__ void attentionBackwardQueryKernel(
    AttentionShape s, const float *gradOutput, const float *query,
    const float *key, const float *value, const float *output,
    const float *logsumexp, const float *mask, const int64_t *seed,
    float *gradQuery) {
  const int64_t rows = s.batch * s.queryHeads * s.queryLength;
  const uint64_t dropoutKey = attentionDropoutKey(seed);
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    int64_t i = r % s.queryLength, h = r / s.queryLength % s.queryHeads,
            b = r / (s.queryLength * s.queryHeads);
    const float *q = query + r * s.headDim, *dO = gradOutput + r * s.headDim;
    float delta = 0.0f;
    for (int64_t e = 0; e < s.headDim; ++e)
      delta += dO[e] * output[r * s.headDim + e];
    float acc[kAttentionMaxHeadDim];
    for (int64_t e = 0; e < s.headDim; ++e)
      acc[e] = 0.0f;
    for (int64_t j = 0; j < s.keyLength; ++j) {
      int64_t row = attentionKeyRow(s, b, h, j);
      float score = attentionScore(s, q, key + row, mask, b, h, i, j);
      if (score == -INFINITY)
        continue;
      float p = expf(score - logsumexp[r]);
      float dp = 0.0f;
      for (int64_t e = 0; e < s.headDim; ++e)
        dp += dO[e] * value[row + e];
      dp *= attentionKeepScale(s, dropoutKey, b, h, i, j);
      float ds = p * (dp - delta);
      for (int64_t e = 0; e < s.headDim; ++e)
        acc[e] += ds * key[row + e];
    }
    for (int64_t e = 0; e < s.headDim; ++e)
      gradQuery[r * s.headDim + e] = acc[e] * s.scale;
  }
}

/// grad_key and grad_value, one thread per key row: summed over the query
/// heads that read it and their queries, dv += P Z dO and dk += scale * dS q.
__global__ void
attentionBackwardKeyValueKernel(AttentionShape s, const float *gradOutput,
                                const float *query, const float *key,
                                const float *value, const float *output,
                                const float *logsumexp, const float *mask,
                                const int64_t *seed, float *gradKey,
                                float *gradValue) {
  const int64_t rows = s.batch * s.keyHeads * s.keyLength;
  const uint64_t dropoutKey = attentionDropoutKey(seed);
  const int64_t group = s.queryHeads / s.keyHeads;
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    int64_t j = r % s.keyLength, g = r / s.keyLength % s.keyHeads,
            b = r / (s.keyLength * s.keyHeads);
    const float *k = key + r * s.headDim, *v = value + r * s.headDim;
    float dk[kAttentionMaxHeadDim], dv[kAttentionMaxHeadDim];
    for (int64_t e = 0; e < s.headDim; ++e)
      dk[e] = dv[e] = 0.0f;
    for (int64_t h = g * group; h < (g + 1) * group; ++h)
      for (int64_t i = 0; i < s.queryLength; ++i) {
        int64_t qr = (b * s.queryHeads + h) * s.queryLength + i;
        const float *q = query + qr * s.headDim;
        float score = attentionScore(s, q, k, mask, b, h, i, j);
        if (score == -INFINITY)
          continue;
        const float *dO = gradOutput + qr * s.headDim,
                    *o = output + qr * s.headDim;
        float p = expf(score - logsumexp[qr]);
        float dp = 0.0f, delta = 0.0f;
        for (int64_t e = 0; e < s.headDim; ++e) {
          dp += dO[e] * v[e];
          delta += dO[e] * o[e];
        }
        float keepScale = attentionKeepScale(s, dropoutKey, b, h, i, j);
        float ds = p * (dp * keepScale - delta);
        float kept = p * keepScale;
        for (int64_t e = 0; e < s.headDim; ++e) {
          dv[e] += kept * dO[e];
          dk[e] += ds * q[e];
        }
      }
    for (int64_t e = 0; e < s.headDim; ++e) {
      gradKey[r * s.headDim + e] = dk[e] * s.scale;
      gradValue[r * s.headDim + e] = dv[e];
    }
  }
}

inline void attentionForward(Context &ctx, const float *query, const float *key,
                             const float *value, const float *mask,
                             const int64_t *seed, float *output,
                             float *logsumexp, const AttentionShape &shape) {
  int64_t rows = shape.batch * shape.queryHeads * shape.queryLength;
  if (rows == 0)
    return;
  attentionForwardKernel<<<blocksFor(rows), 256, 0, ctx.stream>>>(
      shape, query, key, value, mask, seed, output, logsumexp);
  REMAT_CHECK_LAUNCH();
}

inline void attentionBackward(Context &ctx, const float *gradOutput,
                              const float *query, const float *key,
                              const float *value, const float *output,
                              const float *logsumexp, const float *mask,
                              const int64_t *seed, float *gradQuery,
                              float *gradKey, float *gradValue,
                              const AttentionShape &shape) {
  int64_t queryRows = shape.batch * shape.queryHeads * shape.queryLength;
  int64_t keyRows = shape.batch * shape.keyHeads * shape.keyLength;
  if (queryRows > 0) {
    attentionBackwardQueryKernel<<<blocksFor(queryRows), 256, 0, ctx.stream>>>(
        shape, gradOutput, query, key, value, output, logsumexp, mask, seed,
        gradQuery);
    REMAT_CHECK_LAUNCH();
  }
  if (keyRows > 0) {
    attentionBackwardKeyValueKernel<<<blocksFor(keyRows), 256, 0, ctx.stream>>>(
        shape, gradOutput, query, key, value, output, logsumexp, mask, seed,
        gradKey, gradValue);
    REMAT_CHECK_LAUNCH();
  }
}

} // namespace remat_rt
