//===- CpuExecutor.h - run a training step on the CPU with ATen --*- C++ -*-===//
//
// remat-run's library: executes a function of the nn dialect with ATen CPU
// kernels, every value at its planned offset in one arena, and checks the
// plan while it runs. The interface is free of LibTorch types (inputs and
// results are .npy arrays), so that only this library includes LibTorch.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_EXECUTION_CPUEXECUTOR_H
#define REMAT_EXECUTION_CPUEXECUTOR_H

#include "remat/Execution/Npy.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>
#include <vector>

namespace mlir::remat {

struct CpuRunOptions {
  /// Seed of the counter-based generator for arguments without a file.
  uint64_t seed = 0;
  /// Directory of `<argument name>.npy` files that override the generator.
  std::string inputsDir;
  /// Class count for `label` arguments (0: from the cross entropy reading
  /// them).
  int64_t classes = 0;
  /// Warn when the function has no memory plan.
  bool warnUnplanned = true;
};

struct NamedArray {
  std::string name;
  NpyArray array;
};

struct CpuRunReport {
  std::vector<NamedArray> arguments;
  std::vector<NamedArray> results;
  bool planned = false;
  int64_t argumentBytes = 0;
  int64_t arenaBytes = 0;
  /// Arguments plus the most bytes live in the arena at once, measured.
  int64_t measuredPeakBytes = 0;
  /// The peak-memory analysis' figure, which the measured one must equal.
  int64_t analysisPeakBytes = 0;
  /// The most bytes ATen held outside the arena at once (temporaries and
  /// results before they are copied into their slots).
  int64_t outsideArenaPeakBytes = 0;
};

/// Runs `function`. Emits an error and fails on a missing or mis-shaped
/// input file, a missing weights file, an op without a kernel, or a plan
/// whose live values overlap (naming both) or whose measured peak differs
/// from the analysis. A function without a memory plan runs with plain
/// allocations, with a warning.
FailureOr<CpuRunReport> runOnCpu(FunctionOpInterface function,
                                 const CpuRunOptions &options);

} // namespace mlir::remat

#endif // REMAT_EXECUTION_CPUEXECUTOR_H
