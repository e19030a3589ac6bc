//===- Solvers.h - schedules under a byte budget, IR-free --------*- C++ -*-===//
//
// The solvers turn a problem and a budget into a schedule. Every result goes
// through simulate(): its peak and cost are measured, never assumed.
//
//   none         the starting order, nothing recomputed
//   segments=K   checkpoint_sequential: K forward segments cut at cut
//                vertices and balanced by cost; segment inputs kept, their
//                insides recomputed just before their backward; the last
//                segment kept whole
//   sqrt         segments with K = round(sqrt(forward nodes)) (Chen 2016)
//   marks        the user's remat.policy marks; unmarked nodes kept
//   block-checkpoints
//                torch.utils.checkpoint around each top-level block (read
//                from the module paths in the op names: blocks.N, layerK.M):
//                block outputs kept, block insides recomputed
//   heuristic    any DAG: runs the starting order and, whenever the budget
//                would be exceeded, evicts the resident value whose
//                recomputation is cheapest per byte-step of memory it frees
//                (cost / (bytes x distance to its next use)), recomputing
//                evicted values where they are read; several scores tried,
//                each with one-step recomputation (an evicted value's
//                operands held until it is read) and with chains allowed
//   chain        where the forward part is a chain of blocks between cut
//                vertices: the cheapest set of kept cut values under the
//                budget, by dynamic programming over the space segments
//                and sqrt choose from (optimal in that space)
//   blocks       any DAG with phases: block boundaries of the forward part
//                (cut vertices, and positions crossed only by long-lived
//                values plus at most two others); a DP over the chain of
//                blocks chooses kept boundaries and, per block, drop all /
//                keep all / drop only the values cheap per byte
//   search       any DAG: memory-aware reorderings of the nodes, then
//                local search around simulate() that defers nodes and
//                recomputes values across the highest step while it is
//                over the budget, then drops what recomputation it can
//   exact        Checkmate's MILP over frontier-advancing stages (node-
//                granular memory) solved by CBC, warm-started from the
//                heuristic: optimal with proof over that space, or the best
//                schedule and a proven lower bound at the work/time limit
//   auto         every applicable solver above; the cheapest schedule within
//                the budget, else the one with the smallest peak
//
// Every solver honours the marks: values of `keep` nodes are never dropped,
// values of `recompute` nodes are dropped after their phase and recomputed.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REMAT_SOLVERS_H
#define REMAT_REMAT_SOLVERS_H

#include "remat/Remat/Problem.h"
#include "remat/Remat/SolverSpec.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir::remat {

enum class SolveStatus {
  /// Proven optimal over the solver's schedule space.
  Optimal,
  /// Within the budget.
  Feasible,
  /// A schedule, but over the budget.
  Infeasible,
  /// The limit ran out before any schedule was found.
  Timeout,
  /// The solver does not apply to this problem (see the message).
  NotApplicable,
};

const char *stringifySolveStatus(SolveStatus status);

struct SolverOptions;
struct SolverResult;
struct ScheduleIndex;

/// The schedules of the solvers whose choice does not depend on the budget
/// (none, marks, sqrt, segments=K, block-checkpoints), kept for one problem:
/// solving it again at another target (the pass's search for a schedule
/// that packs) neither builds nor simulates them again. Each schedule is
/// kept with its peak, its cost and, once measured, its packed bytes, not
/// its simulation (a million-node step): a later solve compares the kept
/// figures and simulates in full only the schedule it keeps. Also keeps the
/// problem's schedule index, which every schedule build reads and none
/// changes. Safe to share between threads.
class FixedSchedules {
public:
  explicit FixedSchedules(const RematProblem &problem);
  ~FixedSchedules();

  /// The result of the solver `key` at `options`' budget: from its kept
  /// schedule and figures (a brief simulation: see
  /// SolverResult::briefSimulation), else from `solveOnce()`, whose schedule
  /// is then kept. Solves directly for a problem other than the one this
  /// was made for.
  SolverResult get(const RematProblem &problem, const std::string &key,
                   const SolverOptions &options,
                   const std::function<SolverResult()> &solveOnce);

  /// Keeps the packed bytes (getPackedBytes) of the kept schedule `key`.
  void notePackedBytes(const RematProblem &problem, const std::string &key,
                       int64_t packedBytes);

  /// The schedule index of `problem`: built once for the problem this was
  /// made for, anew for another.
  std::shared_ptr<const ScheduleIndex> getIndex(const RematProblem &problem);

private:
  struct Kept;
  const RematProblem *problem;
  std::unique_ptr<Kept> kept;
};

struct SolverOptions {
  int64_t budgetBytes = 0;
  /// Search steps a solver may take (0: the solver's default). Results are
  /// deterministic for a given work limit.
  int64_t workLimit = 0;
  /// Wall-clock cap in seconds (0, or 1e9 and more: none). A solve it cuts
  /// short may differ from run to run; the result says so.
  double timeLimitSeconds = 0.0;
  /// `auto` bounds its choice from below with the stage MILP's LP relaxation
  /// (builds with CBC, problems up to the MILP's size limit; about 0.1 s
  /// for 20 nodes, 1 s for 100).
  bool autoLpBound = true;
  /// The budget is to hold the arguments plus the arena the schedule's
  /// buffers pack into (packOffsets), not only the peak: the pass's
  /// fit-arena. Solvers still report their status against the peak; the
  /// search prefers schedules that pack within the budget, and `auto` keeps
  /// the search's schedule where it packs within the budget, or the best of
  /// the others does not fit at all.
  bool fitArena = false;
  /// `auto` runs its independent solvers, and `heuristic` its eight
  /// builds, at the same time, on as many threads as the machine has; the
  /// result is the same either way.
  bool parallel = true;
  /// Called with a line of progress when a solve runs longer than a second.
  std::function<void(const std::string &)> progress;
  /// Where set, `auto` takes the budget-independent solvers' schedules from
  /// here: a caller solving one problem at several targets sets it once.
  std::shared_ptr<FixedSchedules> fixedSchedules;
};

struct SolverResult {
  std::string solver;
  SolveStatus status = SolveStatus::NotApplicable;
  /// Why the solver does not apply, or other notes.
  std::string message;
  Schedule schedule;
  Simulation simulation;
  std::optional<double> lowerBoundCost;
  /// The smallest peak among all the schedules the solve measured: its own
  /// and, for `heuristic` and `auto`, every candidate they ran (for the
  /// unmet-budget message, without solving again). Unset without any.
  std::optional<int64_t> smallestPeakBytes;
  /// The time limit cut the solve short.
  bool timedOut = false;
  /// The simulation holds only its validity, peak and cost, kept from an
  /// earlier solve (FixedSchedules); completeSimulation() measures the rest.
  bool briefSimulation = false;
  /// Arguments plus the arena the schedule's buffers pack into
  /// (getPackedBytes), where measured.
  std::optional<int64_t> packedBytes;
  /// With fit-arena, `auto`'s cheapest candidate that meets the target and
  /// packs within it, where that is not this result (which then costs less
  /// but packs beyond the target). The pipeline weighs it against schedules
  /// at lower targets.
  std::shared_ptr<const SolverResult> packingAlternative;

  /// Folds `peak` (another schedule's peak, if any) into smallestPeakBytes.
  void noteSmallestPeak(std::optional<int64_t> peak) {
    if (peak && (!smallestPeakBytes || *peak < *smallestPeakBytes))
      smallestPeakBytes = peak;
  }

  bool hasSchedule() const { return simulation.valid; }
};

/// Runs the solver `spec` names.
SolverResult solve(const RematProblem &problem, const SolverSpec &spec,
                   const SolverOptions &options);

SolverResult solveNone(const RematProblem &problem,
                       const SolverOptions &options);
SolverResult solveSegments(const RematProblem &problem, int64_t segments,
                           const SolverOptions &options);
SolverResult solveSqrt(const RematProblem &problem,
                       const SolverOptions &options);
SolverResult solveMarks(const RematProblem &problem,
                        const SolverOptions &options);
SolverResult solveHeuristic(const RematProblem &problem,
                            const SolverOptions &options);
/// Checkpoints at every top-level block's output, the blocks read from the
/// op names (BlockCheckpointSolver.cpp); not applicable without two blocks.
SolverResult solveBlockCheckpoints(const RematProblem &problem,
                                   const SolverOptions &options);
/// The best of the solvers that need no MILP (none, marks, sqrt, segments
/// (K = 2..16), block-checkpoints, chain, blocks, heuristic, then search from
/// the best of those); then, where the exact solver is built in and the
/// problem is small enough for its MILP, that MILP's LP relaxation bounds the
/// result from below (optimal when the bound meets it).
SolverResult solveAuto(const RematProblem &problem,
                       const SolverOptions &options);
/// The best of the solvers that need no MILP: `auto` without the bound.
SolverResult solveWithoutMilp(const RematProblem &problem,
                              const SolverOptions &options);
/// The cheapest checkpoints among the forward cut values, by dynamic
/// programming (ChainSolver.cpp); not applicable without cut vertices.
SolverResult solveChain(const RematProblem &problem,
                        const SolverOptions &options);
/// Checkpoints and per-block options over the block structure of the
/// forward part, found on any DAG (cut vertices, and boundaries crossed only
/// by long-lived values and the residual stream), chosen by dynamic
/// programming (BlockSolver.cpp); not applicable without boundaries.
SolverResult solveBlocks(const RematProblem &problem,
                         const SolverOptions &options);
/// Any DAG: local search around simulate() from memory-aware reorderings
/// of the nodes and from `seed` (a schedule of another solver) when given
/// (SearchSolver.cpp); not applicable beyond 10,000 nodes.
SolverResult solveSearch(const RematProblem &problem,
                         const SolverOptions &options,
                         const Schedule *seed = nullptr);
/// Checkmate's stage MILP solved by CBC, warm-started from the best schedule
/// of solveWithoutMilp (ExactSolver.cpp); only in builds with CBC
/// (isExactSolverAvailable()).
SolverResult solveExact(const RematProblem &problem,
                        const SolverOptions &options);

/// How far the exact solver goes from a given start.
enum class MilpEffort {
  /// The LP relaxation only: a lower bound (optimal status when it meets the
  /// start), fast and deterministic.
  LpBound,
  /// Branch and bound up to the work or time limit.
  BranchAndBound,
};
/// The stage MILP warm-started from `start` (a result of any solver); keeps
/// `start`'s schedule unless CBC finds a cheaper one within the budget, and
/// adds the proven lower bound. Returns `start` unchanged where the MILP is
/// not built (no CBC, too many nodes).
SolverResult solveMilpFrom(const RematProblem &problem,
                           const SolverOptions &options,
                           const SolverResult &start, MilpEffort effort);
bool isExactSolverAvailable();

} // namespace mlir::remat

#endif // REMAT_REMAT_SOLVERS_H
