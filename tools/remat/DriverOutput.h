//===- DriverOutput.h - the remat driver's tables, JSON and chart -*- C++ -*-===//

#ifndef REMAT_TOOLS_REMAT_DRIVEROUTPUT_H
#define REMAT_TOOLS_REMAT_DRIVEROUTPUT_H

#include "remat/Analysis/CostModel.h"
#include "remat/Driver/BatchSearch.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::remat::driver {

void printMaxBatchTable(llvm::raw_ostream &os, const ModelSpec &spec,
                        int64_t budgetBytes, const DeviceProfile &device,
                        ArrayRef<MaxBatchResult> results);
void printMaxBatchJson(llvm::raw_ostream &os, const ModelSpec &spec,
                       int64_t budgetBytes, const DeviceProfile &device,
                       ArrayRef<MaxBatchResult> results);

void printSweepTable(llvm::raw_ostream &os, const ModelSpec &spec,
                     const Policy &policy, const DeviceProfile &device,
                     ArrayRef<SweepPoint> sweep);
void printSweepJson(llvm::raw_ostream &os, const ModelSpec &spec,
                    const Policy &policy, const DeviceProfile &device,
                    ArrayRef<SweepPoint> sweep);
/// Extra estimated time against budget, one point per budget.
void printSweepSvg(llvm::raw_ostream &os, const ModelSpec &spec,
                   const Policy &policy, ArrayRef<SweepPoint> sweep);

} // namespace mlir::remat::driver

#endif // REMAT_TOOLS_REMAT_DRIVEROUTPUT_H
