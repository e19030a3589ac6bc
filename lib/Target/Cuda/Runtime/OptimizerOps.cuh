//===- OptimizerOps.cuh - SGD and Adam steps ------------------------------===//
//
// Part of the runtime pasted after RematCudaOps.cuh. One torch.optim step
// per weight, element-wise, as remat-run computes it (nn.sgd and nn.adam):
//
//   SGD:  g = grad + weight_decay * param; with momentum,
//         buf = momentum * buf + (1 - dampening) * g (the buffer starts at
//         zero: no first-step special case) and g = nesterov ?
//         g + momentum * buf : buf; param -= lr * g.
//   Adam: g = grad + weight_decay * param; m = beta1 m + (1 - beta1) g;
//         v = beta2 v + (1 - beta2) g^2; param += -lr / (1 - beta1^t) *
//         m / (sqrt(v) / sqrt(1 - beta2^t) + eps), t read from the device.
//
// Arithmetic is float with the constants rounded to float, as ATen's float
// tensor ops with double scalars; the bias corrections are double. Each
// thread reads all of its element's inputs before writing, so a result may
// alias its input (an in-place update).
//
//===----------------------------------------------------------------------===//

namespace remat_rt {

__global__ void optimizerSgdKernel(const float *param, const float *grad,
                                   const float *momentumBuffer,
                                   float *newParam, float *newMomentumBuffer,
                                   int64_t count, float lr, float momentum,
                                   float undamped, float weightDecay,
                                   bool nesterov) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    float p = param[i];
    float g = grad[i];
    if (weightDecay != 0.0f)
      g = g + weightDecay * p;
    if (momentumBuffer) {
      float buffer = momentumBuffer[i] * momentum + undamped * g;
      if (newMomentumBuffer)
        newMomentumBuffer[i] = buffer;
      g = nesterov ? g + momentum * buffer : buffer;
    }
    newParam[i] = p - lr * g;
  }
}

inline void sgdStep(Context &ctx, const float *param, const float *grad,
                    const float *momentumBuffer, float *newParam,
                    float *newMomentumBuffer, int64_t count, double lr,
                    double momentum, double dampening, double weightDecay,
                    bool nesterov) {
  if (count == 0)
    return;
  optimizerSgdKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      param, grad, momentumBuffer, newParam,
      newMomentumBuffer, count, float(lr), float(momentum),
      float(1.0 - dampening), float(weightDecay), nesterov);
  REMAT_CHECK_LAUNCH();
}

__global__ void optimizerAdamKernel(const float *param, const float *grad,
                                    const float *expAvg, const float *expAvgSq,
                                    const float *step, float *newParam,
                                    float *newExpAvg, float *newExpAvgSq,
                                    int64_t count, double lr, double beta1,
                                    double beta2, float eps, float weightDecay,
                                    float decayFactor) {
  // The step's constants, once per block: the step size -lr / (1 - beta1^t)
  // and sqrt(1 - beta2^t), rounded to float as ATen's scalars.
  __shared__ float stepSize, correction2Sqrt;
  if (threadIdx.x == 0) {
    double t = double(*step);
    stepSize = float(-lr / (1.0 - pow(beta1, t)));
    correction2Sqrt = float(sqrt(1.0 - pow(beta2, t)));
  }
  __syncthreads();
  const float b1 = float(beta1), b2 = float(beta2);
  const float c1 = float(1.0 - beta1), c2 = float(1.0 - beta2);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    float p = param[i];
    float g = grad[i];
    if (weightDecay != 0.0f)
      g = g + weightDecay * p;
    if (decayFactor != 1.0f) // AdamW: the weight decays, not the gradient
      p = p * decayFactor;
    float m = expAvg[i] * b1 + c1 * g;
    float v = expAvgSq[i] * b2 + c2 * g * g;
    float denominator = sqrtf(v) / correction2Sqrt + eps;
    newExpAvg[i] = m;
    newExpAvgSq[i] = v;
    newParam[i] = p + stepSize * m / denominator;
  }
}

inline void adamStep(Context &ctx, const float *param, const float *grad,
                     const float *expAvg, const float *expAvgSq,
                     const float *step, float *newParam, float *newExpAvg,
                     float *newExpAvgSq, int64_t count, double lr,
                     double beta1, double beta2, double eps,
                     double weightDecay, bool decoupled) {
  if (count == 0)
    return;
  float coupledDecay = decoupled ? 0.0f : float(weightDecay);
  float decayFactor = decoupled ? float(1.0 - lr * weightDecay) : 1.0f;
  optimizerAdamKernel<<<blocksFor(count), 256, 0, ctx.stream>>>(
      param, grad, expAvg, expAvgSq, step, newParam, newExpAvg, newExpAvgSq,
      count, lr, beta1, beta2, float(eps), coupledDecay, decayFactor);
  REMAT_CHECK_LAUNCH();
}

} // namespace remat_rt
