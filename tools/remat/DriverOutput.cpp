//===- DriverOutput.cpp - the remat driver's tables, JSON and chart -------===//

#include "DriverOutput.h"

#include "remat/Report/StepReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::driver;

static std::string describeShapes(const ModelSpec &spec) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(spec.sampleTypes, os, [&](RankedTensorType type) {
    for (int64_t dim : type.getShape())
      os << dim << "x";
    os << type.getElementType();
  });
  return text;
}

static std::string percent(double fraction) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%+.1f%%", 100.0 * fraction);
  return text;
}

static void printHeader(llvm::raw_ostream &os, const ModelSpec &spec,
                        const DeviceProfile &device) {
  os << "model " << llvm::sys::path::filename(spec.modelPath) << " ("
     << describeShapes(spec) << "), optimizer " << spec.autodiff.optimizer
     << ", device " << device.name << "\n";
}

/// The estimated samples per second of a step of `batch`, as a table cell.
static std::string formatSamplesPerSecond(int64_t batch,
                                          const PolicyEvaluation &at) {
  double rate = getSamplesPerSecond(batch, at);
  if (rate <= 0.0)
    return "-";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f", rate);
  return text;
}

/// A --max-overhead fraction as the user wrote it: 0.2 -> "20%".
static std::string formatOverhead(double maxOverhead) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g%%", 100.0 * maxOverhead);
  return text;
}

/// The --max-overhead columns of one policy's row, or their headers when
/// `result` is null.
static std::string formatWithinOverhead(const MaxBatchResult *result,
                                        double maxOverhead) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!result) {
    std::string header = "within " + formatOverhead(maxOverhead);
    os << llvm::format(" %13s %12s", header.c_str(), "samples/s");
    return text;
  }
  std::string batch = std::to_string(result->batchWithinOverhead);
  os << llvm::format(" %13s %12s", batch.c_str(),
                     formatSamplesPerSecond(result->batchWithinOverhead,
                                            result->evaluationWithinOverhead)
                         .c_str());
  return text;
}

void driver::printMaxBatchTable(llvm::raw_ostream &os, const ModelSpec &spec,
                                int64_t budgetBytes,
                                const DeviceProfile &device,
                                ArrayRef<MaxBatchResult> results,
                                std::optional<double> maxOverhead) {
  printHeader(os, spec, device);
  os << "budget " << budgetBytes << " bytes (arguments + arena)\n\n";
  int64_t noneBatch = 0;
  for (const MaxBatchResult &result : results)
    if (result.policy.label == "none")
      noneBatch = result.batch;
  os << llvm::format("%-14s %9s %8s %11s %12s %10s", "policy", "max batch",
                     "vs none", "extra time", "extra FLOPs", "samples/s");
  if (maxOverhead)
    os << formatWithinOverhead(nullptr, *maxOverhead);
  os << llvm::format(" %14s  %s\n", "bytes used", "solver");
  for (const MaxBatchResult &result : results) {
    std::string ratio = "-";
    if (noneBatch > 0)
      llvm::raw_string_ostream(ratio = "")
          << llvm::format("%.2fx", double(result.batch) / double(noneBatch));
    const PolicyEvaluation &at = result.evaluation;
    bool any = result.batch > 0;
    std::string batch =
        std::to_string(result.batch) + (result.capped ? "*" : "");
    os << llvm::format("%-14s %9s %8s %11s %12s %10s",
                       result.policy.label.c_str(), batch.c_str(),
                       ratio.c_str(), any ? percent(at.extraTime).c_str() : "-",
                       any ? percent(at.extraFlops).c_str() : "-",
                       formatSamplesPerSecond(result.batch, at).c_str());
    if (maxOverhead)
      os << formatWithinOverhead(&result, *maxOverhead);
    os << llvm::format(" %14lld  %s", (long long)(any ? at.bytes : 0),
                       at.solver.c_str());
    if (!at.notApplicable.empty())
      os << " (does not apply: " << at.notApplicable << ")";
    os << "\n";
  }
  for (const MaxBatchResult &result : results) {
    if (!result.capped)
      continue;
    os << "\n* " << result.batch
       << " is the --max-batch cap: larger batches were not tried and may "
          "fit too\n";
    break;
  }
  os << "\nextra time: estimated on the " << device.name
     << " profile; extra FLOPs: recomputed arithmetic; both against the same "
        "batch without recomputation; samples/s: the batch over the step's "
        "estimated time, recomputation included\n";
  if (maxOverhead)
    os << "within " << formatOverhead(*maxOverhead)
       << ": the largest batch whose extra time is at most that, and its "
          "samples/s\n";
}

/// A figure as JSON: null when it is not finite (JSON has no inf or NaN).
static llvm::json::Value number(double value) {
  return std::isfinite(value) ? llvm::json::Value(value)
                              : llvm::json::Value(nullptr);
}

/// A count or a rate that may be missing: null when `present` is false.
static llvm::json::Value valueOrNull(bool present, llvm::json::Value value) {
  return present ? std::move(value) : llvm::json::Value(nullptr);
}

void driver::printMaxBatchJson(llvm::raw_ostream &os, const ModelSpec &spec,
                               int64_t budgetBytes,
                               const DeviceProfile &device,
                               ArrayRef<MaxBatchResult> results,
                               std::optional<double> maxOverhead) {
  llvm::json::Array policies;
  for (const MaxBatchResult &result : results) {
    const PolicyEvaluation &at = result.evaluation;
    llvm::json::Object entry{{"policy", result.policy.label},
                             {"max_batch", result.batch},
                             {"capped", result.capped},
                             {"solver", at.solver},
                             {"status", at.status}};
    if (result.batch > 0) {
      entry["extra_time"] = number(at.extraTime);
      entry["extra_flops"] = number(at.extraFlops);
      entry["bytes"] = at.bytes;
      entry["peak_bytes"] = at.peakBytes;
    }
    entry["samples_per_second"] =
        valueOrNull(result.batch > 0, number(getSamplesPerSecond(result.batch, at)));
    int64_t within = result.batchWithinOverhead;
    entry["max_batch_within_overhead"] =
        valueOrNull(maxOverhead.has_value(), within);
    entry["samples_per_second_within_overhead"] = valueOrNull(
        maxOverhead && within > 0,
        number(getSamplesPerSecond(within, result.evaluationWithinOverhead)));
    policies.push_back(std::move(entry));
  }
  llvm::json::Object root{
      {"model", spec.modelPath},
      {"sample_shapes", describeShapes(spec)},
      {"optimizer", spec.autodiff.optimizer},
      {"device", device.name},
      {"budget_bytes", budgetBytes},
      {"max_overhead", valueOrNull(maxOverhead.has_value(),
                                   maxOverhead.value_or(0.0))},
      {"policies", std::move(policies)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

void driver::printCompileSummary(llvm::raw_ostream &os,
                                 const StepReport &report,
                                 const RematOptions &options,
                                 const DeviceProfile &device) {
  int64_t budget = report.budgetBytes.value_or(0);
  int64_t used = report.argumentBytes + report.arenaBytes;
  // The budget holds what --fit-arena says it holds.
  bool fits = (options.fitArena ? used : report.peakBytesAfter) <= budget;
  os << "remat: " << (fits ? "fits" : "does not fit") << " the budget "
     << options.budget.str();
  if (options.budget.str() != std::to_string(budget))
    os << " (" << budget << " bytes)";
  os << ": arguments " << report.argumentBytes << " + arena "
     << report.arenaBytes << " = " << used << " bytes; peak "
     << report.peakBytesBefore << " -> " << report.peakBytesAfter
     << " bytes; solver " << report.solver << " (" << report.status
     << "); extra time ";
  if (report.computeCostBefore > 0) {
    double extra = report.computeCostAfter / report.computeCostBefore - 1.0;
    // Summing the same costs in another order is not extra time.
    os << percent(std::fabs(extra) < 1e-9 ? 0.0 : extra);
  } else
    os << "-";
  os << " on " << device.name << "\n";
}

void driver::printOpsTable(llvm::raw_ostream &os, const ModelSpec &spec,
                           ArrayRef<ForwardOp> ops) {
  os << "model " << llvm::sys::path::filename(spec.modelPath) << " ("
     << describeShapes(spec) << "): " << ops.size() << " forward ops\n\n";
  size_t width = 2;
  for (const ForwardOp &op : ops)
    width = std::max(width, op.name.size());
  os << llvm::format("%-*s  %-22s %14s  %s\n", int(width), "op", "kind",
                     "result bytes", "module (output of)");
  for (const ForwardOp &op : ops) {
    std::string modules = op.modules.empty() ? "-" : op.modules.back();
    if (!op.outputOf.empty()) {
      llvm::raw_string_ostream text(modules);
      text << " (output of ";
      llvm::interleaveComma(op.outputOf, text);
      text << ")";
    }
    os << llvm::format("%-*s  %-22s %14lld  %s\n", int(width), op.name.c_str(),
                       op.kind.c_str(), (long long)op.resultBytes,
                       modules.c_str());
  }
  os << "\n--checkpoints takes an op's name or a module path (the module's "
        "output op)\n";
}

void driver::printOpsJson(llvm::raw_ostream &os, const ModelSpec &spec,
                          ArrayRef<ForwardOp> ops) {
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("model", spec.modelPath);
    json.attributeArray("ops", [&] {
      for (const ForwardOp &op : ops)
        json.object([&] {
          json.attribute("name", op.name);
          json.attribute("kind", op.kind);
          json.attribute("result_bytes", op.resultBytes);
          json.attributeArray("modules", [&] {
            for (const std::string &path : op.modules)
              json.value(path);
          });
          json.attributeArray("output_of", [&] {
            for (const std::string &path : op.outputOf)
              json.value(path);
          });
        });
    });
  });
  os << "\n";
}

void driver::printSweepTable(llvm::raw_ostream &os, const ModelSpec &spec,
                             const Policy &policy, const DeviceProfile &device,
                             ArrayRef<SweepPoint> sweep) {
  printHeader(os, spec, device);
  os << "solver " << policy.solver << "\n\n";
  os << llvm::format("%14s %8s %5s %11s %12s %14s  %s\n", "budget", "of max",
                     "fits", "extra time", "extra FLOPs", "bytes used",
                     "solver");
  int64_t high = sweep.empty() ? 1 : sweep.front().budgetBytes;
  for (const SweepPoint &point : sweep) {
    const PolicyEvaluation &at = point.evaluation;
    // Where nothing fits, the figures of the closest schedule mean little.
    os << llvm::format("%14lld %7.1f%% %5s %11s %12s %14lld  %s\n",
                       (long long)point.budgetBytes,
                       100.0 * double(point.budgetBytes) / double(high),
                       at.fits ? "yes" : "no",
                       at.fits ? percent(at.extraTime).c_str() : "-",
                       at.fits ? percent(at.extraFlops).c_str() : "-",
                       (long long)at.bytes, at.solver.c_str());
  }
}

void driver::printSweepJson(llvm::raw_ostream &os, const ModelSpec &spec,
                            const Policy &policy, const DeviceProfile &device,
                            ArrayRef<SweepPoint> sweep) {
  llvm::json::Array points;
  for (const SweepPoint &point : sweep)
    points.push_back(llvm::json::Object{
        {"budget_bytes", point.budgetBytes},
        {"fits", point.evaluation.fits},
        {"extra_time", number(point.evaluation.extraTime)},
        {"extra_flops", number(point.evaluation.extraFlops)},
        {"bytes", point.evaluation.bytes},
        {"solver", point.evaluation.solver},
        {"status", point.evaluation.status}});
  llvm::json::Object root{{"model", spec.modelPath},
                          {"shapes", describeShapes(spec)},
                          {"device", device.name},
                          {"policy", policy.solver.str()},
                          {"points", std::move(points)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

void driver::printSweepSvg(llvm::raw_ostream &os, const ModelSpec &spec,
                           const Policy &policy, ArrayRef<SweepPoint> sweep) {
  std::vector<SweepChartPoint> points;
  for (const SweepPoint &point : sweep)
    points.push_back({point.budgetBytes, point.evaluation.fits,
                      point.evaluation.extraTime, point.evaluation.solver});
  std::string title = "Extra time against budget: " +
                      llvm::sys::path::filename(spec.modelPath).str() + " (" +
                      describeShapes(spec) + "), solver " +
                      policy.solver.str();
  writeSweepSvg(os, title, points);
}

//===----------------------------------------------------------------------===//
// remat plan
//===----------------------------------------------------------------------===//

static double getPlanSamplesPerSecond(const PlanResult &plan,
                                      const PlanCandidate &candidate) {
  double seconds = candidate.getSeconds();
  return seconds > 0 ? double(plan.batch) / seconds : 0.0;
}

static std::string describeBatchNorm(BatchNormSemantics semantics) {
  return semantics == BatchNormSemantics::PerMicroBatch ? "per micro-batch"
                                                        : "full batch";
}

static void printPlanRow(llvm::raw_ostream &os, const PlanResult &plan,
                         const PlanCandidate &candidate) {
  os << llvm::format("%11lld %6lld  ", (long long)candidate.microBatch,
                     (long long)candidate.accumulationSteps);
  if (!candidate.skipped.empty()) {
    os << "skipped: " << candidate.skipped << "\n";
    return;
  }
  if (!candidate.fits()) {
    os << "nothing fits (the fewest bytes: " << candidate.evaluation.bytes
       << ", " << candidate.evaluation.solver << ")\n";
    return;
  }
  const PolicyEvaluation &at = candidate.evaluation;
  os << llvm::format("%-8s %-10s %14lld %11.4g %10.1f %11s  %s\n",
                     candidate.policy->label.c_str(), at.solver.c_str(),
                     (long long)at.bytes, at.seconds,
                     getPlanSamplesPerSecond(plan, candidate),
                     percent(candidate.extraTime).c_str(),
                     describeBatchNorm(candidate.batchNorm).c_str());
}

/// How accumulation scales a loss the model returns itself.
static std::string describeOwnLoss(StringRef reduction) {
  if (reduction == "sum")
    return "model's own loss, a sum over the batch (--loss-reduction=sum): "
           "the micro-steps' losses and gradients add up unscaled to the "
           "whole batch's";
  return "model's own loss, taken as a mean over the batch "
         "(--loss-reduction=mean): each micro-step's loss is divided by the "
         "steps, which equals the whole batch's step only for a mean; for a "
         "sum over the batch, pass --loss-reduction=sum";
}

void driver::printPlanTable(llvm::raw_ostream &os, const ModelSpec &spec,
                            const DeviceProfile &device,
                            const PlanResult &plan) {
  printHeader(os, spec, device);
  os << "batch " << plan.batch << " per optimizer step, budget "
     << plan.budgetBytes << " bytes (arguments + arena)\n\n";
  os << llvm::format("%11s %6s  %-8s %-10s %14s %11s %10s %11s  %s\n",
                     "micro-batch", "steps", "policy", "solver", "bytes used",
                     "est. s/step", "samples/s", "extra time", "batch norm");
  for (const PlanCandidate &candidate : plan.microBatches)
    printPlanRow(os, plan, candidate);
  const PlanCandidate &chosen = plan.microBatches[*plan.chosen];
  os << "\nchosen: micro-batch " << chosen.microBatch << " x "
     << chosen.accumulationSteps << " accumulation step"
     << (chosen.accumulationSteps == 1 ? "" : "s") << ", policy "
     << chosen.policy->label << ": "
     << llvm::format("%.1f", getPlanSamplesPerSecond(plan, chosen))
     << " samples/s, " << percent(chosen.extraTime)
     << " estimated time, batch norm " << describeBatchNorm(chosen.batchNorm)
     << "\n";
  os << "\nsteps: micro-steps per optimizer step (gradients summed, one "
        "update); est. s/step: the whole batch's step on the "
     << device.name
     << " profile; extra time: against the whole batch in one step "
        "without recomputation ("
     << llvm::format("%.4g", plan.idealSeconds) << " s, fitting or not)\n";
  if (plan.microBatches.back().microBatch > 1)
    os << "smaller micro-batches are not tried: more than "
       << plan.maxAccumulationSteps << " accumulation steps\n";
  if (llvm::any_of(plan.microBatches, [](const PlanCandidate &candidate) {
        return candidate.batchNorm == BatchNormSemantics::PerMicroBatch;
      }))
    os << "per micro-batch batch norm: statistics and running-statistics "
          "updates are computed over each micro-batch, so training differs "
          "from one step over the whole batch of "
       << plan.batch << "\n";
  bool accumulates =
      llvm::any_of(plan.microBatches, [](const PlanCandidate &candidate) {
        return candidate.accumulationSteps > 1 && candidate.skipped.empty();
      });
  if (plan.modelReturnsLoss && accumulates)
    os << describeOwnLoss(spec.autodiff.lossReduction) << "\n";
}

static llvm::json::Object toJson(const PlanCandidate &candidate) {
  const PolicyEvaluation &at = candidate.evaluation;
  return llvm::json::Object{{"micro_batch", candidate.microBatch},
                            {"accumulation_steps", candidate.accumulationSteps},
                            {"policy", candidate.policy->label},
                            {"solver", at.solver},
                            {"status", at.status},
                            {"bytes", at.bytes},
                            {"peak_bytes", at.peakBytes},
                            {"est_seconds_per_step", number(at.seconds)},
                            {"extra_time", number(candidate.extraTime)},
                            {"batch_norm_semantics",
                             stringifyBatchNormSemantics(candidate.batchNorm)}};
}

void driver::printPlanJson(llvm::raw_ostream &os, const ModelSpec &spec,
                           const DeviceProfile &device,
                           const PlanResult &plan) {
  llvm::json::Array candidates, notFitting;
  for (const PlanCandidate &candidate : plan.microBatches) {
    if (candidate.fits()) {
      llvm::json::Object entry = toJson(candidate);
      entry["samples_per_second"] = number(getPlanSamplesPerSecond(plan, candidate));
      candidates.push_back(std::move(entry));
      continue;
    }
    llvm::json::Object entry{
        {"micro_batch", candidate.microBatch},
        {"accumulation_steps", candidate.accumulationSteps}};
    if (candidate.skipped.empty())
      entry["smallest_bytes"] = candidate.evaluation.bytes;
    else
      entry["skipped"] = candidate.skipped;
    notFitting.push_back(std::move(entry));
  }
  llvm::json::Object chosen = toJson(plan.microBatches[*plan.chosen]);
  chosen["samples_per_second"] =
      number(getPlanSamplesPerSecond(plan, plan.microBatches[*plan.chosen]));
  llvm::json::Object root{{"model", spec.modelPath},
                          {"sample_shapes", describeShapes(spec)},
                          {"optimizer", spec.autodiff.optimizer},
                          {"device", device.name},
                          {"budget_bytes", plan.budgetBytes},
                          {"batch", plan.batch},
                          {"max_accumulation_steps", plan.maxAccumulationSteps},
                          {"ideal_seconds_per_step", number(plan.idealSeconds)},
                          {"loss_reduction",
                           valueOrNull(plan.modelReturnsLoss,
                                       spec.autodiff.lossReduction)},
                          {"candidates", std::move(candidates)},
                          {"not_fitting", std::move(notFitting)},
                          {"chosen", std::move(chosen)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}
