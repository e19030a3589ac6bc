//===- StepReport.cpp - the memory and cost report of a step --------------===//
//
// Builds the report from the peak-memory analysis, the cost model and the
// memory plan, and writes it as JSON with the keys of docs/report.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Report/StepReport.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Analysis/MemoryPlan.h"
#include "remat/Analysis/ValueStorage.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::remat;

/// Names of the forward values that a backward op reads: what the step keeps
/// for its backward pass.
static std::vector<std::string> getKeptValues(const PeakMemory &analysis) {
  llvm::SetVector<Value> kept;
  for (Operation *op : analysis.getSchedule()) {
    if (getPhase(op) != Phase::Backward)
      continue;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && getPhase(producer) == Phase::Forward)
        kept.insert(operand);
    }
  }
  std::vector<std::string> names;
  for (Value value : kept)
    names.push_back(getValueName(value));
  return names;
}

/// Offsets of each value: from the function's plan if it has one.
static FailureOr<llvm::DenseMap<Value, int64_t>>
getOffsets(FunctionOpInterface function, const PeakMemory &analysis,
           int64_t &arenaBytes) {
  llvm::DenseMap<Value, int64_t> offsets;
  // The dialect verified that a planned function places every result.
  if (MemoryPlanAttr planned = getMemoryPlan(function)) {
    arenaBytes = planned.getArenaBytes();
    for (Operation *op : analysis.getSchedule()) {
      if (op->getNumResults() == 0)
        continue;
      for (auto [result, offset] :
           llvm::zip(op->getResults(), getPlacement(op).getOffsets()))
        offsets[result] = offset;
    }
    return offsets;
  }
  FailureOr<MemoryPlan> plan = planMemory(analysis);
  if (failed(plan))
    return failure();
  arenaBytes = plan->getArenaBytes();
  for (auto [index, info] : llvm::enumerate(analysis.getValues()))
    offsets[info.value] = plan->getValueOffset(index);
  return offsets;
}

/// Fills the per-op records and the compute cost; fails on mixed units.
static LogicalResult addOps(StepReport &report, FunctionOpInterface function,
                            const PeakMemory &analysis,
                            const CostModel &costModel,
                            const llvm::DenseMap<Value, int64_t> &offsets) {
  std::optional<CostUnit> unit;
  for (Operation *op : analysis.getSchedule()) {
    FailureOr<OpCost> cost = costModel.getCost(op);
    if (failed(cost))
      return failure();
    if (unit && *unit != cost->unit)
      return op->emitOpError()
             << "has a cost in " << stringifyCostUnit(cost->unit)
             << " units but earlier ops of the function are in "
             << stringifyCostUnit(*unit) << " units";
    unit = cost->unit;
    OpRecord record;
    record.name = getOpName(op).str();
    record.kind = op->getName().getStringRef().str();
    std::optional<Phase> phase = getPhase(op);
    record.phase = phase ? stringifyPhase(*phase).str() : "";
    record.flops = cost->flops;
    record.cost = cost->cost;
    record.workspaceBytes = cost->workspaceBytes;
    for (Value result : op->getResults()) {
      record.resultBytes.push_back(getTypeBytes(result.getType()).value_or(0));
      record.resultOffsets.push_back(offsets.lookup(result));
    }
    if (auto of = op->getAttrOfType<StringAttr>(attr::kRecomputeOf))
      record.recomputeOf = of.str();
    else
      report.computeCostBefore += cost->cost;
    report.computeCostAfter += cost->cost;
    report.ops.push_back(std::move(record));
  }
  report.costUnit = unit.value_or(CostUnit::Seconds);
  return success();
}

/// Lists each recomputed value once, with how many ops recompute it.
static void addRecomputed(StepReport &report) {
  llvm::StringMap<size_t> index;
  for (const OpRecord &op : report.ops) {
    if (op.recomputeOf.empty())
      continue;
    auto [it, inserted] =
        index.try_emplace(op.recomputeOf, report.recomputed.size());
    if (inserted) {
      report.recomputed.push_back(op.recomputeOf);
      report.recomputeCounts.push_back(0);
    }
    ++report.recomputeCounts[it->second];
  }
}

/// Matches each op with its step before rematerialization: from the
/// recorded positions when there are, else by order when only recomputing
/// ops were inserted; left empty when neither fits.
static void addStepsBefore(StepReport &report,
                           ArrayRef<int64_t> givenPositions) {
  size_t numBefore = report.liveBytesBefore.size();
  auto valid = [&](int64_t step) {
    return step >= 0 && size_t(step) < numBefore;
  };
  if (givenPositions.size() == report.ops.size() &&
      llvm::all_of(givenPositions, valid)) {
    for (auto [op, step] : llvm::zip(report.ops, givenPositions))
      report.stepBefore.push_back(op.recomputeOf.empty() ? step : -1);
    return;
  }
  int64_t next = 0;
  for (const OpRecord &op : report.ops)
    report.stepBefore.push_back(op.recomputeOf.empty() ? next++ : -1);
  if (size_t(next) != numBefore)
    report.stepBefore.clear();
}

/// Fills what rematerialization recorded (`remat.solve`), if it ran. The
/// cost before is not taken from it: the report's cost model (its device or
/// measured profile) may differ from the one the solve used, and the ops
/// before are the ops after less the recomputing ones (addOps).
static void addSolveOutcome(StepReport &report, FunctionOpInterface function) {
  auto solve = function->getAttrOfType<SolveRecordAttr>(attr::kSolve);
  ArrayRef<int64_t> givenPositions;
  if (solve) {
    report.budgetBytes = solve.getBudgetBytes();
    report.budgetAsTyped = solve.getBudgetTyped().str();
    report.peakBytesBefore = solve.getPeakBytesBefore();
    report.solver = solve.getSolver().str();
    report.status = solve.getStatus().str();
    if (FloatAttr bound = solve.getLowerBoundCost())
      report.lowerBoundCost = bound.getValueAsDouble();
    report.timedOut = solve.getTimedOut().getValue();
    report.fitArena = solve.getFitArena().getValue();
    if (FloatAttr seconds = solve.getSolveSeconds())
      report.solveSeconds = seconds.getValueAsDouble();
    ArrayRef<int64_t> live = solve.getLiveBytesBefore().asArrayRef();
    report.liveBytesBefore.assign(live.begin(), live.end());
    givenPositions = solve.getGivenPositions().asArrayRef();
  }
  addStepsBefore(report, givenPositions);
}

FailureOr<StepReport>
mlir::remat::buildStepReport(FunctionOpInterface function,
                             const CostModel &costModel) {
  FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
  if (failed(analysis))
    return failure();
  StepReport report;
  report.function = function.getName().str();
  report.argumentBytes = analysis->getArgumentBytes();
  report.updatedInPlaceBytes = analysis->getUpdatedArgumentBytes();
  ValueStorage storage(function);
  for (BlockArgument argument :
       function.getFunctionBody().front().getArguments())
    if (storage.getUpdate(argument))
      report.updatedInPlace.push_back(getValueName(argument));
  report.peakBytesBefore = report.peakBytesAfter = analysis->getPeakBytes();
  report.peakBreakdown = analysis->getBreakdown(analysis->getPeakStep());
  if (Operation *peakOp = analysis->getPeakOp())
    report.peakOp = getOpName(peakOp).empty()
                        ? peakOp->getName().getStringRef().str()
                        : getOpName(peakOp).str();
  FailureOr<llvm::DenseMap<Value, int64_t>> offsets =
      getOffsets(function, *analysis, report.arenaBytes);
  if (failed(offsets) ||
      failed(addOps(report, function, *analysis, costModel, *offsets)))
    return failure();
  addRecomputed(report);
  report.kept = getKeptValues(*analysis);
  report.liveBytesAfter.assign(analysis->getLiveBytes().begin(),
                               analysis->getLiveBytes().end());
  report.liveBytesBefore = report.liveBytesAfter;
  addSolveOutcome(report, function);
  return report;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

template <typename T>
static void writeOptional(llvm::json::OStream &json, StringRef key,
                          const std::optional<T> &value) {
  if (value)
    json.attribute(key, *value);
  else
    json.attribute(key, nullptr);
}

static void writeOp(llvm::json::OStream &json, const OpRecord &op,
                    CostUnit unit) {
  json.object([&] {
    json.attribute("name", op.name);
    json.attribute("kind", op.kind);
    json.attribute("phase", op.phase);
    json.attribute("flops", op.flops);
    if (unit == CostUnit::Seconds)
      json.attribute("est_seconds", op.cost);
    else
      json.attribute("est_seconds", nullptr);
    json.attribute("cost", op.cost);
    json.attribute("workspace_bytes", op.workspaceBytes);
    json.attributeArray("bytes", [&] {
      for (int64_t bytes : op.resultBytes)
        json.value(bytes);
    });
    json.attributeArray("offset", [&] {
      for (int64_t offset : op.resultOffsets)
        json.value(offset);
    });
    if (!op.recomputeOf.empty())
      json.attribute("recompute_of", op.recomputeOf);
  });
}

static void writeStringArray(llvm::json::OStream &json, StringRef key,
                             const std::vector<std::string> &values) {
  json.attributeArray(key, [&] {
    for (const std::string &value : values)
      json.value(value);
  });
}

static void writeReport(llvm::json::OStream &json, const StepReport &report) {
  json.object([&] {
    json.attribute("function", report.function);
    writeOptional(json, "budget_bytes", report.budgetBytes);
    if (report.budgetAsTyped.empty())
      json.attribute("budget", nullptr);
    else
      json.attribute("budget", report.budgetAsTyped);
    json.attribute("argument_bytes", report.argumentBytes);
    json.attribute("updated_in_place_bytes", report.updatedInPlaceBytes);
    writeStringArray(json, "updated_in_place", report.updatedInPlace);
    json.attribute("arena_bytes", report.arenaBytes);
    json.attribute("peak_bytes_before", report.peakBytesBefore);
    json.attribute("peak_bytes_after", report.peakBytesAfter);
    json.attributeObject("peak_breakdown", [&] {
      json.attribute("arguments", report.peakBreakdown.arguments);
      json.attribute("results", report.peakBreakdown.results);
      json.attribute("activations", report.peakBreakdown.activations);
      json.attribute("workspace", report.peakBreakdown.workspace);
    });
    json.attribute("cost_unit", stringifyCostUnit(report.costUnit));
    json.attribute("compute_cost_before", report.computeCostBefore);
    json.attribute("compute_cost_after", report.computeCostAfter);
    json.attribute("solver", report.solver);
    json.attribute("status", report.status);
    writeOptional(json, "lower_bound_cost", report.lowerBoundCost);
    json.attribute("solve_seconds", report.solveSeconds);
    json.attribute("timed_out", report.timedOut);
    writeStringArray(json, "kept", report.kept);
    writeStringArray(json, "recomputed", report.recomputed);
    json.attributeObject("recompute_counts", [&] {
      for (auto [name, count] :
           llvm::zip(report.recomputed, report.recomputeCounts))
        json.attribute(name, count);
    });
    json.attributeArray("ops", [&] {
      for (const OpRecord &op : report.ops)
        writeOp(json, op, report.costUnit);
    });
  });
}

void mlir::remat::writeReportJson(raw_ostream &os,
                                  ArrayRef<StepReport> reports) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  if (reports.size() == 1) {
    writeReport(json, reports.front());
  } else {
    json.array([&] {
      for (const StepReport &report : reports)
        writeReport(json, report);
    });
  }
  os << "\n";
}

std::optional<ReportFormat> mlir::remat::parseReportFormat(StringRef text) {
  if (text == "json")
    return ReportFormat::Json;
  if (text == "html")
    return ReportFormat::Html;
  return std::nullopt;
}

StringRef mlir::remat::stringifyReportFormat(ReportFormat format) {
  return format == ReportFormat::Html ? "html" : "json";
}

ReportFormat mlir::remat::getReportFormatForPath(StringRef path) {
  StringRef extension = llvm::sys::path::extension(path);
  if (extension.equals_insensitive(".html") ||
      extension.equals_insensitive(".htm"))
    return ReportFormat::Html;
  return ReportFormat::Json;
}
