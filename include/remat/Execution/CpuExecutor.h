//===- CpuExecutor.h - run a training step on the CPU with ATen --*- C++ -*-===//
//
// remat-run's library: executes a function of the nn dialect with ATen CPU
// kernels for one or more steps, following the memory model (docs/design.md)
// (ValueStorage): every arena value at its planned offset in one arena,
// updated state written into its argument's buffer (which carries it to the
// next step), views as their owner's bytes reinterpreted; it checks the plan
// while it runs. The interface is free of LibTorch types (inputs and results
// are .npy arrays), so that only this library includes LibTorch.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_EXECUTION_CPUEXECUTOR_H
#define REMAT_EXECUTION_CPUEXECUTOR_H

#include "remat/Execution/Npy.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <memory>
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
  /// Steps to run (at least 1). The argument buffers carry the updated state
  /// (results marked `remat.updates`) from step to step; an input or label
  /// file of shape [M, <argument shape>...] with M >= steps gives step k its
  /// row k.
  int64_t steps = 1;
  /// Each step's learning rate, one per step (step k from 0 takes element
  /// k), set on every optimizer update (nn.sgd, nn.adam) before that step;
  /// empty: the ops' own.
  std::vector<double> learningRates;
  /// ATen's intra-op threads, set for the process from this run on (0:
  /// left as they are, ATen's default is one a core). One makes results
  /// reproducible from run to run: on several threads ATen's MKL paths were
  /// seen to round an Adam update differently from run to run under load
  /// (one half of the tensor up to 3e-4 off, in a few runs in a hundred).
  int threads = 0;
};

struct NamedArray {
  std::string name;
  NpyArray array;
  /// For a result marked `remat.updates`: the argument it updates.
  std::string updates;
};

struct CpuRunReport {
  /// The arguments' values after the last step.
  std::vector<NamedArray> arguments;
  /// The last step's results (an updated result: its argument's final value).
  std::vector<NamedArray> results;
  /// The final value of each argument a result updates, by argument name, in
  /// argument order.
  std::vector<NamedArray> finalState;
  /// Per step, the single-element results that are not state updates (the
  /// loss), in result order.
  std::vector<std::vector<NamedArray>> stepScalars;
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
  /// The op whose kernel ran when they were most (its name and location).
  std::string outsideArenaPeakOp;
  /// Wall-clock seconds of the steps (arguments loaded before), kernels,
  /// copies into slots and the plan's checks together.
  double runSeconds = 0.0;
};

/// Runs `function` for `options.steps` steps. Emits an error and fails on a
/// missing or mis-shaped input file (a per-step file with fewer rows than
/// steps included), a missing weights file, an op without a kernel, or a
/// plan whose live values overlap (naming both), that places a view or an
/// updated result anywhere but its owner's bytes, or whose measured peak
/// differs from the analysis. A function without a memory plan runs with
/// plain allocations, with a warning.
FailureOr<CpuRunReport> runOnCpu(FunctionOpInterface function,
                                 const CpuRunOptions &options);

/// The caller's bytes for one argument of the step: `shape` and `type` must
/// be the argument's. The runner reads and writes them in place (updated
/// state is written into its argument's bytes) and never keeps them past a
/// step.
struct ArgumentBuffer {
  void *data = nullptr;
  std::vector<int64_t> shape;
  NpyType type = NpyType::F32;
};

/// Runs one planned function step after step over buffers the caller owns
/// (a Python user's own parameter and optimizer-state tensors): the arena
/// is allocated once and reused, the plan checked at every step as runOnCpu
/// checks it.
class CpuStepRunner {
public:
  ~CpuStepRunner();

  /// Analyzes `function` (which must outlive the runner) and allocates its
  /// arena. Emits an error and fails when the function cannot be analyzed
  /// or has an argument of an element type the executor cannot hold.
  static FailureOr<std::unique_ptr<CpuStepRunner>>
  create(FunctionOpInterface function);

  /// Runs one step on `buffers`, one per argument in order. Returns the
  /// step's single-element results that are not state updates (the loss).
  /// With `check`, checks the plan as runOnCpu does (no live values overlap,
  /// views and updates share their owner's bytes, the measured peak equals
  /// the analysis); without, only runs the kernels into the planned slots
  /// (a plan that passed one checked step places every later one the same
  /// way). Emits an error and fails on a buffer of another shape or type
  /// than its argument, a kernel's error or, checked, a broken plan.
  FailureOr<std::vector<NamedArray>>
  runStep(llvm::ArrayRef<ArgumentBuffer> buffers, bool check = true);

  /// Arguments plus the planned arena's peak, as the analysis computes it
  /// (what every step measures).
  int64_t getPeakBytes() const;
  int64_t getArenaBytes() const;
  int64_t getArgumentBytes() const;
  /// The most bytes ATen held outside the arena at once, over all steps.
  int64_t getOutsideArenaPeakBytes() const;
  /// The op whose kernel ran when they were most (its name and location).
  const std::string &getOutsideArenaPeakOp() const;

private:
  struct State;
  explicit CpuStepRunner(std::unique_ptr<State> state);
  std::unique_ptr<State> state;
};

} // namespace mlir::remat

#endif // REMAT_EXECUTION_CPUEXECUTOR_H
