//===- TrainingStep.cpp - a model's training step at any batch ------------===//

#include "remat/Driver/TrainingStep.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Target/TorchScript/TorchScriptImport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::remat;

std::vector<RankedTensorType> mlir::remat::getBatchTypes(const ModelSpec &spec,
                                                         int64_t batch) {
  std::vector<RankedTensorType> types;
  for (RankedTensorType sample : spec.sampleTypes) {
    SmallVector<int64_t> shape{batch};
    shape.append(sample.getShape().begin(), sample.getShape().end());
    types.push_back(RankedTensorType::get(shape, sample.getElementType()));
  }
  return types;
}

/// Gives the weight arguments `names` of `function` the role `buffer`; a
/// name no argument has is a parameter the step does not read (the importer
/// drops those), with nothing to freeze.
static LogicalResult freezeWeights(func::FuncOp function,
                                   ArrayRef<std::string> names) {
  for (const std::string &name : names) {
    std::optional<unsigned> index = findArgumentIndexByName(function, name);
    if (!index)
      continue;
    if (getArgumentRole(function, *index) != ArgumentRole::Weight)
      return emitError(function.getArgument(*index).getLoc())
             << "cannot freeze '" << name
             << "': the step's argument of that name is no weight";
    function.setArgAttr(
        *index, attr::kRole,
        ArgumentRoleAttr::get(function.getContext(), ArgumentRole::Buffer));
  }
  return success();
}

FailureOr<TorchScriptImport>
mlir::remat::buildTrainingStep(const ModelSpec &spec, int64_t batch,
                               MLIRContext *context,
                               llvm::StringRef weightsPath,
                               bool *returnsLoss) {
  TorchScriptImportOptions importOptions;
  importOptions.inputTypes = getBatchTypes(spec, batch);
  importOptions.inputTypesOption = spec.shapeOption;
  importOptions.weightsPath = weightsPath.str();
  std::string modelPath = spec.modelPath;
  if (spec.programAtBatch) {
    std::string error;
    std::optional<std::string> program = spec.programAtBatch(batch, error);
    if (!program) {
      emitError(FileLineColLoc::get(context, "torch.export", 0, 0))
          << "the model does not export at batch " << batch << ": " << error;
      return failure();
    }
    modelPath = *program;
  }
  FailureOr<TorchScriptImport> imported =
      importTorchScript(modelPath, importOptions, context);
  if (failed(imported))
    return failure();
  for (auto function : imported->module->getOps<func::FuncOp>()) {
    AutodiffOptions options = spec.autodiff;
    auto results = function.getFunctionType().getResults();
    auto first = results.empty() ? RankedTensorType()
                                 : dyn_cast<RankedTensorType>(results[0]);
    bool ownLoss = first && first.getRank() == 0;
    if (returnsLoss)
      *returnsLoss = ownLoss;
    if (!ownLoss && options.lossReduction == "sum")
      return function.emitError()
             << "--loss-reduction=sum is for a model that returns its own "
                "loss; this model returns logits, whose cross-entropy is a "
                "mean over the batch";
    if (spec.classes > 0 && first && first.getRank() == 2 &&
        first.getDimSize(1) != spec.classes)
      return function.emitError()
             << "the model's output has " << first.getDimSize(1)
             << " classes, not the " << spec.classes << " of --classes";
    options.loss = ownLoss ? "none" : "cross-entropy";
    if (failed(freezeWeights(function, spec.frozenWeights)) ||
        failed(differentiateFunction(function, options)))
      return failure();
  }
  return imported;
}

FailureOr<ModuleOp> TrainingStepBuilder::getStep(int64_t batch) {
  auto it = steps.find(batch);
  if (it != steps.end())
    return *it->second;
  FailureOr<TorchScriptImport> step = buildTrainingStep(spec, batch, context);
  if (failed(step))
    return failure();
  ModuleOp module = *step->module;
  steps[batch] = std::move(step->module);
  if (origins.empty())
    origins = std::move(step->opOrigins);
  return module;
}
