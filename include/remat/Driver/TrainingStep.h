//===- TrainingStep.h - a model's training step at any batch ----*- C++ -*-===//
//
// What the `remat` driver searches over: the training step of one
// TorchScript model (import, then autodiff) at a batch size, built on
// demand and kept per batch, so that every policy of a search shares the
// steps it needs.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_TRAININGSTEP_H
#define REMAT_DRIVER_TRAININGSTEP_H

#include "remat/Target/TorchScript/TorchScriptImport.h"
#include "remat/Transforms/Autodiff.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

struct ModelSpec {
  std::string modelPath;
  /// One type per input of forward, without the batch dimension
  /// (3x224x224xf32; a 0-d type such as i64 for per-sample labels).
  std::vector<RankedTensorType> sampleTypes;
  /// The option that gave sampleTypes (--sample-shape or --input-shape), as
  /// diagnostics name it.
  std::string shapeOption = "--sample-shape";
  /// The loss is chosen from the model: `none` when its forward returns a
  /// scalar, else `cross-entropy`.
  AutodiffOptions autodiff;
  /// When not 0: the classes the model's [N, C] output must have.
  int64_t classes = 0;
  /// For programs exported at one static batch (torch.export from Python,
  /// which exports on demand): the program to import at a batch, or nothing
  /// with `error` set when the model does not export there. Unset: the
  /// model at `modelPath` at every batch.
  std::function<std::optional<std::string>(int64_t batch, std::string &error)>
      programAtBatch;
  /// Weights (by argument name) the step reads but does not train: they
  /// become buffers before autodiff, so that nothing computes their
  /// gradient or updates them (PyTorch's requires_grad=False). Names the
  /// step has no argument for (parameters forward never reads) are skipped.
  std::vector<std::string> frozenWeights;
};

/// Imports `spec`'s model at `batch` and differentiates every function of it
/// into a training step (the loss chosen from the model's result, --classes
/// checked). With `spec.autodiff.accumulationSteps` k > 1, `batch` is the
/// micro-batch: the model is imported at `batch` and the step runs k
/// micro-steps, its inputs and labels taking k x `batch` samples (see
/// AutodiffOptions). `weightsPath` is recorded on the step as where its weights will
/// be (empty: nowhere). Sets `*returnsLoss`, when given, to whether the
/// model returns its own loss (a scalar; else its logits get
/// cross-entropy). Emits errors and fails when the model cannot be
/// imported or differentiated at that batch, or when
/// `spec.autodiff.lossReduction` is `sum` for a model that returns logits.
FailureOr<TorchScriptImport> buildTrainingStep(const ModelSpec &spec,
                                               int64_t batch,
                                               MLIRContext *context,
                                               llvm::StringRef weightsPath = "",
                                               bool *returnsLoss = nullptr);

class TrainingStepBuilder {
public:
  TrainingStepBuilder(MLIRContext *context, ModelSpec spec)
      : context(context), spec(std::move(spec)) {}

  /// The training step at `batch`, built once (import, then autodiff).
  /// Emits errors and fails when the model cannot be imported or
  /// differentiated at that batch.
  FailureOr<ModuleOp> getStep(int64_t batch);

  /// How many distinct batches were built.
  size_t getBuiltCount() const { return steps.size(); }
  const ModelSpec &getSpec() const { return spec; }
  /// Where each imported op comes from (the same at every batch), once a
  /// step was built.
  ArrayRef<ImportedOpOrigin> getOpOrigins() const { return origins; }

private:
  MLIRContext *context;
  ModelSpec spec;
  std::vector<ImportedOpOrigin> origins;
  std::map<int64_t, OwningOpRef<ModuleOp>> steps;
};

/// The full input types of `spec` at `batch`.
std::vector<RankedTensorType> getBatchTypes(const ModelSpec &spec,
                                            int64_t batch);

} // namespace mlir::remat

#endif // REMAT_DRIVER_TRAININGSTEP_H
