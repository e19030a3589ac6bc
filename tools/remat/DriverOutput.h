//===- DriverOutput.h - the remat driver's tables, JSON and chart -*- C++ -*-===//

#ifndef REMAT_TOOLS_REMAT_DRIVEROUTPUT_H
#define REMAT_TOOLS_REMAT_DRIVEROUTPUT_H

#include "remat/Analysis/CostModel.h"
#include "remat/Driver/BatchSearch.h"
#include "remat/Driver/ForwardOps.h"
#include "remat/Driver/Plan.h"
#include "remat/Report/StepReport.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::remat::driver {

/// max-batch's answers; with `maxOverhead` (a fraction), also the largest
/// batch within it per policy.
void printMaxBatchTable(llvm::raw_ostream &os, const ModelSpec &spec,
                        int64_t budgetBytes, const DeviceProfile &device,
                        ArrayRef<MaxBatchResult> results,
                        std::optional<double> maxOverhead = std::nullopt);
void printMaxBatchJson(llvm::raw_ostream &os, const ModelSpec &spec,
                       int64_t budgetBytes, const DeviceProfile &device,
                       ArrayRef<MaxBatchResult> results,
                       std::optional<double> maxOverhead = std::nullopt);

/// The line `remat compile` ends with: whether the step fits the budget
/// (arguments + arena, or the peak without --fit-arena), the peak before and
/// after, the solver and its status, and the extra estimated time.
void printCompileSummary(llvm::raw_ostream &os, const StepReport &report,
                         const RematOptions &options,
                         const DeviceProfile &device);

/// `remat ops`: each forward op, its kind, result bytes, module and the
/// modules whose output it is.
void printOpsTable(llvm::raw_ostream &os, const ModelSpec &spec,
                   ArrayRef<ForwardOp> ops);
void printOpsJson(llvm::raw_ostream &os, const ModelSpec &spec,
                  ArrayRef<ForwardOp> ops);

void printSweepTable(llvm::raw_ostream &os, const ModelSpec &spec,
                     const Policy &policy, const DeviceProfile &device,
                     ArrayRef<SweepPoint> sweep);
void printSweepJson(llvm::raw_ostream &os, const ModelSpec &spec,
                    const Policy &policy, const DeviceProfile &device,
                    ArrayRef<SweepPoint> sweep);
/// Extra estimated time against budget, one point per budget.
void printSweepSvg(llvm::raw_ostream &os, const ModelSpec &spec,
                   const Policy &policy, ArrayRef<SweepPoint> sweep);

/// `remat plan`: per micro-batch the cheapest schedule that fits (or that
/// nothing does), its samples per second and batch-norm semantics, the
/// chosen plan, and what per-micro-batch batch norm means.
void printPlanTable(llvm::raw_ostream &os, const ModelSpec &spec,
                    const DeviceProfile &device, const PlanResult &plan);
void printPlanJson(llvm::raw_ostream &os, const ModelSpec &spec,
                   const DeviceProfile &device, const PlanResult &plan);

} // namespace mlir::remat::driver

#endif // REMAT_TOOLS_REMAT_DRIVEROUTPUT_H
