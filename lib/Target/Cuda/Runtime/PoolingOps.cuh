//===- PoolingOps.cuh - pooling and bilinear resampling kernels -----------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. Max and average pooling
// on NCHW and NCDHW float tensors (a 2-D pooling is a 3-D one of depth 1),
// adaptive average pooling and bilinear upsampling on NCHW ones, with their
// gradients, following ATen's CPU kernels window for window:
//
// - max pooling: padding reads as -inf; the first maximum in row-major window
//   order wins, a NaN wins over any number (as ATen's `val > max || isnan`).
// - average pooling: a window ends at most `pad` past the input (ceil mode's last
//   window is cut there); the divisor is divisor_override if given, else the
//   window size counting padding (count_include_pad) or not; a window with
//   no input element gives 0.
// - adaptive_avg_pool2d: window [floor(i h / p), ceil((i + 1) h / p)).
// - upsample_bilinear2d without scale factors: scale (in - 1) / (out - 1)
//   with align_corners, else in / out with the source index clamped at 0.
// - upsample_nearest2d: source min(floor(i * in / out), in - 1) (ATen's
//   `nearest` mode; equal sizes copy, a doubled size halves).
//
// ceil_mode is folded into the output sizes by the caller. Forward
// kernels compute one output element per thread; gradients that scatter
// zero their output first and add with atomicAdd.
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

//===----------------------------------------------------------------------===//
// Max pooling
//===----------------------------------------------------------------------===//

/// Output element i's coordinates: its (n, c) plane and its position in
/// each spatial dimension (depth, height, width).
struct PoolPosition {
  int64_t plane;
  int64_t at[3];
};

__device__ inline PoolPosition poolPosition(const PoolShape &shape,
                                            int64_t i) {
  PoolPosition position;
  position.at[2] = i % shape.out[2];
  i /= shape.out[2];
  position.at[1] = i % shape.out[1];
  i /= shape.out[1];
  position.at[0] = i % shape.out[0];
  position.plane = i / shape.out[0];
  return position;
}

__device__ inline int64_t poolPlaneIn(const PoolShape &shape) {
  return int64_t(shape.in[0]) * shape.in[1] * shape.in[2];
}

__global__ void poolMaxForwardKernel(const float *x, float *y,
                                     int64_t *indices, PoolShape shape,
                                     int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    PoolPosition position = poolPosition(shape, i);
    // Per dimension: the window's first index and its end, then the first
    // index inside the input (ATen steps over the padding by dilation).
    int64_t first[3], end[3];
    for (int d = 0; d < 3; ++d) {
      first[d] = position.at[d] * shape.stride[d] - shape.padding[d];
      end[d] = first[d] + int64_t(shape.kernel[d] - 1) * shape.dilation[d] + 1;
      end[d] = end[d] < shape.in[d] ? end[d] : shape.in[d];
      while (first[d] < 0)
        first[d] += shape.dilation[d];
    }
    const int64_t h = shape.in[1], w = shape.in[2];
    const float *in = x + position.plane * poolPlaneIn(shape);
    int64_t maxIndex = (first[0] * h + first[1]) * w + first[2];
    float maxValue = -INFINITY;
    for (int64_t di = first[0]; di < end[0]; di += shape.dilation[0])
      for (int64_t hi = first[1]; hi < end[1]; hi += shape.dilation[1])
        for (int64_t wi = first[2]; wi < end[2]; wi += shape.dilation[2]) {
          int64_t index = (di * h + hi) * w + wi;
          float value = in[index];
          if (value > maxValue || isnan(value)) {
            maxValue = value;
            maxIndex = index;
          }
        }
    y[i] = maxValue;
    indices[i] = maxIndex;
  }
}

__global__ void poolMaxBackwardKernel(const float *dy, const int64_t *indices,
                                      float *dx, int64_t planeIn,
                                      int64_t planeOut, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t plane = i / planeOut;
    int64_t index = indices[i];
    if (index >= 0 && index < planeIn)
      atomicAdd(dx + plane * planeIn + index, dy[i]);
  }
}

inline void maxPoolForward(Context &ctx, const float *x, float *y,
                           int64_t *indices, const PoolShape &shape) {
  int64_t count = shape.outputCount();
  if (count == 0)
    return;
  poolMaxForwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      x, y, indices, shape, count);
  REMAT_CHECK_LAUNCH();
}

inline void maxPoolBackward(Context &ctx, const float *dy,
                            const int64_t *indices, float *dx,
                            const PoolShape &shape) {
  int64_t dxCount = shape.inputCount();
  if (dxCount == 0)
    return;
  REMAT_CHECK_CUDA(
      cudaMemsetAsync(dx, 0, size_t(dxCount) * sizeof(float), ctx.stream));
  int64_t count = shape.outputCount();
  if (count == 0)
    return;
  int64_t planeIn = dxCount / (int64_t(shape.n) * shape.c);
  int64_t planeOut = count / (int64_t(shape.n) * shape.c);
  poolMaxBackwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      dy, indices, dx, planeIn, planeOut, count);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Average pooling
//===----------------------------------------------------------------------===//

/// The input window of an output position clipped to the input, per
/// dimension [first, end), and its divisor (ATen's rule; the divisor is 0
/// only for an empty window without padding counted).
struct PoolAvgWindow {
  int64_t first[3], end[3];
  int64_t divisor;
  __device__ bool empty() const {
    return first[0] >= end[0] || first[1] >= end[1] || first[2] >= end[2];
  }
};

__device__ inline PoolAvgWindow poolAvgWindow(const PoolShape &shape,
                                              const PoolPosition &position) {
  PoolAvgWindow win;
  int64_t poolSize = 1, inside = 1;
  for (int d = 0; d < 3; ++d) {
    int64_t first = position.at[d] * shape.stride[d] - shape.padding[d];
    int64_t end = first + shape.kernel[d];
    int64_t paddedEnd = int64_t(shape.in[d]) + shape.padding[d];
    end = end < paddedEnd ? end : paddedEnd;
    poolSize *= end - first;
    win.first[d] = first > 0 ? first : 0;
    win.end[d] = end < shape.in[d] ? end : shape.in[d];
    inside *= win.end[d] - win.first[d];
  }
  if (shape.divisorOverride != 0)
    win.divisor = shape.divisorOverride;
  else if (shape.countIncludePad)
    win.divisor = poolSize;
  else
    win.divisor = inside;
  return win;
}

__global__ void poolAvgForwardKernel(const float *x, float *y,
                                     PoolShape shape, int64_t count) {
  const int64_t h = shape.in[1], w = shape.in[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    PoolPosition position = poolPosition(shape, i);
    PoolAvgWindow win = poolAvgWindow(shape, position);
    if (win.empty()) {
      y[i] = 0.0f;
      continue;
    }
    const float *in = x + position.plane * poolPlaneIn(shape);
    float sum = 0.0f;
    for (int64_t di = win.first[0]; di < win.end[0]; ++di)
      for (int64_t hi = win.first[1]; hi < win.end[1]; ++hi)
        for (int64_t wi = win.first[2]; wi < win.end[2]; ++wi)
          sum += in[(di * h + hi) * w + wi];
    y[i] = sum / float(win.divisor);
  }
}

__global__ void poolAvgBackwardKernel(const float *dy, float *dx,
                                      PoolShape shape, int64_t count) {
  const int64_t h = shape.in[1], w = shape.in[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    PoolPosition position = poolPosition(shape, i);
    PoolAvgWindow win = poolAvgWindow(shape, position);
    if (win.empty())
      continue;
    float delta = dy[i] / float(win.divisor);
    float *out = dx + position.plane * poolPlaneIn(shape);
    for (int64_t di = win.first[0]; di < win.end[0]; ++di)
      for (int64_t hi = win.first[1]; hi < win.end[1]; ++hi)
        for (int64_t wi = win.first[2]; wi < win.end[2]; ++wi)
          atomicAdd(out + (di * h + hi) * w + wi, delta);
  }
}

inline void avgPoolForward(Context &ctx, const float *x, float *y,
                           const PoolShape &shape) {
  int64_t count = shape.outputCount();
  if (count == 0)
    return;
  poolAvgForwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(x, y, shape,
                                                                 count);
  REMAT_CHECK_LAUNCH();
}

inline void avgPoolBackward(Context &ctx, const float *dy, float *dx,
                            const PoolShape &shape) {
  int64_t dxCount = shape.inputCount();
  if (dxCount == 0)
    return;
  REMAT_CHECK_CUDA(
      cudaMemsetAsync(dx, 0, size_t(dxCount) * sizeof(float), ctx.stream));
  int64_t count = shape.outputCount();
  if (count == 0)
    return;
  poolAvgBackwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      dy, dx, shape, count);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Adaptive average pooling
//===----------------------------------------------------------------------===//

/// ATen's adaptive window [start, end) of output index i of `out` over `in`.
__device__ inline int64_t poolAdaptiveStart(int64_t i, int64_t out,
                                            int64_t in) {
  return (i * in) / out;
}
__device__ inline int64_t poolAdaptiveEnd(int64_t i, int64_t out, int64_t in) {
  return ((i + 1) * in + out - 1) / out;
}

__global__ void poolAdaptiveAvgForwardKernel(const float *x, float *y,
                                             int64_t h, int64_t w, int64_t p,
                                             int64_t q, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t oj = i % q, oi = (i / q) % p, plane = i / (p * q);
    int64_t h0 = poolAdaptiveStart(oi, p, h), h1 = poolAdaptiveEnd(oi, p, h);
    int64_t w0 = poolAdaptiveStart(oj, q, w), w1 = poolAdaptiveEnd(oj, q, w);
    const float *in = x + plane * h * w;
    float sum = 0.0f;
    for (int64_t hi = h0; hi < h1; ++hi)
      for (int64_t wi = w0; wi < w1; ++wi)
        sum += in[hi * w + wi];
    y[i] = sum / float(h1 - h0) / float(w1 - w0);
  }
}

__global__ void poolAdaptiveAvgBackwardKernel(const float *dy, float *dx,
                                              int64_t h, int64_t w, int64_t p,
                                              int64_t q, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t oj = i % q, oi = (i / q) % p, plane = i / (p * q);
    int64_t h0 = poolAdaptiveStart(oi, p, h), h1 = poolAdaptiveEnd(oi, p, h);
    int64_t w0 = poolAdaptiveStart(oj, q, w), w1 = poolAdaptiveEnd(oj, q, w);
    float delta = dy[i] / float(h1 - h0) / float(w1 - w0);
    float *out = dx + plane * h * w;
    for (int64_t hi = h0; hi < h1; ++hi)
      for (int64_t wi = w0; wi < w1; ++wi)
        atomicAdd(out + hi * w + wi, delta);
  }
}

inline void adaptiveAvgPool2dForward(Context &ctx, const float *x, float *y,
                                     int n, int c, int h, int w, int p,
                                     int q) {
  int64_t count = int64_t(n) * c * p * q;
  if (count == 0)
    return;
  poolAdaptiveAvgForwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      x, y, h, w, p, q, count);
  REMAT_CHECK_LAUNCH();
}

inline void adaptiveAvgPool2dBackward(Context &ctx, const float *dy,
                                      float *dx, int n, int c, int h, int w,
                                      int p, int q) {
  int64_t dxCount = int64_t(n) * c * h * w;
  if (dxCount == 0)
    return;
  REMAT_CHECK_CUDA(
      cudaMemsetAsync(dx, 0, size_t(dxCount) * sizeof(float), ctx.stream));
  int64_t count = int64_t(n) * c * p * q;
  if (count == 0)
    return;
  poolAdaptiveAvgBackwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      dy, dx, h, w, p, q, count);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Bilinear upsampling
//===----------------------------------------------------------------------===//

/// ATen's source scale of one dimension (area_pixel_compute_scale, float).
inline float poolBilinearScale(int in, int out, bool alignCorners) {
  if (alignCorners)
    return out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
  return float(in) / float(out);
}

/// The two source indices of output index `i` along one dimension of input
/// size `in` and their weights (ATen's area_pixel_compute_source_index and
/// guard_index_and_lambda; equal sizes copy); rounded as ATen's float math,
/// without FMA contraction.
struct PoolBilinearTap {
  int64_t i0, i1;
  float l0, l1;
};

__device__ inline PoolBilinearTap poolBilinearTap(float scale, int64_t i,
                                                  int64_t in, int64_t out,
                                                  bool alignCorners) {
  PoolBilinearTap tap;
  if (in == out) { // ATen copies
    tap.i0 = tap.i1 = i;
    tap.l0 = 1.0f;
    tap.l1 = 0.0f;
    return tap;
  }
  float src;
  if (alignCorners) {
    src = __fmul_rn(scale, float(i));
  } else {
    src = __fsub_rn(__fmul_rn(scale, __fadd_rn(float(i), 0.5f)), 0.5f);
    src = src < 0.0f ? 0.0f : src;
  }
  int64_t floorIndex = int64_t(floorf(src));
  tap.i0 = floorIndex < in - 1 ? floorIndex : in - 1;
  float lambda = __fsub_rn(src, float(tap.i0));
  tap.l1 = lambda < 0.0f ? 0.0f : (lambda > 1.0f ? 1.0f : lambda);
  tap.l0 = 1.0f - tap.l1;
  tap.i1 = tap.i0 + (tap.i0 < in - 1 ? 1 : 0);
  return tap;
}

__global__ void poolBilinearForwardKernel(const float *x, float *y, int64_t h,
                                          int64_t w, int64_t p, int64_t q,
                                          float scaleH, float scaleW,
                                          bool alignCorners, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t oj = i % q, oi = (i / q) % p, plane = i / (p * q);
    PoolBilinearTap th = poolBilinearTap(scaleH, oi, h, p, alignCorners);
    PoolBilinearTap tw = poolBilinearTap(scaleW, oj, w, q, alignCorners);
    const float *in = x + plane * h * w;
    const float *row0 = in + th.i0 * w, *row1 = in + th.i1 * w;
    y[i] = th.l0 * (tw.l0 * row0[tw.i0] + tw.l1 * row0[tw.i1]) +
           th.l1 * (tw.l0 * row1[tw.i0] + tw.l1 * row1[tw.i1]);
  }
}

__global__ void poolBilinearBackwardKernel(const float *dy, float *dx,
                                           int64_t h, int64_t w, int64_t p,
                                           int64_t q, float scaleH,
                                           float scaleW, bool alignCorners,
                                           int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t oj = i % q, oi = (i / q) % p, plane = i / (p * q);
    PoolBilinearTap th = poolBilinearTap(scaleH, oi, h, p, alignCorners);
    PoolBilinearTap tw = poolBilinearTap(scaleW, oj, w, q, alignCorners);
    float g = dy[i];
    float *out = dx + plane * h * w;
    atomicAdd(out + th.i0 * w + tw.i0, th.l0 * tw.l0 * g);
    atomicAdd(out + th.i0 * w + tw.i1, th.l0 * tw.l1 * g);
    atomicAdd(out + th.i1 * w + tw.i0, th.l1 * tw.l0 * g);
    atomicAdd(out + th.i1 * w + tw.i1, th.l1 * tw.l1 * g);
  }
}

inline void upsampleBilinear2dForward(Context &ctx, const float *x, float *y,
                                      int n, int c, int h, int w, int p, int q,
                                      bool alignCorners) {
  int64_t count = int64_t(n) * c * p * q;
  if (count == 0)
    return;
  poolBilinearForwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      x, y, h, w, p, q, poolBilinearScale(h, p, alignCorners),
      poolBilinearScale(w, q, alignCorners), alignCorners, count);
  REMAT_CHECK_LAUNCH();
}

inline void upsampleBilinear2dBackward(Context &ctx, const float *dy,
                                       float *dx, int n, int c, int h, int w,
                                       int p, int q, bool alignCorners) {
  int64_t dxCount = int64_t(n) * c * h * w;
  if (dxCount == 0)
    return;
  REMAT_CHECK_CUDA(
      cudaMemsetAsync(dx, 0, size_t(dxCount) * sizeof(float), ctx.stream));
  int64_t count = int64_t(n) * c * p * q;
  if (count == 0)
    return;
  poolBilinearBackwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      dy, dx, h, w, p, q, poolBilinearScale(h, p, alignCorners),
      poolBilinearScale(w, q, alignCorners), alignCorners, count);
  REMAT_CHECK_LAUNCH();
}

//===----------------------------------------------------------------------===//
// Nearest-neighbour upsampling
//===----------------------------------------------------------------------===//

/// ATen's nearest_idx: equal sizes copy, a doubled size halves, otherwise
/// min(floor(i * scale), in - 1) with scale = in / out in float.
__device__ inline int64_t poolNearestIndex(int64_t i, int64_t in,
                                           int64_t out) {
  if (out == in)
    return i;
  if (out == 2 * in)
    return i >> 1;
  float scale = float(in) / float(out);
  int64_t src = int64_t(floorf(__fmul_rn(float(i), scale)));
  return src < in - 1 ? src : in - 1;
}

__global__ void poolNearestForwardKernel(const float *x, float *y, int64_t h,
                                         int64_t w, int64_t p, int64_t q,
                                         int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t oj = i % q, oi = (i / q) % p, plane = i / (p * q);
    y[i] = x[(plane * h + poolNearestIndex(oi, h, p)) * w +
             poolNearestIndex(oj, w, q)];
  }
}

__global__ void poolNearestBackwardKernel(const float *dy, float *dx,
                                          int64_t h, int64_t w, int64_t p,
                                          int64_t q, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t oj = i % q, oi = (i / q) % p, plane = i / (p * q);
    atomicAdd(dx + (plane * h + poolNearestIndex(oi, h, p)) * w +
                  poolNearestIndex(oj, w, q),
              dy[i]);
  }
}

inline void upsampleNearest2dForward(Context &ctx, const float *x, float *y,
                                     int n, int c, int h, int w, int p,
                                     int q) {
  int64_t count = int64_t(n) * c * p * q;
  if (count == 0)
    return;
  poolNearestForwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      x, y, h, w, p, q, count);
  REMAT_CHECK_LAUNCH();
}

inline void upsampleNearest2dBackward(Context &ctx, const float *dy,
                                      float *dx, int n, int c, int h, int w,
                                      int p, int q) {
  int64_t dxCount = int64_t(n) * c * h * w;
  if (dxCount == 0)
    return;
  REMAT_CHECK_CUDA(
      cudaMemsetAsync(dx, 0, size_t(dxCount) * sizeof(float), ctx.stream));
  int64_t count = int64_t(n) * c * p * q;
  if (count == 0)
    return;
  poolNearestBackwardKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      dy, dx, h, w, p, q, count);
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
