//===- LossOps.cuh - softmax, log-softmax and cross entropy kernels -------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. Softmax and log-softmax
// along the middle dim of an [outer, dimSize, inner] view (ATen's _softmax,
// _log_softmax and their backward from the result), and mean cross entropy of
// [N, classes, d1, ...] logits against int64 labels [N, d1, ...] (ATen's
// cross_entropy: nll_loss of log_softmax, mean over the labels not equal to
// ignore_index, NaN when there are none; the gradient is 0 then).
//
// With inner == 1 (softmax along the last dim) one block runs each row; else
// one thread runs each (outer, inner) column, reading across the columns'
// contiguous inner index. Sums of exponentials accumulate in double. Cross
// entropy runs one block per row of classes, n = N x d1 x ... rows whose
// class scores lie inner = d1 x ... apart (strided reads for per-pixel
// logits: correct, not coalesced).
//
// No scratch memory: the cross entropy forward adds each row's loss into
// the 0-d result with atomicAdd, and one block divides by the label count
// after; the backward's blocks each count the labels themselves (the grid is
// capped at a few blocks per multiprocessor to keep that cheap).
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

/// The maximum of `value` over the block (as blockSum); NaN wins.
__device__ inline float lossBlockMax(float value, float *partial) {
  auto combine = [](float a, float b) { return (a > b || isnan(a)) ? a : b; };
  for (int offset = 16; offset > 0; offset /= 2)
    value = combine(value, __shfl_down_sync(0xffffffffu, value, offset));
  __syncthreads();
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x < 32) {
    value = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : -INFINITY;
    for (int offset = 16; offset > 0; offset /= 2)
      value = combine(value, __shfl_down_sync(0xffffffffu, value, offset));
    if (threadIdx.x == 0)
      partial[0] = value;
  }
  __syncthreads();
  return partial[0];
}

/// Threads for a block reducing `count` elements: a multiple of 32, at most
/// 256.
inline int lossThreadsFor(int64_t count) {
  int64_t threads = (count + 31) / 32 * 32;
  return int(threads < 32 ? 32 : (threads > 256 ? 256 : threads));
}

/// Blocks for one block per row, at most `cap`.
inline int lossBlocksFor(int64_t rows, int64_t cap) {
  return int(rows < 1 ? 1 : (rows > cap ? cap : rows));
}

/// The row's maximum, its sum of exp(x - max) and that sum's log, by the
/// block.
struct LossRowStats {
  float max;
  float sum;
  float logSum;
};

__device__ inline LossRowStats lossRowStats(const float *row, int64_t size,
                                            float *maxPartial,
                                            double *sumPartial,
                                            int64_t stride = 1) {
  float max = -INFINITY;
  for (int64_t j = threadIdx.x; j < size; j += blockDim.x) {
    float value = row[j * stride];
    max = (value > max || isnan(value)) ? value : max;
  }
  max = lossBlockMax(max, maxPartial);
  double sum = 0.0;
  for (int64_t j = threadIdx.x; j < size; j += blockDim.x)
    sum += expf(row[j * stride] - max);
  sum = blockSum(sum, sumPartial);
  return {max, float(sum), float(log(sum))};
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

/// inner == 1: one block per row of dimSize elements.
__global__ void lossSoftmaxRowKernel(const float *x, float *y, int64_t rows,
                                     int64_t dimSize, bool log) {
  __shared__ float maxPartial[32];
  __shared__ double sumPartial[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *in = x + r * dimSize;
    float *out = y + r * dimSize;
    LossRowStats stats = lossRowStats(in, dimSize, maxPartial, sumPartial);
    for (int64_t j = threadIdx.x; j < dimSize; j += blockDim.x) {
      float shifted = in[j] - stats.max;
      out[j] = log ? shifted - stats.logSum : expf(shifted) / stats.sum;
    }
  }
}

/// inner > 1: one thread per (outer, inner) column of dimSize elements.
__global__ void lossSoftmaxColumnKernel(const float *x, float *y,
                                        int64_t outer, int64_t dimSize,
                                        int64_t inner, bool log) {
  int64_t columns = outer * inner;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       i < columns; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t o = i / inner, in = i - o * inner;
    const float *src = x + o * dimSize * inner + in;
    float *dst = y + o * dimSize * inner + in;
    float max = -INFINITY;
    for (int64_t d = 0; d < dimSize; ++d) {
      float value = src[d * inner];
      max = (value > max || isnan(value)) ? value : max;
    }
    double sum = 0.0;
    for (int64_t d = 0; d < dimSize; ++d)
      sum += expf(src[d * inner] - max);
    float total = float(sum), logSum = float(::log(sum));
    for (int64_t d = 0; d < dimSize; ++d) {
      float shifted = src[d * inner] - max;
      dst[d * inner] = log ? shifted - logSum : expf(shifted) / total;
    }
  }
}

inline void softmaxForward(Context &ctx, const float *x, float *y,
                           int64_t outer, int64_t dimSize, int64_t inner,
                           bool log) {
  if (outer * dimSize * inner == 0)
    return;
  if (inner == 1) {
    lossSoftmaxRowKernel<<<lossBlocksFor(outer, 65535 * 8),
                           lossThreadsFor(dimSize), 0, ctx.stream>>>(
        x, y, outer, dimSize, log);
  } else {
    lossSoftmaxColumnKernel<<<blocksFor(outer * inner), 256, 0, ctx.stream>>>(
        x, y, outer, dimSize, inner, log);
  }
  REMAT_CHECK_LAUNCH();
}

/// inner == 1: softmax dx = y (dy - sum(dy y)); log-softmax
/// dx = dy - exp(y) sum(dy).
__global__ void lossSoftmaxBackwardRowKernel(const float *dy, const float *y,
                                             float *dx, int64_t rows,
                                             int64_t dimSize, bool log) {
  __shared__ double partial[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *dyRow = dy + r * dimSize, *yRow = y + r * dimSize;
    float *dxRow = dx + r * dimSize;
    double sum = 0.0;
    for (int64_t j = threadIdx.x; j < dimSize; j += blockDim.x)
      sum += log ? double(dyRow[j]) : double(dyRow[j]) * yRow[j];
    float total = float(blockSum(sum, partial));
    for (int64_t j = threadIdx.x; j < dimSize; j += blockDim.x)
      dxRow[j] = log ? dyRow[j] - expf(yRow[j]) * total
                     : yRow[j] * (dyRow[j] - total);
  }
}

/// inner > 1: as lossSoftmaxBackwardRowKernel, one thread per column.
__global__ void lossSoftmaxBackwardColumnKernel(const float *dy,
                                                const float *y, float *dx,
                                                int64_t outer, int64_t dimSize,
                                                int64_t inner, bool log) {
  int64_t columns = outer * inner;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       i < columns; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t o = i / inner, in = i - o * inner;
    int64_t base = o * dimSize * inner + in;
    double sum = 0.0;
    for (int64_t d = 0; d < dimSize; ++d) {
      int64_t index = base + d * inner;
      sum += log ? double(dy[index]) : double(dy[index]) * y[index];
    }
    float total = float(sum);
    for (int64_t d = 0; d < dimSize; ++d) {
      int64_t index = base + d * inner;
      dx[index] = log ? dy[index] - expf(y[index]) * total
                      : y[index] * (dy[index] - total);
    }
  }
}

inline void softmaxBackward(Context &ctx, const float *dy, const float *y,
                            float *dx, int64_t outer, int64_t dimSize,
                            int64_t inner, bool log) {
  if (outer * dimSize * inner == 0)
    return;
  if (inner == 1) {
    lossSoftmaxBackwardRowKernel<<<lossBlocksFor(outer, 65535 * 8),
                                   lossThreadsFor(dimSize), 0, ctx.stream>>>(
        dy, y, dx, outer, dimSize, log);
  } else {
    lossSoftmaxBackwardColumnKernel<<<blocksFor(outer * inner), 256, 0,
                                      ctx.stream>>>(dy, y, dx, outer, dimSize,
                                                    inner, log);
  }
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Cross entropy
//===----------------------------------------------------------------------===//

/// Where row r's classes start in [n / inner, classes, inner] logits: the
/// row's class scores are `inner` apart.
__device__ inline int64_t lossRowStart(int64_t r, int64_t classes,
                                       int64_t inner) {
  int64_t sample = r / inner;
  return (sample * classes) * inner + (r - sample * inner);
}

/// One block per row: loss += logsumexp(row) - row[label] for the rows whose
/// label is not ignoreIndex (a label out of range, an error in ATen, adds
/// NaN). `loss` is zeroed before.
__global__ void lossCrossEntropySumKernel(const float *logits,
                                          const int64_t *labels, float *loss,
                                          int64_t n, int64_t classes,
                                          int64_t inner, int64_t ignoreIndex) {
  __shared__ float maxPartial[32];
  __shared__ double sumPartial[32];
  for (int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    int64_t label = labels[r];
    if (label == ignoreIndex)
      continue; // the same for the whole block
    const float *row = logits + lossRowStart(r, classes, inner);
    LossRowStats stats =
        lossRowStats(row, classes, maxPartial, sumPartial, inner);
    if (threadIdx.x == 0) {
      float value = label >= 0 && label < classes
                        ? -(row[label * inner] - stats.max - stats.logSum)
                        : NAN;
      atomicAdd(loss, value);
    }
  }
}

/// The number of labels not equal to ignoreIndex, by the block.
__device__ inline long long lossCountLabels(const int64_t *labels, int64_t n,
                                            int64_t ignoreIndex,
                                            long long *partial) {
  long long count = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    count += labels[i] != ignoreIndex ? 1 : 0;
  return blockSum(count, partial);
}

/// One block: loss = loss / (labels counted) (0 / 0 = NaN when none is).
__global__ void lossCrossEntropyMeanKernel(const int64_t *labels, float *loss,
                                           int64_t n, int64_t ignoreIndex) {
  __shared__ long long partial[32];
  long long count = lossCountLabels(labels, n, ignoreIndex, partial);
  if (threadIdx.x == 0)
    *loss = *loss / float(count);
}

inline void crossEntropyForward(Context &ctx, const float *logits,
                                const int64_t *labels, float *loss, int64_t n,
                                int64_t classes, int64_t inner,
                                int64_t ignoreIndex) {
  REMAT_CHECK_CUDA(cudaMemsetAsync(loss, 0, sizeof(float), ctx.stream));
  if (n > 0 && classes > 0) {
    lossCrossEntropySumKernel<<<lossBlocksFor(n, 65535 * 8),
                                lossThreadsFor(classes), 0, ctx.stream>>>(
        logits, labels, loss, n, classes, inner, ignoreIndex);
    REMAT_CHECK_LAUNCH();
  }
  lossCrossEntropyMeanKernel<<<1, 256, 0, ctx.stream>>>(labels, loss, n,
                                                        ignoreIndex);
  REMAT_CHECK_LAUNCH();
}

/// Each block counts the labels, then runs rows: dlogits = (softmax - onehot)
/// * dloss / count, zero on ignored rows.
__global__ void lossCrossEntropyBackwardKernel(const float *dloss,
                                               const float *logits,
                                               const int64_t *labels,
                                               float *dlogits, int64_t n,
                                               int64_t classes, int64_t inner,
                                               int64_t ignoreIndex) {
  __shared__ long long countPartial[32];
  __shared__ float maxPartial[32];
  __shared__ double sumPartial[32];
  long long count = lossCountLabels(labels, n, ignoreIndex, countPartial);
  float scale = *dloss / float(count);
  for (int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    int64_t label = labels[r];
    int64_t start = lossRowStart(r, classes, inner);
    const float *row = logits + start;
    float *out = dlogits + start;
    if (label == ignoreIndex) { // the same for the whole block
      for (int64_t j = threadIdx.x; j < classes; j += blockDim.x)
        out[j * inner] = 0.0f;
      continue;
    }
    LossRowStats stats =
        lossRowStats(row, classes, maxPartial, sumPartial, inner);
    for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) {
      float probability = expf(row[j * inner] - stats.max - stats.logSum);
      out[j * inner] = probability * scale - (j == label ? scale : 0.0f);
    }
  }
}

inline void crossEntropyBackward(Context &ctx, const float *dloss,
                                 const float *logits, const int64_t *labels,
                                 float *dlogits, int64_t n, int64_t classes,
                                 int64_t inner, int64_t ignoreIndex) {
  if (n * classes == 0)
    return;
  // Every block scans the n labels: a few blocks per multiprocessor.
  int device = 0, processors = 0;
  REMAT_CHECK_CUDA(cudaGetDevice(&device));
  REMAT_CHECK_CUDA(cudaDeviceGetAttribute(
      &processors, cudaDevAttrMultiProcessorCount, device));
  int64_t cap = 4 * int64_t(processors > 0 ? processors : 1);
  lossCrossEntropyBackwardKernel<<<lossBlocksFor(n, cap),
                                   lossThreadsFor(classes), 0, ctx.stream>>>(
      dloss, logits, labels, dlogits, n, classes, inner, ignoreIndex);
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
