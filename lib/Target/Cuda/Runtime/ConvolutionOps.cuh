//===- ConvolutionOps.cuh - convolutions and their gradients via cuDNN ----===//
//
// Part of the runtime pasted after RematCudaOps.cuh. conv2d and conv3d, their
// input and weight gradients run through cuDNN's legacy convolution API with
// N-d descriptors on NCHW and NCDHW float tensors (cross-correlation, as
// ATen's); the bias gradient is a kernel.
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

/// dims = [first, second, spatial...].
inline void setDims(int *dims, int first, int second, const int *spatial,
                    int spatialDims) {
  dims[0] = first;
  dims[1] = second;
  for (int d = 0; d < spatialDims; ++d)
    dims[2 + d] = spatial[d];
}

/// Sets `desc` to a dense row-major float tensor of `rank` dims.
inline void setPackedTensor(cudnnTensorDescriptor_t desc, int rank,
                            const int *dims) {
  int strides[5];
  strides[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dims[d + 1];
  REMAT_CHECK_CUDNN(
      cudnnSetTensorNdDescriptor(desc, CUDNN_DATA_FLOAT, rank, dims, strides));
}

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
    int rank = 2 + shape.spatialDims;
    int xDims[5], yDims[5], wDims[5];
    setDims(xDims, shape.n, shape.c, shape.in, shape.spatialDims);
    setDims(yDims, shape.n, shape.k, shape.out, shape.spatialDims);
    setDims(wDims, shape.k, shape.c / shape.groups, shape.kernel,
            shape.spatialDims);
    setPackedTensor(x, rank, xDims);
    setPackedTensor(y, rank, yDims);
    REMAT_CHECK_CUDNN(cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT,
                                                 CUDNN_TENSOR_NCHW, rank,
                                                 wDims));
    REMAT_CHECK_CUDNN(cudnnSetConvolutionNdDescriptor(
        conv, shape.spatialDims, shape.padding, shape.stride, shape.dilation,
        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    REMAT_CHECK_CUDNN(cudnnSetConvolutionGroupCount(conv, shape.groups));
    REMAT_CHECK_CUDNN(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));

    // The output size cuDNN derives must be the one the plan gives (for the
    // input gradient too: x's extra rows past the last window are allowed).
    int derived[5] = {};
    REMAT_CHECK_CUDNN(
        cudnnGetConvolutionNdForwardOutputDim(conv, x, w, rank, derived));
    for (int d = 0; d < rank; ++d) {
      if (derived[d] == yDims[d])
        continue;
      failStep(formatText("%s: convolution output dimension %d is %d, cuDNN "
                          "derives %d",
                          currentOp, d, yDims[d], derived[d]));
    }
  }
  // Destroying a descriptor only frees host memory; a destructor must not
  // throw (a step built as a library reports failures by exceptions).
  ~ConvDescriptors() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
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
      failStep(formatText("%s: cuDNN convolution %s (algorithm %d) failed: %s",
                          currentOp, direction, int(candidates[i]),
                          cudnnGetErrorString(status)));
    }
    lastStatus = status;
  }
  failStep(
      formatText("%s: no cuDNN convolution %s algorithm runs within the "
                 "workspace of %zu bytes (%d tried, the last: %s; the "
                 "no-workspace algorithm %d: ",
                 currentOp, direction, workspaceBytes, count,
                 count ? cudnnGetErrorString(lastStatus) : "none",
                 int(fallback)) +
      (fallbackQuery == CUDNN_STATUS_SUCCESS
           ? formatText("needs %zu bytes)", fallbackBytes)
           : formatText("%s)", cudnnGetErrorString(fallbackQuery))));
}

inline void convForward(Context &ctx, const float *x, const float *w,
                        const float *bias, float *y, const ConvShape &shape,
                        void *workspace, size_t workspaceBytes) {
  if (shape.outputCount() == 0)
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
    // y += bias broadcast over [1, k, 1...].
    cudnnTensorDescriptor_t biasDesc = nullptr;
    REMAT_CHECK_CUDNN(cudnnCreateTensorDescriptor(&biasDesc));
    const int ones[3] = {1, 1, 1};
    int biasDims[5];
    setDims(biasDims, 1, shape.k, ones, shape.spatialDims);
    setPackedTensor(biasDesc, 2 + shape.spatialDims, biasDims);
    REMAT_CHECK_CUDNN(
        cudnnAddTensor(ctx.cudnn, &one, biasDesc, bias, &one, desc.y, y));
    REMAT_CHECK_CUDNN(cudnnDestroyTensorDescriptor(biasDesc));
  }
}

inline void convBackwardInput(Context &ctx, const float *dy, const float *w,
                              float *dx, const ConvShape &shape,
                              void *workspace, size_t workspaceBytes) {
  int64_t dxCount = shape.inputCount();
  if (dxCount == 0)
    return;
  if (shape.outputCount() == 0) {
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

inline void convBackwardWeight(Context &ctx, const float *dy, const float *x,
                               float *dw, const ConvShape &shape,
                               void *workspace, size_t workspaceBytes) {
  int64_t dwCount = shape.weightCount();
  if (dwCount == 0)
    return;
  if (shape.outputCount() == 0) {
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
/// sum of dy[:, ch, ...], accumulated in double.
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

inline void convBackwardBias(Context &ctx, const float *dy, float *db, int n,
                             int k, int64_t plane) {
  if (k == 0)
    return;
  int blocks = k < 65535 * 8 ? k : 65535 * 8;
  convBackwardBiasKernel<<<blocks, 256, 0, ctx.stream>>>(dy, db, n, k, plane);
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
