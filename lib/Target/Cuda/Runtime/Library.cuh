//===- Library.cuh - the step as a shared library -------------------------===//
//
// Part of every source `remat-translate --emit-cuda` writes, last. Built with
// -DREMAT_STEP_LIBRARY (scripts/build-cuda.sh --library), the source is a
// shared library in place of the harness's program: a host that owns the
// device buffers (remat's Python package, on the user's CUDA tensors) loads
// it and runs the step on them through these C entry points. Every call
// returns 0, or 1 with remat_step_error() saying what failed (the op and the
// CUDA, cuBLAS or cuDNN call); nothing ends the host's process.
//
//   remat_step_create(&handle)           cuBLAS and cuDNN handles
//   remat_step_run(handle, stream, arguments, arena, hyperparameters, losses)
//       one step on the host's `stream` (a cudaStream_t; null: the default
//       stream): `arguments` the device pointers of the step's arguments
//       in order (updated in place), `arena` remat_step_arena_bytes() bytes
//       of device memory aligned to 256, `hyperparameters`
//       kNumHyperparameters doubles per update (remat_step_update_*), and
//       `losses` host floats that receive the step's losses (one-element f32
//       results that are not state) once the step has run
//   remat_step_destroy(handle)
//
//===----------------------------------------------------------------------===//

#ifdef REMAT_STEP_LIBRARY

namespace remat_rt {

/// The emitted step's tables (defined after them, in the generated part).
const StepInfo &getLibraryStep();

/// What the last failed call of this thread said.
inline thread_local std::string lastLibraryError;

/// Runs `body`, turning a failure into status 1 and the error message.
template <typename Body> int runEntryPoint(Body body) {
  try {
    body();
    return 0;
  } catch (const std::exception &error) {
    lastLibraryError = error.what();
    return 1;
  }
}

} // namespace remat_rt

#define REMAT_STEP_API extern "C" __attribute__((visibility("default")))

REMAT_STEP_API const char *remat_step_error() {
  return remat_rt::lastLibraryError.c_str();
}

REMAT_STEP_API int remat_step_num_arguments() {
  return remat_rt::getLibraryStep().numArguments;
}

REMAT_STEP_API const char *remat_step_argument_name(int index) {
  return remat_rt::getLibraryStep().arguments[index].name;
}

REMAT_STEP_API long long remat_step_arena_bytes() {
  const remat_rt::StepInfo &step = remat_rt::getLibraryStep();
  return step.scratchBytes > 0
             ? remat_rt::alignUp(step.arenaBytes) + step.scratchBytes
             : step.arenaBytes;
}

REMAT_STEP_API int remat_step_num_updates() {
  return remat_rt::getLibraryStep().numUpdates;
}

REMAT_STEP_API const char *remat_step_update_weight(int index) {
  return remat_rt::getLibraryStep().updates[index].weight;
}

REMAT_STEP_API const char *remat_step_update_kind(int index) {
  return remat_rt::getLibraryStep().updates[index].kind;
}

REMAT_STEP_API int remat_step_num_hyperparameters() {
  return remat_rt::kNumHyperparameters;
}

REMAT_STEP_API int remat_step_num_losses() {
  return int(remat_rt::getLossResults(remat_rt::getLibraryStep()).size());
}

REMAT_STEP_API const char *remat_step_loss_name(int index) {
  const remat_rt::StepInfo &step = remat_rt::getLibraryStep();
  return step.results[remat_rt::getLossResults(step)[index]].name;
}

REMAT_STEP_API void remat_step_destroy(void *handle) {
  auto *ctx = static_cast<remat_rt::Context *>(handle);
  if (!ctx)
    return;
  if (ctx->cudnn)
    cudnnDestroy(ctx->cudnn);
  if (ctx->cublas)
    cublasDestroy(ctx->cublas);
  delete ctx;
}

REMAT_STEP_API int remat_step_create(void **handle) {
  auto *ctx = new remat_rt::Context();
  ctx->stream = nullptr;
  ctx->cublas = nullptr;
  ctx->cudnn = nullptr;
  int status = remat_rt::runEntryPoint([&] {
    remat_rt::currentOp = "creating the step's library handles";
    REMAT_CHECK_CUBLAS(cublasCreate(&ctx->cublas));
    // As the harness: no TF32, and no workspace of cuBLAS's own.
    REMAT_CHECK_CUBLAS(cublasSetMathMode(ctx->cublas, CUBLAS_DEFAULT_MATH));
    REMAT_CHECK_CUBLAS(cublasSetWorkspace(ctx->cublas, nullptr, 0));
    REMAT_CHECK_CUDNN(cudnnCreate(&ctx->cudnn));
  });
  if (status != 0) {
    remat_step_destroy(ctx);
    ctx = nullptr;
  }
  *handle = ctx;
  return status;
}

REMAT_STEP_API int remat_step_run(void *handle, void *stream,
                                  void *const *arguments, void *arena,
                                  const double *hyperparameters,
                                  float *losses) {
  auto &ctx = *static_cast<remat_rt::Context *>(handle);
  int status = remat_rt::runEntryPoint([&] {
    const remat_rt::StepInfo &step = remat_rt::getLibraryStep();
    // The host's stream of this call: the step is ordered after the work
    // that wrote its inputs.
    remat_rt::currentOp = "setting the stream";
    ctx.stream = static_cast<cudaStream_t>(stream);
    REMAT_CHECK_CUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
    REMAT_CHECK_CUDNN(cudnnSetStream(ctx.cudnn, ctx.stream));
    ctx.hyperparameters = hyperparameters;
    std::vector<void *> results(step.numResults, nullptr);
    step.step(ctx, arguments, static_cast<char *>(arena), results.data());
    remat_rt::currentOp = "copying the losses";
    std::vector<int> lossResults = remat_rt::getLossResults(step);
    for (size_t k = 0; k < lossResults.size(); ++k)
      REMAT_CHECK_CUDA(cudaMemcpyAsync(losses + k, results[lossResults[k]],
                                       sizeof(float), cudaMemcpyDeviceToHost,
                                       ctx.stream));
    REMAT_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
  });
  // After a failure, nothing the step queued may still run once the host
  // frees its buffers (their contents are then undefined).
  if (status != 0)
    cudaStreamSynchronize(ctx.stream);
  return status;
}

#endif // REMAT_STEP_LIBRARY
