//===- NormalizationOps.cuh - batch and layer normalization kernels -------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. Training-mode batch
// norm (ATen's native_batch_norm and native_batch_norm_backward with
// train=true, and batch_norm_update_stats) and layer norm (native_layer_norm
// and its backward) as kernels.
//
// Batch norm runs one block per channel over the [n, c, spatial] view: the
// mean, then the biased variance around it (two passes, accumulated in
// double); save_invstd = 1 / sqrt(var + eps). The running-statistics update
// computes the same mean and variance; the statistics become
// (1 - momentum) * old + momentum * batch statistic, the variance unbiased
// (times N / (N - 1), N = n * spatial). Layer norm runs one block per row.
// Null weight or bias read as ones and zeros.
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

/// Threads for a block reducing `count` elements: a multiple of 32, at most
/// `most` (at most 1024). Batch norm has few blocks (one per channel), so
/// its blocks are larger.
inline int normThreadsFor(int64_t count, int64_t most = 256) {
  int64_t threads = (count + 31) / 32 * 32;
  return int(threads < 32 ? 32 : (threads > most ? most : threads));
}

/// Blocks for one block per item of `count` (grid-stride beyond the cap).
inline int normBlocksFor(int64_t count) {
  return int(count < 1 ? 1 : (count > 65535 * 8 ? 65535 * 8 : count));
}

//===----------------------------------------------------------------------===//
// Batch norm
//===----------------------------------------------------------------------===//

/// The mean and the sum of squared deviations from it of channel `ch` of x
/// [n, c, spatial], accumulated in double; every thread of the block gets
/// both.
__device__ inline void normBatchMoments(const float *x, int64_t n, int64_t c,
                                 int64_t spatial, int64_t ch,
                                 double *partial, double &mean,
                                 double &squaredDeviations) {
  const int64_t count = n * spatial;
  // Element i of the channel is x[b, ch, s] with i = b * spatial + s.
  auto at = [&](int64_t i) {
    int64_t b = i / spatial;
    return (b * c + ch) * spatial + (i - b * spatial);
  };
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x)
    sum += x[at(i)];
  mean = blockSum(sum, partial) / double(count);
  double squares = 0.0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    double d = double(x[at(i)]) - mean;
    squares += d * d;
  }
  squaredDeviations = blockSum(squares, partial);
}

__global__ void normBatchForwardKernel(const float *x, const float *gamma,
                                       const float *beta, float *y,
                                       float *saveMean, float *saveInvstd,
                                       int64_t n, int64_t c, int64_t spatial,
                                       double eps) {
  __shared__ double partial[32];
  const int64_t count = n * spatial;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    auto at = [&](int64_t i) {
      int64_t b = i / spatial;
      return (b * c + ch) * spatial + (i - b * spatial);
    };
    double mean, varSum;
    normBatchMoments(x, n, c, spatial, ch, partial, mean, varSum);
    double invstd = 1.0 / sqrt(varSum / double(count) + eps);

    // y = x * scale + shift (ATen's form of (x - mean) * invstd * w + b).
    float weight = gamma ? gamma[ch] : 1.0f;
    float bias = beta ? beta[ch] : 0.0f;
    float scale = float(invstd * weight);
    float shift = float(bias - mean * invstd * weight);
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      int64_t index = at(i);
      y[index] = x[index] * scale + shift;
    }

    if (threadIdx.x == 0) {
      saveMean[ch] = float(mean);
      saveInvstd[ch] = float(invstd);
    }
  }
}

inline void batchNormForward(Context &ctx, const float *x, const float *gamma,
                             const float *beta, float *y, float *saveMean,
                             float *saveInvstd, int64_t n, int64_t c,
                             int64_t spatial, double eps) {
  if (c == 0)
    return;
  int threads = normThreadsFor(n * spatial, 1024);
  normBatchForwardKernel<<<normBlocksFor(c), threads, 0, ctx.stream>>>(
      x, gamma, beta, y, saveMean, saveInvstd, n, c, spatial, eps);
  REMAT_CHECK_LAUNCH();
}

/// One block per channel; thread 0 reads the old statistic of its channel
/// before it writes the new one, so the new statistics may be written into
/// the old ones' buffers (state updated in place).
__global__ void normBatchUpdateStatsKernel(const float *x,
                                           const float *runningMean,
                                           const float *runningVar,
                                           float *newRunningMean,
                                           float *newRunningVar, int64_t n,
                                           int64_t c, int64_t spatial,
                                           double momentum) {
  __shared__ double partial[32];
  const int64_t count = n * spatial;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    double mean, varSum;
    normBatchMoments(x, n, c, spatial, ch, partial, mean, varSum);
    if (threadIdx.x == 0) {
      float oldMean = runningMean[ch], oldVar = runningVar[ch];
      newRunningMean[ch] = float(momentum * mean + (1.0 - momentum) * oldMean);
      newRunningVar[ch] = float(momentum * varSum / double(count - 1) +
                                (1.0 - momentum) * oldVar);
    }
  }
}

inline void batchNormUpdateStats(Context &ctx, const float *x,
                                 const float *runningMean,
                                 const float *runningVar,
                                 float *newRunningMean, float *newRunningVar,
                                 int64_t n, int64_t c, int64_t spatial,
                                 double momentum) {
  if (c == 0)
    return;
  int threads = normThreadsFor(n * spatial, 1024);
  normBatchUpdateStatsKernel<<<normBlocksFor(c), threads, 0, ctx.stream>>>(
      x, runningMean, runningVar, newRunningMean, newRunningVar, n, c, spatial,
      momentum);
  REMAT_CHECK_LAUNCH();
}

/// ATen's training-mode gradients per channel, with N = n * spatial,
/// sum = sum(dy) and dot = sum((x - mean) dy):
///   dx = (dy - sum / N - (x - mean) invstd^2 dot / N) invstd w,
///   dgamma = dot invstd, dbeta = sum.
__global__ void normBatchBackwardKernel(const float *dy, const float *x,
                                        const float *gamma,
                                        const float *saveMean,
                                        const float *saveInvstd, float *dx,
                                        float *dgamma, float *dbeta,
                                        int64_t n, int64_t c,
                                        int64_t spatial) {
  __shared__ double partial[32];
  const int64_t count = n * spatial;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    auto at = [&](int64_t i) {
      int64_t b = i / spatial;
      return (b * c + ch) * spatial + (i - b * spatial);
    };
    const double mean = saveMean[ch], invstd = saveInvstd[ch];
    double sum = 0.0, dot = 0.0;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      int64_t index = at(i);
      double g = dy[index];
      sum += g;
      dot += (double(x[index]) - mean) * g;
    }
    sum = blockSum(sum, partial);
    dot = blockSum(dot, partial);

    if (dx) {
      double weight = gamma ? gamma[ch] : 1.0f;
      double gradMean = sum / double(count);
      double projection = dot * invstd * invstd / double(count);
      for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
        int64_t index = at(i);
        double centered = double(x[index]) - mean;
        dx[index] = float((double(dy[index]) - gradMean -
                           centered * projection) *
                          invstd * weight);
      }
    }
    if (threadIdx.x == 0) {
      if (dgamma)
        dgamma[ch] = float(dot * invstd);
      if (dbeta)
        dbeta[ch] = float(sum);
    }
  }
}

inline void batchNormBackward(Context &ctx, const float *dy, const float *x,
                              const float *gamma, const float *saveMean,
                              const float *saveInvstd, float *dx,
                              float *dgamma, float *dbeta, int64_t n,
                              int64_t c, int64_t spatial) {
  if (c == 0)
    return;
  int threads = normThreadsFor(n * spatial, 1024);
  normBatchBackwardKernel<<<normBlocksFor(c), threads, 0, ctx.stream>>>(
      dy, x, gamma, saveMean, saveInvstd, dx, dgamma, dbeta, n, c, spatial);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

/// One block per row: mean, biased variance around it, rstd =
/// 1 / sqrt(var + eps), y = (x - mean) rstd gamma + beta.
__global__ void normLayerForwardKernel(const float *x, const float *gamma,
                                       const float *beta, float *y,
                                       float *mean, float *rstd, int64_t rows,
                                       int64_t cols, double eps) {
  __shared__ double partial[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float *in = x + row * cols;
    float *out = y + row * cols;
    double sum = 0.0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      sum += in[j];
    double rowMean = blockSum(sum, partial) / double(cols);
    double squares = 0.0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      double d = double(in[j]) - rowMean;
      squares += d * d;
    }
    double var = blockSum(squares, partial) / double(cols);
    double rowRstd = 1.0 / sqrt((var > 0.0 ? var : 0.0) + eps);

    float scale = float(rowRstd), shift = float(-rowRstd * rowMean);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      float value = in[j] * scale + shift;
      if (gamma)
        value *= gamma[j];
      if (beta)
        value += beta[j];
      out[j] = value;
    }
    if (threadIdx.x == 0) {
      if (mean)
        mean[row] = float(rowMean);
      if (rstd)
        rstd[row] = float(rowRstd);
    }
  }
}

inline void layerNormForward(Context &ctx, const float *x, const float *gamma,
                             const float *beta, float *y, float *mean,
                             float *rstd, int64_t rows, int64_t cols,
                             double eps) {
  if (rows == 0)
    return;
  normLayerForwardKernel<<<normBlocksFor(rows), normThreadsFor(cols), 0,
                           ctx.stream>>>(x, gamma, beta, y, mean, rstd, rows,
                                         cols, eps);
  REMAT_CHECK_LAUNCH();
}

/// One block per row, with g = dy gamma and xhat = (x - mean) rstd:
///   dx = rstd (g - mean(g) - xhat mean(g xhat))
/// (ATen's a dy gamma + b x + c, rearranged).
__global__ void normLayerBackwardInputKernel(const float *dy, const float *x,
                                             const float *mean,
                                             const float *rstd,
                                             const float *gamma, float *dx,
                                             int64_t rows, int64_t cols) {
  __shared__ double partial[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float *dyRow = dy + row * cols, *xRow = x + row * cols;
    float *dxRow = dx + row * cols;
    const double rowMean = mean[row], rowRstd = rstd[row];
    double sumG = 0.0, sumGXhat = 0.0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      double g = double(dyRow[j]) * (gamma ? gamma[j] : 1.0f);
      sumG += g;
      sumGXhat += g * (double(xRow[j]) - rowMean) * rowRstd;
    }
    double meanG = blockSum(sumG, partial) / double(cols);
    double meanGXhat = blockSum(sumGXhat, partial) / double(cols);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      double g = double(dyRow[j]) * (gamma ? gamma[j] : 1.0f);
      double xhat = (double(xRow[j]) - rowMean) * rowRstd;
      dxRow[j] = float(rowRstd * (g - meanG - xhat * meanGXhat));
    }
  }
}

/// Column sums over the rows: dgamma[j] = sum dy xhat, dbeta[j] = sum dy.
/// Block (32, 8): a tile of 32 columns, 8 row lanes summed in shared memory.
__global__ void normLayerBackwardParamsKernel(const float *dy, const float *x,
                                              const float *mean,
                                              const float *rstd,
                                              float *dgamma, float *dbeta,
                                              int64_t rows, int64_t cols) {
  __shared__ double gammaPartial[8][32];
  __shared__ double betaPartial[8][32];
  for (int64_t tile = blockIdx.x; tile * 32 < cols; tile += gridDim.x) {
    int64_t j = tile * 32 + threadIdx.x;
    double sumGamma = 0.0, sumBeta = 0.0;
    if (j < cols)
      for (int64_t row = threadIdx.y; row < rows; row += blockDim.y) {
        double g = dy[row * cols + j];
        sumBeta += g;
        sumGamma += g * (double(x[row * cols + j]) - double(mean[row])) *
                    double(rstd[row]);
      }
    __syncthreads(); // the previous tile's sums have been read
    gammaPartial[threadIdx.y][threadIdx.x] = sumGamma;
    betaPartial[threadIdx.y][threadIdx.x] = sumBeta;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
      for (int lane = 1; lane < 8; ++lane) {
        sumGamma += gammaPartial[lane][threadIdx.x];
        sumBeta += betaPartial[lane][threadIdx.x];
      }
      if (dgamma)
        dgamma[j] = float(sumGamma);
      if (dbeta)
        dbeta[j] = float(sumBeta);
    }
  }
}

inline void layerNormBackward(Context &ctx, const float *dy, const float *x,
                              const float *mean, const float *rstd,
                              const float *gamma, float *dx, float *dgamma,
                              float *dbeta, int64_t rows, int64_t cols) {
  if (cols == 0)
    return;
  // The weight and bias gradients first: dx may then reuse dy's or x's
  // buffer.
  if (dgamma || dbeta) {
    normLayerBackwardParamsKernel<<<normBlocksFor((cols + 31) / 32),
                                    dim3(32, 8), 0, ctx.stream>>>(
        dy, x, mean, rstd, dgamma, dbeta, rows, cols);
    REMAT_CHECK_LAUNCH();
  }
  if (dx && rows > 0) {
    normLayerBackwardInputKernel<<<normBlocksFor(rows), normThreadsFor(cols),
                                   0, ctx.stream>>>(dy, x, mean, rstd, gamma,
                                                    dx, rows, cols);
    REMAT_CHECK_LAUNCH();
  }
}

} // namespace remat_rt
