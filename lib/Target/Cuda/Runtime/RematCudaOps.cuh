//===- RematCudaOps.cuh - the CUDA kernels and library calls of nn ops ----===//
//
// Part of every source `remat-translate --emit-cuda` writes (pasted in
// verbatim, so that the emitted file stands alone). One host function per nn
// op family that is not a generated element-wise kernel: cuDNN for
// convolutions and batch norm, cuBLAS for linear and matmul, kernels written
// here for pooling, normalization, losses, optimizer updates and data
// movement. Every tensor is a dense row-major device buffer; shapes are
// passed as numbers. Every call runs on `ctx.stream` and checks every status
// through the REMAT_CHECK_* macros (which name the op being run).
//
// Semantics are those of remat-run's ATen kernels
// (lib/Execution/Cpu/Kernels.cpp) and the op definitions in
// include/remat/Dialect/NN/IR/*.td.
//
// Workspace: cuDNN and cuBLAS get only the bytes the memory plan gave the op
// (`workspace`, `workspaceBytes`; 0 where the plan has none), so that device
// memory stays within the plan: algorithms are picked among those that fit.
//
//===----------------------------------------------------------------------===//

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace remat_rt {

/// The op being run, for error messages (set by the emitted step).
inline const char *currentOp = "";

#ifdef REMAT_STEP_LIBRARY
/// A failed call in library mode (Library.cuh): the entry point that ran
/// the step returns it as an error instead of ending the host's process.
struct StepFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
#endif

/// Ends the step with `message`: the harness prints it and exits with
/// status 1; a step built as a library throws it to its entry point.
[[noreturn]] inline void failStep(const std::string &message) {
#ifdef REMAT_STEP_LIBRARY
  throw StepFailure(message);
#else
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
#endif
}

/// printf-style text, for failStep.
inline std::string formatText(const char *format, ...) {
  char text[1024];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(text, sizeof(text), format, arguments);
  va_end(arguments);
  return text;
}

#define REMAT_CHECK_CUDA(call)                                                 \
  do {                                                                         \
    cudaError_t status_ = (call);                                              \
    if (status_ != cudaSuccess)                                                \
      remat_rt::failStep(std::string(remat_rt::currentOp) + ": " #call         \
                         " failed: " + cudaGetErrorString(status_));           \
  } while (0)
#define REMAT_CHECK_CUDNN(call)                                                \
  do {                                                                         \
    cudnnStatus_t status_ = (call);                                            \
    if (status_ != CUDNN_STATUS_SUCCESS)                                       \
      remat_rt::failStep(std::string(remat_rt::currentOp) + ": " #call         \
                         " failed: " + cudnnGetErrorString(status_));          \
  } while (0)
#define REMAT_CHECK_CUBLAS(call)                                               \
  do {                                                                         \
    cublasStatus_t status_ = (call);                                           \
    if (status_ != CUBLAS_STATUS_SUCCESS)                                      \
      remat_rt::failStep(std::string(remat_rt::currentOp) + ": " #call         \
                         " failed: cuBLAS status " +                           \
                         std::to_string(int(status_)));                        \
  } while (0)
/// After each generated kernel launch.
#define REMAT_CHECK_LAUNCH() REMAT_CHECK_CUDA(cudaGetLastError())

/// The hyperparameters of one optimizer update (nn.sgd or nn.adam), in
/// this order in Context::hyperparameters, read by the step as it runs so
/// that a host can change them between steps (a learning-rate schedule).
enum Hyperparameter {
  kLr,
  kMomentum,
  kDampening,
  kWeightDecay,
  kNesterov, ///< 0 or 1
  kBeta1,
  kBeta2,
  kEps,
  kDecoupledWeightDecay, ///< 0 or 1
  kNumHyperparameters
};

struct Context {
  cudaStream_t stream;
  cublasHandle_t cublas;
  cudnnHandle_t cudnn;
  /// kNumHyperparameters values per optimizer update, in the step's order
  /// of updates (StepInfo::updates).
  const double *hyperparameters = nullptr;
};

/// The counter-based generator (as lib/Execution/Random.cpp): uniform
/// doubles in [0, 1) at (key, index), for the harness's fills and the
/// kernels' dropout masks.
__host__ __device__ inline uint64_t mixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__host__ __device__ inline double uniformAt(uint64_t key, uint64_t index) {
  uint64_t bits = mixBits(key + (index + 1) * 0x9e3779b97f4a7c15ULL);
  return double(bits >> 11) * 0x1.0p-53;
}

/// Threads per block and blocks for `count` elements (grid-stride loops).
inline int blocksFor(int64_t count) {
  int64_t blocks = (count + 255) / 256;
  return int(blocks < 1 ? 1 : (blocks > 65535 * 8 ? 65535 * 8 : blocks));
}

/// The sum of `value` over the block, returned to every thread; `partial` is
/// 32 shared slots, blockDim.x a multiple of 32. Every thread must call it.
template <typename T>
__device__ inline T blockSum(T value, T *partial) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  __syncthreads(); // `partial` may still be read by an earlier call
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x < 32) {
    value = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : T(0);
    for (int offset = 16; offset > 0; offset /= 2)
      value += __shfl_down_sync(0xffffffffu, value, offset);
    if (threadIdx.x == 0)
      partial[0] = value;
  }
  __syncthreads();
  return partial[0];
}

//===----------------------------------------------------------------------===//
// Convolution (cuDNN), 2-D and 3-D: x [n, c, in...], w [k, c / groups,
// kernel...], y [n, k, out...], with `spatialDims` sizes in each list.
//===----------------------------------------------------------------------===//

struct ConvShape {
  int spatialDims; // 2 (NCHW) or 3 (NCDHW)
  int n, c, k, groups;
  int in[3], kernel[3], out[3];
  int padding[3], stride[3], dilation[3];

  int64_t inputCount() const { return int64_t(n) * c * plane(in); }
  int64_t weightCount() const {
    return int64_t(k) * (c / groups) * plane(kernel);
  }
  int64_t outputCount() const { return int64_t(n) * k * plane(out); }
  /// The elements of one channel: the product of `sizes`' spatial dims.
  int64_t plane(const int *sizes) const {
    int64_t product = 1;
    for (int d = 0; d < spatialDims; ++d)
      product *= sizes[d];
    return product;
  }
};

/// y = conv(x, w) (+ bias [k] where not null).
inline void convForward(Context &ctx, const float *x, const float *w,
                        const float *bias, float *y, const ConvShape &shape,
                        void *workspace, size_t workspaceBytes);
/// dx = the input gradient from dy [n, k, out...] and w.
inline void convBackwardInput(Context &ctx, const float *dy, const float *w,
                              float *dx, const ConvShape &shape,
                              void *workspace, size_t workspaceBytes);
/// dw = the weight gradient from dy and x.
inline void convBackwardWeight(Context &ctx, const float *dy, const float *x,
                               float *dw, const ConvShape &shape,
                               void *workspace, size_t workspaceBytes);
/// db [k] = dy [n, k, plane] summed over n and the plane.
inline void convBackwardBias(Context &ctx, const float *dy, float *db, int n,
                             int k, int64_t plane);

//===----------------------------------------------------------------------===//
// Pooling and resampling (kernels). Max and average pooling: x [n, c, in...],
// y [n, c, out...] over depth, height and width (depth 1 for a 2-D pooling).
// Adaptive pooling and upsampling: x [n, c, h, w], y [n, c, p, q].
//===----------------------------------------------------------------------===//

struct PoolShape {
  int n, c;
  int in[3], out[3];
  int kernel[3], stride[3], padding[3], dilation[3];
  bool countIncludePad; // average pooling
  int divisorOverride;  // average pooling; 0: none

  int64_t inputCount() const {
    return int64_t(n) * c * in[0] * in[1] * in[2];
  }
  int64_t outputCount() const {
    return int64_t(n) * c * out[0] * out[1] * out[2];
  }
};

/// y = max over each window; indices [n, c, out...] (int64) = the flat
/// index (d_i * h + h_i) * w + w_i of the maximum within its (n, c) plane,
/// as ATen's.
inline void maxPoolForward(Context &ctx, const float *x, float *y,
                           int64_t *indices, const PoolShape &shape);
/// dx (zeroed first) += dy at each index.
inline void maxPoolBackward(Context &ctx, const float *dy,
                            const int64_t *indices, float *dx,
                            const PoolShape &shape);
inline void avgPoolForward(Context &ctx, const float *x, float *y,
                           const PoolShape &shape);
inline void avgPoolBackward(Context &ctx, const float *dy, float *dx,
                            const PoolShape &shape);
/// ATen's adaptive windows: start = floor(i * h / p), end = ceil((i+1) h / p).
inline void adaptiveAvgPool2dForward(Context &ctx, const float *x, float *y,
                                     int n, int c, int h, int w, int p, int q);
inline void adaptiveAvgPool2dBackward(Context &ctx, const float *dy,
                                      float *dx, int n, int c, int h, int w,
                                      int p, int q);
inline void upsampleBilinear2dForward(Context &ctx, const float *x, float *y,
                                      int n, int c, int h, int w, int p, int q,
                                      bool alignCorners);
inline void upsampleBilinear2dBackward(Context &ctx, const float *dy,
                                       float *dx, int n, int c, int h, int w,
                                       int p, int q, bool alignCorners);
inline void upsampleNearest2dForward(Context &ctx, const float *x, float *y,
                                     int n, int c, int h, int w, int p, int q);
/// dx (zeroed first) += each dy at the input element it read.
inline void upsampleNearest2dBackward(Context &ctx, const float *dy,
                                      float *dx, int n, int c, int h, int w,
                                      int p, int q);

//===----------------------------------------------------------------------===//
// Normalization. Batch norm: x [n, c, spatial...] as [n, c, spatial].
//===----------------------------------------------------------------------===//

/// Training-mode batch norm (batch statistics).
inline void batchNormForward(Context &ctx, const float *x, const float *gamma,
                             const float *beta, float *y, float *saveMean,
                             float *saveInvstd, int64_t n, int64_t c,
                             int64_t spatial, double eps);
/// New running stats = (1 - momentum) * old + momentum * batch stat
/// (variance unbiased); the new ones may be the old ones' buffers.
inline void batchNormUpdateStats(Context &ctx, const float *x,
                                 const float *runningMean,
                                 const float *runningVar,
                                 float *newRunningMean, float *newRunningVar,
                                 int64_t n, int64_t c, int64_t spatial,
                                 double momentum);
inline void batchNormBackward(Context &ctx, const float *dy, const float *x,
                              const float *gamma, const float *saveMean,
                              const float *saveInvstd, float *dx,
                              float *dgamma, float *dbeta, int64_t n,
                              int64_t c, int64_t spatial);
/// Over the last `cols` elements of each of `rows` rows; mean and rstd [rows].
inline void layerNormForward(Context &ctx, const float *x, const float *gamma,
                             const float *beta, float *y, float *mean,
                             float *rstd, int64_t rows, int64_t cols,
                             double eps);
inline void layerNormBackward(Context &ctx, const float *dy, const float *x,
                              const float *mean, const float *rstd,
                              const float *gamma, float *dx, float *dgamma,
                              float *dbeta, int64_t rows, int64_t cols);

//===----------------------------------------------------------------------===//
// Linear algebra (cuBLAS, row-major). Linear: x [rows, in], w [out, in].
//===----------------------------------------------------------------------===//

/// y [rows, out] = x w^T (+ bias [out] where not null).
inline void linearForward(Context &ctx, const float *x, const float *w,
                          const float *bias, float *y, int64_t rows,
                          int64_t in, int64_t out);
/// dx [rows, in] = dy [rows, out] w.
inline void linearBackwardInput(Context &ctx, const float *dy, const float *w,
                                float *dx, int64_t rows, int64_t in,
                                int64_t out);
/// dw [out, in] = dy^T x.
inline void linearBackwardWeight(Context &ctx, const float *dy,
                                 const float *x, float *dw, int64_t rows,
                                 int64_t in, int64_t out);
/// db [out] = dy summed over rows.
inline void linearBackwardBias(Context &ctx, const float *dy, float *db,
                               int64_t rows, int64_t out);
/// c [batch, m, n] = a [batch, m, k] b [batch, k, n].
inline void matmul(Context &ctx, const float *a, const float *b, float *c,
                   int64_t batch, int64_t m, int64_t k, int64_t n);
/// da [batch, m, k] = dc [batch, m, n] b^T.
inline void matmulBackwardLhs(Context &ctx, const float *dc, const float *b,
                              float *da, int64_t batch, int64_t m, int64_t k,
                              int64_t n);
/// db [batch, k, n] = a^T dc.
inline void matmulBackwardRhs(Context &ctx, const float *dc, const float *a,
                              float *db, int64_t batch, int64_t m, int64_t k,
                              int64_t n);
/// y [count, dim] = rows of w [vocab, dim] at indices (padding_idx < 0: none).
inline void embeddingForward(Context &ctx, const float *w,
                             const int64_t *indices, float *y, int64_t count,
                             int64_t vocab, int64_t dim, int64_t paddingIdx);
/// dw [vocab, dim] (zeroed first) += dy rows at indices, none at paddingIdx.
inline void embeddingBackward(Context &ctx, const float *dy,
                              const int64_t *indices, float *dw,
                              int64_t count, int64_t vocab, int64_t dim,
                              int64_t paddingIdx);

//===----------------------------------------------------------------------===//
// Softmax and losses. Softmax runs along a dim of size `dimSize` of a tensor
// seen as [outer, dimSize, inner].
//===----------------------------------------------------------------------===//

inline void softmaxForward(Context &ctx, const float *x, float *y,
                           int64_t outer, int64_t dimSize, int64_t inner,
                           bool log);
/// From the forward's result y: softmax dx = y (dy - sum(dy y));
/// log-softmax dx = dy - exp(y) sum(dy).
inline void softmaxBackward(Context &ctx, const float *dy, const float *y,
                            float *dx, int64_t outer, int64_t dimSize,
                            int64_t inner, bool log);
/// Mean cross entropy of logits [n, classes] against labels [n] (int64),
/// skipping labels equal to ignoreIndex; loss is a 0-d tensor.
inline void crossEntropyForward(Context &ctx, const float *logits,
                                const int64_t *labels, float *loss, int64_t n,
                                int64_t classes, int64_t ignoreIndex);
/// dlogits = (softmax(logits) - onehot) * dloss / (count of labels used).
inline void crossEntropyBackward(Context &ctx, const float *dloss,
                                 const float *logits, const int64_t *labels,
                                 float *dlogits, int64_t n, int64_t classes,
                                 int64_t ignoreIndex);

//===----------------------------------------------------------------------===//
// Optimizer updates (element-wise over `count` elements).
//===----------------------------------------------------------------------===//

/// torch.optim.SGD's step; momentumBuffer/newMomentumBuffer are null without
/// momentum (as the op's optional operand and result).
inline void sgdStep(Context &ctx, const float *param, const float *grad,
                    const float *momentumBuffer, float *newParam,
                    float *newMomentumBuffer, int64_t count, double lr,
                    double momentum, double dampening, double weightDecay,
                    bool nesterov);
/// torch.optim.Adam's step (AdamW's with `decoupled`); `step` is the
/// device 0-d tensor holding t.
inline void adamStep(Context &ctx, const float *param, const float *grad,
                     const float *expAvg, const float *expAvgSq,
                     const float *step, float *newParam, float *newExpAvg,
                     float *newExpAvgSq, int64_t count, double lr,
                     double beta1, double beta2, double eps,
                     double weightDecay, bool decoupled);

//===----------------------------------------------------------------------===//
// Data movement and reductions.
//===----------------------------------------------------------------------===//

/// Up to this many dimensions in permute and reductions.
constexpr int kMaxRank = 8;
struct Dims {
  int rank;
  int64_t size[kMaxRank];
};

/// y = x with dimensions permuted: y's dim i is x's dim perm[i].
inline void permute(Context &ctx, const float *x, float *y, const Dims &xDims,
                    const int *perm);
/// y [outer, sizeOut, inner] = x [outer, sizeIn, inner] at start + i * step
/// along the middle dim (T: float or int64_t).
template <typename T>
inline void sliceForward(Context &ctx, const T *x, T *y,
                         int64_t outer, int64_t sizeIn, int64_t inner,
                         int64_t start, int64_t step, int64_t sizeOut);
/// dx [outer, sizeIn, inner] = 0, with dy scattered where the slice read.
inline void sliceBackward(Context &ctx, const float *dy, float *dx,
                          int64_t outer, int64_t sizeIn, int64_t inner,
                          int64_t start, int64_t step, int64_t sizeOut);
/// y = x summed over the dims with reduce[i] true, times scale (mean: 1/count).
inline void sumDims(Context &ctx, const float *x, float *y, const Dims &xDims,
                    const bool *reduce, double scale);

} // namespace remat_rt
