//===- RematModule.cpp - the `remat._remat` Python extension -------------===//
//
// The compiled half of `import remat`: a training step built from a
// torch.export program (import, autodiff with the optimizer, rematerialize
// under the budget, plan memory) and run by the CPU executor over buffers
// the caller owns. The Python half (remat/step.py) maps the user's module,
// optimizer and batches onto the step's arguments; this file knows nothing
// of torch.
//
// Every diagnostic is collected and raised as remat.Error, its message the
// diagnostics as remat's tools print them (location: error: message).
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/PeakMemory.h"
#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Driver/Plan.h"
#include "remat/Driver/TrainingStep.h"
#include "remat/Execution/CpuExecutor.h"
#include "remat/InitAll.h"
#include "remat/Report/StepReport.h"
#include "remat/Support/ByteSize.h"
#include "remat/Support/OutputFile.h"
#include "remat/Target/Cuda/CudaEmitter.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/PlanMemory.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <stdexcept>

namespace nb = nanobind;
using namespace mlir;
using namespace mlir::remat;

namespace {

/// Raised as remat.Error.
class RematError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Collects the diagnostics emitted while it lives, as the tools print them.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          llvm::raw_string_ostream os(messages);
          if (!messages.empty())
            os << "\n";
          os << diagnostic.getLocation() << ": "
             << stringifySeverity(diagnostic.getSeverity()) << ": "
             << diagnostic;
          for (const Diagnostic &note : diagnostic.getNotes())
            os << "\n" << note.getLocation() << ": note: " << note;
          return success();
        }) {}

  /// Throws the collected diagnostics (or `what` when there are none).
  [[noreturn]] void raise(const std::string &what) const {
    throw RematError(messages.empty() ? what : messages);
  }

private:
  static StringRef stringifySeverity(DiagnosticSeverity severity) {
    switch (severity) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Note:
      return "note";
    case DiagnosticSeverity::Remark:
      return "remark";
    }
    return "error";
  }

  std::string messages;
  ScopedDiagnosticHandler handler;
};

NpyType parseElementType(const std::string &name) {
  static const std::map<std::string, NpyType> types = {
      {"float32", NpyType::F32}, {"float64", NpyType::F64},
      {"float16", NpyType::F16}, {"bfloat16", NpyType::BF16},
      {"int64", NpyType::I64},   {"int32", NpyType::I32},
      {"uint8", NpyType::U8},    {"bool", NpyType::U8}};
  auto found = types.find(name);
  if (found == types.end())
    throw RematError("a buffer of element type '" + name +
                     "', which the CPU executor cannot hold");
  return found->second;
}

std::string getElementTypeName(NpyType type) {
  switch (type) {
  case NpyType::F32:
    return "float32";
  case NpyType::F64:
    return "float64";
  case NpyType::F16:
    return "float16";
  case NpyType::BF16:
    return "bfloat16";
  case NpyType::I64:
    return "int64";
  case NpyType::I32:
    return "int32";
  case NpyType::U8:
    return "uint8";
  }
  return "uint8";
}

std::string printType(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// The optimizer as torch.optim names its hyperparameters. `momentum`
/// decides at compile time whether SGD keeps a momentum buffer; every
/// value can change from step to step (setHyperparameters).
struct OptimizerSpec {
  std::string kind = "sgd"; // sgd, adam or adamw
  double lr = 0.01;
  double momentum = 0.0;
  double weightDecay = 0.0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  /// Parameters the step reads but does not train (requires_grad=False).
  std::vector<std::string> frozen;
};

/// Per weight, what the next step's update uses (torch.optim's param group).
struct Hyperparameters {
  double lr = 0.0;
  double momentum = 0.0;
  double dampening = 0.0;
  double weightDecay = 0.0;
  bool nesterov = false;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  bool decoupledWeightDecay = false;
};

/// The cost model's device profile named `name` (the solvers' and the
/// report's estimates).
const DeviceProfile &getProfile(const std::string &name) {
  if (const DeviceProfile *profile = findDeviceProfile(name))
    return *profile;
  std::string known;
  for (const DeviceProfile &profile : getDeviceProfiles())
    known += (known.empty() ? "" : ", ") + profile.name.str();
  throw RematError("profile '" + name + "' is no device profile remat knows (" +
                   known + ")");
}

/// The step's spec: a torch.export program (its path, or exported on demand
/// per batch) trained by `optimizer`.
ModelSpec makeModelSpec(const OptimizerSpec &optimizer) {
  ModelSpec spec;
  spec.frozenWeights = optimizer.frozen;
  spec.autodiff.optimizer = optimizer.kind;
  spec.autodiff.lr = optimizer.lr;
  spec.autodiff.momentum = optimizer.momentum;
  spec.autodiff.weightDecay = optimizer.weightDecay;
  spec.autodiff.beta1 = optimizer.beta1;
  spec.autodiff.beta2 = optimizer.beta2;
  spec.autodiff.eps = optimizer.eps;
  if (std::optional<std::string> bad = findInvalidOptimizerValue(spec.autodiff))
    throw RematError("the optimizer's " + *bad);
  return spec;
}

ByteSize parseBudget(const std::string &budget) {
  std::string error;
  std::optional<ByteSize> size = ByteSize::parse(budget, error);
  if (!size)
    throw RematError("budget '" + budget + "': " + error);
  return *size;
}

/// Why remat.plan found no way to run the batch in the budget.
std::string describeUnmetPlan(const PlanResult &plan) {
  if (plan.getSmallestBytes() == INT64_MAX) {
    for (const PlanCandidate &candidate : plan.microBatches)
      if (candidate.skipped.empty() &&
          !candidate.evaluation.notApplicable.empty())
        return "no policy applies to the step: " +
               candidate.evaluation.notApplicable;
    return "the step builds at no micro-batch";
  }
  return "the budget of " + std::to_string(plan.budgetBytes) +
         " bytes cannot hold the step at batch " + std::to_string(plan.batch) +
         " at any micro-batch (at most " +
         std::to_string(plan.maxAccumulationSteps) +
         " accumulation steps); the smallest any schedule reached is " +
         std::to_string(plan.getSmallestBytes()) + " bytes";
}

/// remat.plan's table as JSON: one row per micro-batch, largest first.
std::string writePlanJson(const PlanResult &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);
  json.array([&] {
    for (size_t i = 0; i < plan.microBatches.size(); ++i) {
      const PlanCandidate &candidate = plan.microBatches[i];
      json.object([&] {
        json.attribute("micro_batch", candidate.microBatch);
        json.attribute("accumulation_steps", candidate.accumulationSteps);
        json.attribute("chosen", plan.chosen && *plan.chosen == i);
        if (!candidate.skipped.empty()) {
          json.attribute("skipped", candidate.skipped);
          return;
        }
        const PolicyEvaluation &evaluation = candidate.evaluation;
        json.attribute("fits", candidate.fits());
        json.attribute("policy",
                       candidate.fits() ? candidate.policy->label : "");
        json.attribute("solver", evaluation.solver);
        json.attribute("bytes", evaluation.bytes);
        json.attribute("peak_bytes", evaluation.peakBytes);
        json.attribute("estimated_seconds", candidate.getSeconds());
        json.attribute("extra_time", candidate.extraTime);
        json.attribute("batch_norm",
                       stringifyBatchNormSemantics(candidate.batchNorm));
      });
    }
  });
  return text;
}

/// One training step: owns its context, the planned module and the runner.
class CompiledStep {
public:
  /// The step of the torch.export program at `programPath`, rematerialized
  /// under `budget` (when given) and planned.
  CompiledStep(const std::string &programPath, const OptimizerSpec &optimizer,
               const std::string &budget, const std::string &profileName,
               bool cpu)
      : context(makeRegistry()), profile(getProfile(profileName)) {
    // Python's other threads (remat.compile's progress) run meanwhile.
    nb::gil_scoped_release release;
    context.loadAllAvailableDialects();
    DiagnosticCollector diagnostics(context);
    ModelSpec spec = makeModelSpec(optimizer);
    spec.modelPath = programPath;
    bool returnsLoss = false;
    FailureOr<TorchScriptImport> step = buildTrainingStep(
        spec, /*batch=*/0, &context, /*weightsPath=*/"", &returnsLoss);
    if (failed(step))
      diagnostics.raise("the step could not be built");
    adopt(std::move(*step), returnsLoss);
    plan(budget, diagnostics);
    selectFunction(diagnostics);
    if (cpu)
      createRunner(diagnostics);
  }

  /// remat.plan: the fastest way to train at `batch` in `budget` bytes that
  /// `remat plan` finds (rematerialization, accumulation over k
  /// micro-batches of batch / k, or both), `programAtBatch(m)` exporting the
  /// model with its loss at micro-batch m as (path, "") or ("", why not).
  /// The step takes the whole batch; planTable() says what was weighed.
  CompiledStep(nb::callable programAtBatch, int64_t batch,
               int64_t maxAccumulationSteps, const OptimizerSpec &optimizer,
               const std::string &budget, const std::string &profileName,
               bool cpu)
      : context(makeRegistry()), profile(getProfile(profileName)) {
    ByteSize size = parseBudget(budget);
    if (size.isPercent())
      throw RematError("remat.plan needs the budget in bytes (such as "
                       "'2.5GB'), not a share of the step's peak");
    if (batch < 1 || batch > kMaxPlanBatch)
      throw RematError("batch must be between 1 and " +
                       std::to_string(kMaxPlanBatch) + ", got " +
                       std::to_string(batch));
    if (maxAccumulationSteps < 1)
      throw RematError("max_accumulation_steps must be at least 1");
    nb::gil_scoped_release release;
    context.loadAllAvailableDialects();
    DiagnosticCollector diagnostics(context);
    ModelSpec spec = makeModelSpec(optimizer);
    spec.programAtBatch =
        [&](int64_t microBatch,
            std::string &error) -> std::optional<std::string> {
      // No exception may leave: the planner is built without them.
      nb::gil_scoped_acquire acquire;
      try {
        auto [path, why] = nb::cast<std::tuple<std::string, std::string>>(
            programAtBatch(microBatch));
        if (path.empty()) {
          error = why;
          return std::nullopt;
        }
        return path;
      } catch (const std::exception &exception) {
        error = exception.what();
        return std::nullopt;
      }
    };
    CostModel costModel(profile);
    PlanOptions options;
    options.batch = batch;
    options.budgetBytes = size.getBytes();
    options.maxAccumulationSteps = maxAccumulationSteps;
    for (const char *name : {"none", "auto"}) {
      std::string error;
      options.policies.push_back({name, *SolverSpec::parse(name, error), {}});
    }
    options.remat.device = profile.name.str();
    FailureOr<PlanResult> result =
        planTrainingBatch(spec, &context, costModel, options);
    if (failed(result))
      diagnostics.raise("the step could not be planned");
    planJson = writePlanJson(*result);
    if (!result->chosen)
      throw RematError(describeUnmetPlan(*result));
    const PlanCandidate &chosen = result->microBatches[*result->chosen];
    bool returnsLoss = false;
    FailureOr<TorchScriptImport> step =
        buildPlannedStep(spec, chosen, &context, "", &returnsLoss);
    if (failed(step))
      diagnostics.raise("the chosen step could not be built");
    adopt(std::move(*step), returnsLoss);
    // As planTrainingBatch evaluated it: the same solver, the same schedule.
    RematOptions remat = options.remat;
    remat.budget = size;
    remat.solver = chosen.policy->solver;
    remat.lowerBound = false;
    for (FunctionOpInterface function : getFunctionsWithBodies(*module))
      if (failed(rematerializeFunction(function, costModel, remat)))
        diagnostics.raise("the chosen step could not be rematerialized");
    budgetBytes = size.getBytes();
    PassManager pm(&context);
    pm.addPass(createRematPlanMemoryPass());
    if (failed(pm.run(*module)))
      diagnostics.raise("the step could not be planned");
    selectFunction(diagnostics);
    if (cpu)
      createRunner(diagnostics);
  }

  /// remat.plan's table (JSON); empty for a step compiled at one batch.
  const std::string &getPlanTable() const { return planJson; }

  /// (name, role, shape, element type) of each argument, in order.
  std::vector<
      std::tuple<std::string, std::string, std::vector<int64_t>, std::string>>
  getArguments() {
    std::vector<
        std::tuple<std::string, std::string, std::vector<int64_t>, std::string>>
        arguments;
    for (BlockArgument argument : function.getArguments()) {
      auto type = cast<RankedTensorType>(argument.getType());
      ArgumentRole role = getArgumentRole(function, argument.getArgNumber())
                              .value_or(ArgumentRole::Input);
      arguments.emplace_back(getValueName(argument),
                             stringifyArgumentRole(role).str(),
                             std::vector<int64_t>(type.getShape()),
                             printType(type.getElementType()));
    }
    return arguments;
  }

  /// Runs one step over (address, shape, element type) buffers, one per
  /// argument, checking the plan as it goes with `check`; returns the
  /// step's scalar results by name.
  std::map<std::string, double>
  run(const std::vector<
          std::tuple<uintptr_t, std::vector<int64_t>, std::string>> &buffers,
      bool check) {
    std::vector<ArgumentBuffer> arguments;
    for (const auto &[address, shape, element] : buffers)
      arguments.push_back({reinterpret_cast<void *>(address), shape,
                           parseElementType(element)});
    DiagnosticCollector diagnostics(context);
    FailureOr<std::vector<NamedArray>> scalars;
    {
      if (!runner)
        throw RematError("this step runs on CUDA tensors, not the CPU");
      nb::gil_scoped_release release;
      scalars = runner->runStep(arguments, check);
    }
    if (failed(scalars))
      diagnostics.raise("the step failed");
    std::map<std::string, double> values;
    for (const NamedArray &scalar : *scalars)
      values[scalar.name] = readScalar(scalar.array);
    return values;
  }

  /// Sets the hyperparameters of the update of the weight named `weight`
  /// (every optimizer op whose parameter is that argument).
  void setHyperparameters(const std::string &weight,
                          const Hyperparameters &values) {
    Builder b(&context);
    bool found = false;
    function.walk([&](Operation *op) {
      if (!isa<nn::SgdOp, nn::AdamOp>(op) ||
          getValueName(op->getOperand(0)) != weight)
        return;
      found = true;
      if (auto sgd = dyn_cast<nn::SgdOp>(op)) {
        sgd.setLrAttr(b.getF64FloatAttr(values.lr));
        sgd.setMomentumAttr(b.getF64FloatAttr(values.momentum));
        sgd.setDampeningAttr(b.getF64FloatAttr(values.dampening));
        sgd.setWeightDecayAttr(b.getF64FloatAttr(values.weightDecay));
        sgd.setNesterovAttr(b.getBoolAttr(values.nesterov));
        return;
      }
      auto adam = cast<nn::AdamOp>(op);
      adam.setLrAttr(b.getF64FloatAttr(values.lr));
      adam.setBeta1Attr(b.getF64FloatAttr(values.beta1));
      adam.setBeta2Attr(b.getF64FloatAttr(values.beta2));
      adam.setEpsAttr(b.getF64FloatAttr(values.eps));
      adam.setWeightDecayAttr(b.getF64FloatAttr(values.weightDecay));
      adam.setDecoupledWeightDecayAttr(
          b.getBoolAttr(values.decoupledWeightDecay));
    });
    if (!found)
      throw RematError("the step updates no weight named '" + weight + "'");
  }

  /// The value the importer gave the weight or buffer argument `name`
  /// (those the model does not hold: constants computed at import) as
  /// (bytes, shape, element type).
  std::tuple<nb::bytes, std::vector<int64_t>, std::string>
  getImportedValue(const std::string &name) const {
    auto found = importedValues.find(name);
    if (found == importedValues.end())
      throw RematError("the importer gave no value for '" + name + "'");
    const NpyArray &array = found->second;
    return {nb::bytes(array.data.data(), array.data.size()), array.shape,
            getElementTypeName(array.type)};
  }

  /// The step's report as JSON (remat-report's keys); with `htmlPath`, also
  /// written there as one HTML page.
  std::string getReport(const std::string &htmlPath) {
    DiagnosticCollector diagnostics(context);
    FailureOr<StepReport> report =
        buildStepReport(function, CostModel(profile));
    if (failed(report))
      diagnostics.raise("the report could not be built");
    if (!htmlPath.empty()) {
      std::string error;
      FailureOr<OutputFile> file = OutputFile::create(htmlPath, error);
      if (failed(file))
        throw RematError(error);
      writeReportHtml(file->os(), *report);
      if (failed(file->commit(error)))
        throw RematError(error);
    }
    std::string json;
    llvm::raw_string_ostream os(json);
    writeReportJson(os, *report);
    return json;
  }

  nb::dict getMemory() const {
    nb::dict memory;
    memory["peak_bytes"] = peakBytes;
    memory["arena_bytes"] = arenaBytes;
    memory["argument_bytes"] = argumentBytes;
    memory["outside_arena_bytes"] =
        runner ? runner->getOutsideArenaPeakBytes() : 0;
    memory["outside_arena_op"] =
        runner ? runner->getOutsideArenaPeakOp() : std::string();
    memory["budget_bytes"] = budgetBytes;
    return memory;
  }

  /// The planned step as one CUDA source (remat-translate --emit-cuda).
  std::string getCudaSource() {
    DiagnosticCollector diagnostics(context);
    std::string text;
    llvm::raw_string_ostream os(text);
    if (failed(emitCuda(*module, os)))
      diagnostics.raise("the step has no CUDA lowering");
    return text;
  }

  std::string getMlir() {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  /// Takes the built step's module and the values the importer computed.
  void adopt(TorchScriptImport step, bool returnsLoss) {
    if (!returnsLoss)
      throw RematError("the exported program returns no scalar loss");
    module = std::move(step.module);
    for (ImportedWeight &weight : step.weights)
      importedValues[weight.name] = std::move(weight.array);
  }

  /// The planned step's one function, and its planned bytes.
  void selectFunction(DiagnosticCollector &diagnostics) {
    auto functions = module->getOps<func::FuncOp>();
    if (std::distance(functions.begin(), functions.end()) != 1)
      throw RematError("the exported program has more than one function");
    function = *functions.begin();
    FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
    if (failed(analysis))
      diagnostics.raise("the step's memory could not be analyzed");
    peakBytes = analysis->getPeakBytes();
    argumentBytes = analysis->getArgumentBytes();
    arenaBytes = getMemoryPlan(function).getArenaBytes();
  }

  /// The CPU executor's runner of the function (a step on CUDA tensors has
  /// none: the emitted step runs it).
  void createRunner(DiagnosticCollector &diagnostics) {
    FailureOr<std::unique_ptr<CpuStepRunner>> created =
        CpuStepRunner::create(function);
    if (failed(created))
      diagnostics.raise("the step cannot run on the CPU");
    runner = std::move(*created);
  }

  static double readScalar(const NpyArray &array) {
    switch (array.type) {
    case NpyType::F32: {
      float value;
      std::memcpy(&value, array.data.data(), sizeof(value));
      return value;
    }
    case NpyType::F64: {
      double value;
      std::memcpy(&value, array.data.data(), sizeof(value));
      return value;
    }
    default:
      throw RematError("the step returns a scalar that is not f32 or f64");
    }
  }

  /// Rematerializes under `budget` (when given) and plans memory.
  void plan(const std::string &budget, DiagnosticCollector &diagnostics) {
    PassManager pm(&context);
    if (budget.empty()) {
      pm.addPass(createRematPlanMemoryPass());
    } else {
      std::string error;
      std::optional<ByteSize> size = ByteSize::parse(budget, error);
      if (!size)
        throw RematError("budget '" + budget + "': " + error);
      RematOptions options;
      options.budget = *size;
      options.device = profile.name.str();
      if (!size->isPercent())
        budgetBytes = size->getBytes();
      buildRematPipeline(pm, options);
    }
    if (failed(pm.run(*module)))
      diagnostics.raise("the step could not be planned");
  }

  MLIRContext context;
  const DeviceProfile &profile;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  std::unique_ptr<CpuStepRunner> runner;
  std::map<std::string, NpyArray> importedValues;
  int64_t budgetBytes = 0;
  int64_t peakBytes = 0, argumentBytes = 0, arenaBytes = 0;
  std::string planJson;
};

} // namespace

NB_MODULE(_remat, m) {
  m.doc() = "remat's compiled half: build, plan and run a training step";
  nb::exception<RematError>(m, "Error");

  nb::class_<OptimizerSpec>(m, "OptimizerSpec")
      .def(nb::init<>())
      .def_rw("kind", &OptimizerSpec::kind)
      .def_rw("lr", &OptimizerSpec::lr)
      .def_rw("momentum", &OptimizerSpec::momentum)
      .def_rw("weight_decay", &OptimizerSpec::weightDecay)
      .def_rw("beta1", &OptimizerSpec::beta1)
      .def_rw("beta2", &OptimizerSpec::beta2)
      .def_rw("eps", &OptimizerSpec::eps)
      .def_rw("frozen", &OptimizerSpec::frozen);

  nb::class_<Hyperparameters>(m, "Hyperparameters")
      .def(nb::init<>())
      .def_rw("lr", &Hyperparameters::lr)
      .def_rw("momentum", &Hyperparameters::momentum)
      .def_rw("dampening", &Hyperparameters::dampening)
      .def_rw("weight_decay", &Hyperparameters::weightDecay)
      .def_rw("nesterov", &Hyperparameters::nesterov)
      .def_rw("beta1", &Hyperparameters::beta1)
      .def_rw("beta2", &Hyperparameters::beta2)
      .def_rw("eps", &Hyperparameters::eps)
      .def_rw("decoupled_weight_decay", &Hyperparameters::decoupledWeightDecay);

  nb::class_<CompiledStep>(m, "CompiledStep")
      .def(nb::init<const std::string &, const OptimizerSpec &,
                    const std::string &, const std::string &, bool>(),
           nb::arg("program"), nb::arg("optimizer"), nb::arg("budget"),
           nb::arg("profile"), nb::arg("cpu"))
      .def(nb::init<nb::callable, int64_t, int64_t, const OptimizerSpec &,
                    const std::string &, const std::string &, bool>(),
           nb::arg("program_at_batch"), nb::arg("batch"),
           nb::arg("max_accumulation_steps"), nb::arg("optimizer"),
           nb::arg("budget"), nb::arg("profile"), nb::arg("cpu"))
      .def("plan_table", &CompiledStep::getPlanTable)
      .def("arguments", &CompiledStep::getArguments)
      .def("run", &CompiledStep::run, nb::arg("buffers"),
           nb::arg("check") = true)
      .def("set_hyperparameters", &CompiledStep::setHyperparameters,
           nb::arg("weight"), nb::arg("values"))
      .def("imported_value", &CompiledStep::getImportedValue, nb::arg("name"))
      .def("report", &CompiledStep::getReport, nb::arg("html_path"))
      .def("memory", &CompiledStep::getMemory)
      .def("mlir", &CompiledStep::getMlir)
      .def("cuda_source", &CompiledStep::getCudaSource);
}
