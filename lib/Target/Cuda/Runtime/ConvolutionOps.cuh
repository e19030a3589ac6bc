//===- ConvolutionOps.cuh - conv2d and its gradients through cuDNN --------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. conv2d, its input and
// weight gradients run through cuDNN's legacy convolution API on NCHW float
// tensors (cross-correlation, as ATen's); the bias gradient is a kernel.
//
// Math: the convolution descriptor asks for CUDNN_FMA_MATH, so that no
// algorithm uses TF32 tensor cores (results stay comparable with remat-run's
// float CPU kernels).
//
// Algorithms: cuDNN's heuristics (cudnnGetConvolution*Algorithm_v7; never the
// Find functions, which allocate) rank the algorithms; the first whose
// workspace fits the bytes the memory plan gave the op is run. Where none
// fits, the algorithm that needs no workspace (implicit GEMM forward, ALGO_0
// backward) is run if it fits; otherwise the op fails, naming itself.
// Descriptors are made and destroyed on every call (simple beats cached).
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

/// The cuDNN descriptors of one convolution (x, w, y and the convolution
/// itself), destroyed with the object.
struct ConvDescriptors {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

  explicit ConvDescriptors(const ConvShape &shape) {
    REMAT_CHECK_CUDNN(cudnnCreateTensorDescriptor(&x));
    REMAT_CHECK_CUDNN(cudnnCreateTensorDescriptor(&y));
    REMAT_CHECK_CUDNN(cudnnCreateFilterDescriptor(&w));
    REMAT_CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&conv));
    REMAT_CHECK_CUDNN(cudnnSetTensor4dDescriptor(
        x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, shape.n, shape.c, shape.h,
        shape.w));
    REMAT_CHECK_CUDNN(cudnnSetTensor4dDescriptor(
        y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, shape.n, shape.k, shape.p,
        shape.q));
    REMAT_CHECK_CUDNN(cudnnSetFilter4dDescriptor(
        w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, shape.k,
        shape.c / shape.groups, shape.r, shape.s));
    REMAT_CHECK_CUDNN(cudnnSetConvolution2dDescriptor(
        conv, shape.padH, shape.padW, shape.strideH, shape.strideW,
        shape.dilationH, shape.dilationW, CUDNN_CROSS_CORRELATION,
        CUDNN_DATA_FLOAT));
    REMAT_CHECK_CUDNN(cudnnSetConvolutionGroupCount(conv, shape.groups));
    REMAT_CHECK_CUDNN(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));

    // The output size cuDNN derives must be the one the plan gives (for the
    // input gradient too: x's extra rows past the last window are allowed).
    int n = 0, k = 0, p = 0, q = 0;
    REMAT_CHECK_CUDNN(
        cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &k, &p, &q));
    if (n != shape.n || k != shape.k || p != shape.p || q != shape.q) {
      std::fprintf(stderr,
                   "error: %s: conv2d output [%d, %d, %d, %d] does not match "
                   "cuDNN's [%d, %d, %d, %d]\n",
                   currentOp, shape.n, shape.k, shape.p, shape.q, n, k, p, q);
      std::exit(1);
    }
  }
  ~ConvDescriptors() {
    REMAT_CHECK_CUDNN(cudnnDestroyConvolutionDescriptor(conv));
    REMAT_CHECK_CUDNN(cudnnDestroyFilterDescriptor(w));
    REMAT_CHECK_CUDNN(cudnnDestroyTensorDescriptor(y));
    REMAT_CHECK_CUDNN(cudnnDestroyTensorDescriptor(x));
  }
  ConvDescriptors(const ConvDescriptors &) = delete;
  ConvDescriptors &operator=(const ConvDescriptors &) = delete;
};

/// Binds the cuDNN handle to the context's stream.
inline void convUseStream(Context &ctx) {
  cudaStream_t stream = nullptr;
  REMAT_CHECK_CUDNN(cudnnGetStream(ctx.cudnn, &stream));
  if (stream != ctx.stream)
    REMAT_CHECK_CUDNN(cudnnSetStream(ctx.cudnn, ctx.stream));
}

/// Runs one convolution direction with the first algorithm that fits the
/// workspace: `perf[0, returned)` are cuDNN's ranked heuristics, `fallback`
/// the algorithm needing no workspace, `workspaceSize(algo, &bytes)` queries
/// an algorithm's workspace and `run(algo)` runs it. An algorithm that cuDNN
/// reports unsupported when run is skipped for the next one.
template <typename Algo, typename Perf, typename SizeFn, typename RunFn>
inline void convRunFittingAlgorithm(const char *direction, const Perf *perf,
                                    int returned, Algo fallback,
                                    size_t workspaceBytes,
                                    SizeFn workspaceSize, RunFn run) {
  constexpr int kMaxCandidates = 16;
  Algo candidates[kMaxCandidates + 1];
  int count = 0;
  auto fits = [&](Algo algo, size_t *bytes) {
    *bytes = 0;
    return workspaceSize(algo, bytes) == CUDNN_STATUS_SUCCESS &&
           *bytes <= workspaceBytes;
  };
  auto listed = [&](Algo algo) {
    for (int i = 0; i < count; ++i)
      if (candidates[i] == algo)
        return true;
    return false;
  };
  for (int i = 0; i < returned && count < kMaxCandidates; ++i) {
    size_t bytes = 0;
    // Tensor-op math types would mean TF32: never ask for them.
    if (perf[i].status != CUDNN_STATUS_SUCCESS ||
        perf[i].memory > workspaceBytes ||
        perf[i].mathType == CUDNN_TENSOR_OP_MATH ||
        perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ||
        listed(perf[i].algo) || !fits(perf[i].algo, &bytes))
      continue;
    candidates[count++] = perf[i].algo;
  }
  size_t fallbackBytes = 0;
  cudnnStatus_t fallbackQuery = workspaceSize(fallback, &fallbackBytes);
  if (!listed(fallback) && fallbackQuery == CUDNN_STATUS_SUCCESS &&
      fallbackBytes <= workspaceBytes)
    candidates[count++] = fallback;

  // cuDNN 9 reports "not supported" as a category of codes (3000-3999).
  cudnnStatus_t lastStatus = CUDNN_STATUS_SUCCESS;
  for (int i = 0; i < count; ++i) {
    cudnnStatus_t status = run(candidates[i]);
    if (status == CUDNN_STATUS_SUCCESS)
      return;
    if (CUDNN_STATUS_CATEGORY(status) != CUDNN_STATUS_NOT_SUPPORTED) {
      std::fprintf(stderr,
                   "error: %s: cuDNN conv2d %s (algorithm %d) failed: %s\n",
                   currentOp, direction, int(candidates[i]),
                   cudnnGetErrorString(status));
      std::exit(1);
    }
    lastStatus = status;
  }
  std::fprintf(stderr,
               "error: %s: no cuDNN conv2d %s algorithm runs within the "
               "workspace of %zu bytes (%d tried, the last: %s; the "
               "no-workspace algorithm %d: ",
               currentOp, direction, workspaceBytes, count,
               count ? cudnnGetErrorString(lastStatus) : "none",
               int(fallback));
  if (fallbackQuery == CUDNN_STATUS_SUCCESS)
    std::fprintf(stderr, "needs %zu bytes)\n", fallbackBytes);
  else
    std::fprintf(stderr, "%s)\n", cudnnGetErrorString(fallbackQuery));
  std::exit(1);
}

inline void conv2dForward(Context &ctx, const float *x, const float *w,
                          const float *bias, float *y, const ConvShape &shape,
                          void *workspace, size_t workspaceBytes) {
  if (int64_t(shape.n) * shape.k * shape.p * shape.q == 0)
    return;
  convUseStream(ctx);
  ConvDescriptors desc(shape);

  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  REMAT_CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(
      ctx.cudnn, desc.x, desc.w, desc.conv, desc.y,
      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));

  const float one = 1.0f, zero = 0.0f;
  convRunFittingAlgorithm(
      "forward", perf, returned, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
      workspaceBytes,
      [&](cudnnConvolutionFwdAlgo_t algo, size_t *bytes) {
        return cudnnGetConvolutionForwardWorkspaceSize(
            ctx.cudnn, desc.x, desc.w, desc.conv, desc.y, algo, bytes);
      },
      [&](cudnnConvolutionFwdAlgo_t algo) {
        return cudnnConvolutionForward(ctx.cudnn, &one, desc.x, x, desc.w, w,
                                       desc.conv, algo, workspace,
                                       workspaceBytes, &zero, desc.y, y);
      });

  if (bias) {
    // y += bias broadcast over [1, k, 1, 1].
    cudnnTensorDescriptor_t biasDesc = nullptr;
    REMAT_CHECK_CUDNN(cudnnCreateTensorDescriptor(&biasDesc));
    REMAT_CHECK_CUDNN(cudnnSetTensor4dDescriptor(
        biasDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, shape.k, 1, 1));
    REMAT_CHECK_CUDNN(
        cudnnAddTensor(ctx.cudnn, &one, biasDesc, bias, &one, desc.y, y));
    REMAT_CHECK_CUDNN(cudnnDestroyTensorDescriptor(biasDesc));
  }
}

inline void conv2dBackwardInput(Context &ctx, const float *dy, const float *w,
                                float *dx, const ConvShape &shape,
                                void *workspace, size_t workspaceBytes) {
  int64_t dxCount = int64_t(shape.n) * shape.c * shape.h * shape.w;
  if (dxCount == 0)
    return;
  if (int64_t(shape.n) * shape.k * shape.p * shape.q == 0) {
    REMAT_CHECK_CUDA(
        cudaMemsetAsync(dx, 0, size_t(dxCount) * sizeof(float), ctx.stream));
    return;
  }
  convUseStream(ctx);
  ConvDescriptors desc(shape);

  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int returned = 0;
  REMAT_CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      ctx.cudnn, desc.w, desc.y, desc.conv, desc.x,
      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, perf));

  const float one = 1.0f, zero = 0.0f;
  convRunFittingAlgorithm(
      "input gradient", perf, returned, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
      workspaceBytes,
      [&](cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            ctx.cudnn, desc.w, desc.y, desc.conv, desc.x, algo, bytes);
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo) {
        return cudnnConvolutionBackwardData(
            ctx.cudnn, &one, desc.w, w, desc.y, dy, desc.conv, algo,
            workspace, workspaceBytes, &zero, desc.x, dx);
      });
}

inline void conv2dBackwardWeight(Context &ctx, const float *dy,
                                 const float *x, float *dw,
                                 const ConvShape &shape, void *workspace,
                                 size_t workspaceBytes) {
  int64_t dwCount = int64_t(shape.k) * (shape.c / shape.groups) * shape.r *
                    shape.s;
  if (dwCount == 0)
    return;
  if (int64_t(shape.n) * shape.p * shape.q == 0) {
    REMAT_CHECK_CUDA(
        cudaMemsetAsync(dw, 0, size_t(dwCount) * sizeof(float), ctx.stream));
    return;
  }
  convUseStream(ctx);
  ConvDescriptors desc(shape);

  cudnnConvolutionBwdFilterAlgoPerf_t
      perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int returned = 0;
  REMAT_CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      ctx.cudnn, desc.x, desc.y, desc.conv, desc.w,
      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned, perf));

  const float one = 1.0f, zero = 0.0f;
  convRunFittingAlgorithm(
      "weight gradient", perf, returned, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
      workspaceBytes,
      [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t *bytes) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(
            ctx.cudnn, desc.x, desc.y, desc.conv, desc.w, algo, bytes);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo) {
        return cudnnConvolutionBackwardFilter(
            ctx.cudnn, &one, desc.x, x, desc.y, dy, desc.conv, algo,
            workspace, workspaceBytes, &zero, desc.w, dw);
      });
}

/// One block per output channel (grid-stride over channels): db[ch] = the
/// sum of dy[:, ch, :, :], accumulated in double.
__global__ void convBackwardBiasKernel(const float *dy, float *db, int64_t n,
                                       int64_t k, int64_t plane) {
  __shared__ double partial[32];
  int64_t count = n * plane;
  for (int64_t ch = blockIdx.x; ch < k; ch += gridDim.x) {
    double sum = 0.0;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      int64_t b = i / plane, s = i - b * plane;
      sum += dy[(b * k + ch) * plane + s];
    }
    // Block reduction: warps, then the first warp over the warp sums.
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    __syncthreads(); // `partial` is free again (previous channel)
    if (threadIdx.x % 32 == 0)
      partial[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
      sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0;
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
      if (threadIdx.x == 0)
        db[ch] = float(sum);
    }
  }
}

inline void conv2dBackwardBias(Context &ctx, const float *dy, float *db,
                               int n, int k, int p, int q) {
  if (k == 0)
    return;
  int blocks = k < 65535 * 8 ? k : 65535 * 8;
  convBackwardBiasKernel<<<blocks, 256, 0, ctx.stream>>>(
      dy, db, n, k, int64_t(p) * q);
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
