//===- MovementOps.cuh - permute, slice and sum kernels -------------------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. Data movement and
// reductions on dense row-major tensors:
//
// - permute: one thread per result element, reading x at the offset its
//   coordinates give through x's permuted strides.
// - slice and its gradient: the middle dim of an [outer, size, inner] view;
//   the gradient writes every dx element (dy where the slice read, else 0).
// - sumDims: the kept dims index the result, the reduced dims are summed in
//   double. Many results (or short sums): one thread per result; few long
//   sums: one block per result.
//
// The host arrays `perm` and `reduce` are read on the host only.
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

/// Sizes and matching strides (into x) of up to kMaxRank dims, to walk a
/// flat index of the dims' row-major space to an offset into x.
struct MovementWalk {
  int rank;
  int64_t size[kMaxRank];
  int64_t stride[kMaxRank];
};

/// The offset into x of flat index `i` of the walk's space.
__device__ inline int64_t movementOffset(const MovementWalk &walk, int64_t i) {
  int64_t offset = 0;
  for (int d = walk.rank - 1; d >= 0; --d) {
    int64_t coordinate = i % walk.size[d];
    i /= walk.size[d];
    offset += coordinate * walk.stride[d];
  }
  return offset;
}

/// x's row-major strides.
inline void movementStrides(const Dims &dims, int64_t *strides) {
  int64_t stride = 1;
  for (int d = dims.rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims.size[d];
  }
}

inline void movementCheckRank(int rank) {
  if (rank < 0 || rank > kMaxRank) {
    failStep(formatText("%s: rank %d is above the runtime's %d", currentOp,
                        rank, kMaxRank));
  }
}

//===----------------------------------------------------------------------===//
// Permute
//===----------------------------------------------------------------------===//

__global__ void movementPermuteKernel(const float *x, float *y,
                                      MovementWalk walk, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = x[movementOffset(walk, i)];
}

inline void permute(Context &ctx, const float *x, float *y, const Dims &xDims,
                    const int *perm) {
  movementCheckRank(xDims.rank);
  int64_t xStrides[kMaxRank];
  movementStrides(xDims, xStrides);
  // y's dim i has x's dim perm[i] size, and steps x by its stride.
  MovementWalk walk;
  walk.rank = xDims.rank;
  int64_t count = 1;
  for (int i = 0; i < xDims.rank; ++i) {
    walk.size[i] = xDims.size[perm[i]];
    walk.stride[i] = xStrides[perm[i]];
    count *= walk.size[i];
  }
  if (count == 0)
    return;
  movementPermuteKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(x, y, walk,
                                                                  count);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

/// T: float, or int64_t for the integer slices of accumulated steps (token
/// ids and labels per micro-batch).
template <typename T>
__global__ void movementSliceForwardKernel(const T *x, T *y,
                                           int64_t sizeIn, int64_t inner,
                                           int64_t start, int64_t step,
                                           int64_t sizeOut, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t in = i % inner, rest = i / inner;
    int64_t j = rest % sizeOut, o = rest / sizeOut;
    y[i] = x[(o * sizeIn + start + j * step) * inner + in];
  }
}

/// One thread per dx element: dy's element where the slice read it, else 0.
__global__ void movementSliceBackwardKernel(const float *dy, float *dx,
                                            int64_t sizeIn, int64_t inner,
                                            int64_t start, int64_t step,
                                            int64_t sizeOut, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t in = i % inner, rest = i / inner;
    int64_t k = rest % sizeIn - start, o = rest / sizeIn;
    float value = 0.0f;
    if (k >= 0 && k % step == 0 && k / step < sizeOut)
      value = dy[(o * sizeOut + k / step) * inner + in];
    dx[i] = value;
  }
}

template <typename T>
inline void sliceForward(Context &ctx, const T *x, T *y,
                         int64_t outer, int64_t sizeIn, int64_t inner,
                         int64_t start, int64_t step, int64_t sizeOut) {
  int64_t count = outer * sizeOut * inner;
  if (count == 0)
    return;
  // Through a pointer to the instance, so that the launch names no template.
  auto *kernel = &movementSliceForwardKernel<T>;
  kernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      x, y, sizeIn, inner, start, step, sizeOut, count);
  REMAT_CHECK_LAUNCH();
}

inline void sliceBackward(Context &ctx, const float *dy, float *dx,
                          int64_t outer, int64_t sizeIn, int64_t inner,
                          int64_t start, int64_t step, int64_t sizeOut) {
  int64_t count = outer * sizeIn * inner;
  if (count == 0)
    return;
  movementSliceBackwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      dy, dx, sizeIn, inner, start, step, sizeOut, count);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Sum over dims
//===----------------------------------------------------------------------===//

/// One thread per result element: its kept-dims offset, plus every offset of
/// the reduced space.
__global__ void movementSumThreadKernel(const float *x, float *y,
                                        MovementWalk kept, MovementWalk reduced,
                                        int64_t count, int64_t reduceCount,
                                        double scale) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const float *base = x + movementOffset(kept, i);
    double sum = 0.0;
    for (int64_t r = 0; r < reduceCount; ++r)
      sum += base[movementOffset(reduced, r)];
    y[i] = float(sum * scale);
  }
}

/// One block per result element, the reduced space split over its threads.
__global__ void movementSumBlockKernel(const float *x, float *y,
                                       MovementWalk kept, MovementWalk reduced,
                                       int64_t count, int64_t reduceCount,
                                       double scale) {
  __shared__ double partial[32];
  for (int64_t i = blockIdx.x; i < count; i += gridDim.x) {
    const float *base = x + movementOffset(kept, i);
    double sum = 0.0;
    for (int64_t r = threadIdx.x; r < reduceCount; r += blockDim.x)
      sum += base[movementOffset(reduced, r)];
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    __syncthreads(); // the previous result's partial sums have been read
    if (threadIdx.x % 32 == 0)
      partial[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
      sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0;
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
      if (threadIdx.x == 0)
        y[i] = float(sum * scale);
    }
  }
}

inline void sumDims(Context &ctx, const float *x, float *y, const Dims &xDims,
                    const bool *reduce, double scale) {
  movementCheckRank(xDims.rank);
  int64_t xStrides[kMaxRank];
  movementStrides(xDims, xStrides);
  MovementWalk kept, reduced;
  kept.rank = reduced.rank = 0;
  int64_t count = 1, reduceCount = 1;
  for (int d = 0; d < xDims.rank; ++d) {
    MovementWalk &walk = reduce[d] ? reduced : kept;
    walk.size[walk.rank] = xDims.size[d];
    walk.stride[walk.rank] = xStrides[d];
    ++walk.rank;
    (reduce[d] ? reduceCount : count) *= xDims.size[d];
  }
  if (count == 0)
    return;
  if (reduceCount < 32 || count >= 65536) {
    movementSumThreadKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
        x, y, kept, reduced, count, reduceCount, scale);
  } else {
    int blocks = int(count > 65535 * 8 ? 65535 * 8 : count);
    movementSumBlockKernel<<<blocks, 256, 0, ctx.stream>>>(
        x, y, kept, reduced, count, reduceCount, scale);
  }
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
