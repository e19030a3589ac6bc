//===- LinearOps.cuh - linear, matmul and embedding -----------------------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. Linear layers and
// batched matrix products run through cuBLAS SGEMM on row-major buffers; the
// bias add, the bias gradient and embeddings are kernels.
//
// Row-major through column-major cuBLAS: a row-major [r, c] buffer is the
// column-major [c, r] matrix, its transpose. So row-major C = A B is
// computed as the column-major C^T = B^T A^T: the operands swap places and
// m and n swap. Math mode is CUBLAS_DEFAULT_MATH (never TF32), alpha 1,
// beta 0. cuBLAS takes int sizes: larger ones fail with a message.
//
// The cuBLAS handle is bound to ctx.stream only if it is on another stream
// (cublasSetStream resets a workspace the caller gave the handle).
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

/// Prepares the cuBLAS handle: ctx.stream and the default (FP32) math.
inline void linearUseHandle(Context &ctx) {
  cudaStream_t stream = nullptr;
  REMAT_CHECK_CUBLAS(cublasGetStream(ctx.cublas, &stream));
  if (stream != ctx.stream)
    REMAT_CHECK_CUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
  REMAT_CHECK_CUBLAS(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH));
}

/// `value` as a cuBLAS int, or an error naming the op.
inline int linearToInt(int64_t value, const char *what) {
  if (value < 0 || value > int64_t(0x7fffffff)) {
    failStep(formatText("%s: %s = %lld is out of cuBLAS's int range",
                        currentOp, what, (long long)value));
  }
  return int(value);
}

/// Column-major C [m, n] (ld ldc) = op(A) [m, k] op(B) [k, n], `batch` times
/// with the given strides. k == 0 gives zeros (without asking cuBLAS).
inline void linearGemm(Context &ctx, cublasOperation_t opA,
                       cublasOperation_t opB, int64_t m, int64_t n, int64_t k,
                       const float *a, int64_t lda, int64_t strideA,
                       const float *b, int64_t ldb, int64_t strideB, float *c,
                       int64_t ldc, int64_t strideC, int64_t batch) {
  if (m == 0 || n == 0 || batch == 0)
    return;
  if (k == 0) {
    REMAT_CHECK_CUDA(cudaMemsetAsync(
        c, 0, size_t(batch * m * n) * sizeof(float), ctx.stream));
    return;
  }
  linearUseHandle(ctx);
  const float one = 1.0f, zero = 0.0f;
  int mi = linearToInt(m, "m"), ni = linearToInt(n, "n"),
      ki = linearToInt(k, "k");
  int ldai = linearToInt(lda, "lda"), ldbi = linearToInt(ldb, "ldb"),
      ldci = linearToInt(ldc, "ldc");
  if (batch == 1) {
    REMAT_CHECK_CUBLAS(cublasSgemm(ctx.cublas, opA, opB, mi, ni, ki, &one, a,
                                   ldai, b, ldbi, &zero, c, ldci));
    return;
  }
  REMAT_CHECK_CUBLAS(cublasSgemmStridedBatched(
      ctx.cublas, opA, opB, mi, ni, ki, &one, a, ldai, (long long)strideA, b,
      ldbi, (long long)strideB, &zero, c, ldci, (long long)strideC,
      linearToInt(batch, "batch")));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// y [rows, cols] += bias [cols] on every row.
__global__ void linearAddBiasKernel(float *y, const float *bias, int64_t cols,
                                    int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] += bias[i % cols];
}

/// db [cols] = dy [rows, cols] summed over rows, in double. Block (32, 8): a
/// tile of 32 columns, 8 row lanes summed in shared memory.
__global__ void linearColumnSumKernel(const float *dy, float *db, int64_t rows,
                                      int64_t cols) {
  __shared__ double partial[8][32];
  for (int64_t tile = blockIdx.x; tile * 32 < cols; tile += gridDim.x) {
    int64_t j = tile * 32 + threadIdx.x;
    double sum = 0.0;
    if (j < cols)
      for (int64_t row = threadIdx.y; row < rows; row += blockDim.y)
        sum += dy[row * cols + j];
    __syncthreads(); // the previous tile's sums have been read
    partial[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
      for (int lane = 1; lane < 8; ++lane)
        sum += partial[lane][threadIdx.x];
      db[j] = float(sum);
    }
  }
}

/// y [count, dim] = w [vocab, dim] rows at indices; an index out of range
/// (an error in ATen) gives a row of NaN.
__global__ void linearEmbeddingForwardKernel(const float *w,
                                             const int64_t *indices, float *y,
                                             int64_t vocab, int64_t dim,
                                             int64_t total) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t row = i / dim, col = i - row * dim;
    int64_t index = indices[row];
    y[i] = index >= 0 && index < vocab ? w[index * dim + col] : NAN;
  }
}

/// dw [vocab, dim] += dy rows at indices, except at paddingIdx (and at
/// indices out of range).
__global__ void linearEmbeddingBackwardKernel(const float *dy,
                                              const int64_t *indices,
                                              float *dw, int64_t vocab,
                                              int64_t dim, int64_t paddingIdx,
                                              int64_t total) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t row = i / dim, col = i - row * dim;
    int64_t index = indices[row];
    if (index != paddingIdx && index >= 0 && index < vocab)
      atomicAdd(dw + index * dim + col, dy[i]);
  }
}

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

inline void linearForward(Context &ctx, const float *x, const float *w,
                          const float *bias, float *y, int64_t rows,
                          int64_t in, int64_t out) {
  // y^T [out, rows] = (w^T)^T [out, in] x^T [in, rows].
  linearGemm(ctx, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, w, in, 0, x, in, 0,
             y, out, 0, 1);
  int64_t count = rows * out;
  if (bias && count > 0) {
    linearAddBiasKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(y, bias, out,
                                                                  count);
    REMAT_CHECK_LAUNCH();
  }
}

inline void linearBackwardInput(Context &ctx, const float *dy, const float *w,
                                float *dx, int64_t rows, int64_t in,
                                int64_t out) {
  // dx^T [in, rows] = w^T [in, out] dy^T [out, rows].
  linearGemm(ctx, CUBLAS_OP_N, CUBLAS_OP_N, in, rows, out, w, in, 0, dy, out,
             0, dx, in, 0, 1);
}

inline void linearBackwardWeight(Context &ctx, const float *dy,
                                 const float *x, float *dw, int64_t rows,
                                 int64_t in, int64_t out) {
  // dw^T [in, out] = x^T [in, rows] (dy^T)^T [rows, out].
  linearGemm(ctx, CUBLAS_OP_N, CUBLAS_OP_T, in, out, rows, x, in, 0, dy, out,
             0, dw, in, 0, 1);
}

inline void linearBackwardBias(Context &ctx, const float *dy, float *db,
                               int64_t rows, int64_t out) {
  if (out == 0)
    return;
  int64_t tiles = (out + 31) / 32;
  int blocks = int(tiles > 65535 * 8 ? 65535 * 8 : tiles);
  linearColumnSumKernel<<<blocks, dim3(32, 8), 0, ctx.stream>>>(dy, db, rows,
                                                                out);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

inline void matmul(Context &ctx, const float *a, const float *b, float *c,
                   int64_t batch, int64_t m, int64_t k, int64_t n) {
  // c^T [n, m] = b^T [n, k] a^T [k, m].
  linearGemm(ctx, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, b, n, k * n, a, k, m * k,
             c, n, m * n, batch);
}

inline void matmulBackwardLhs(Context &ctx, const float *dc, const float *b,
                              float *da, int64_t batch, int64_t m, int64_t k,
                              int64_t n) {
  // da^T [k, m] = (b^T)^T [k, n] dc^T [n, m].
  linearGemm(ctx, CUBLAS_OP_T, CUBLAS_OP_N, k, m, n, b, n, k * n, dc, n,
             m * n, da, k, m * k, batch);
}

inline void matmulBackwardRhs(Context &ctx, const float *dc, const float *a,
                              float *db, int64_t batch, int64_t m, int64_t k,
                              int64_t n) {
  // db^T [n, k] = dc^T [n, m] (a^T)^T [m, k].
  linearGemm(ctx, CUBLAS_OP_N, CUBLAS_OP_T, n, k, m, dc, n, m * n, a, k,
             m * k, db, n, k * n, batch);
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

inline void embeddingForward(Context &ctx, const float *w,
                             const int64_t *indices, float *y, int64_t count,
                             int64_t vocab, int64_t dim, int64_t paddingIdx) {
  (void)paddingIdx; // the forward reads padding rows as any other
  int64_t total = count * dim;
  if (total == 0)
    return;
  linearEmbeddingForwardKernel<<<blocksFor(total), 256, 0, ctx.stream>>>(
      w, indices, y, vocab, dim, total);
  REMAT_CHECK_LAUNCH();
}

inline void embeddingBackward(Context &ctx, const float *dy,
                              const int64_t *indices, float *dw,
                              int64_t count, int64_t vocab, int64_t dim,
                              int64_t paddingIdx) {
  if (vocab * dim == 0)
    return;
  REMAT_CHECK_CUDA(cudaMemsetAsync(dw, 0, size_t(vocab * dim) * sizeof(float),
                                   ctx.stream));
  int64_t total = count * dim;
  if (total == 0)
    return;
  linearEmbeddingBackwardKernel<<<blocksFor(total), 256, 0, ctx.stream>>>(
      dy, indices, dw, vocab, dim, paddingIdx, total);
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
