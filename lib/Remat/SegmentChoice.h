//===- SegmentChoice.h - the checkpoint solvers' program --------*- C++ -*-===//
//
// Internal to lib/Remat: the one Pareto dynamic program that `chain` and
// `blocks` choose their checkpoints by.
//
// The forward part is cut at boundaries 0..L-1 (-1 is the start, L the
// end). A choice keeps some boundaries and treats each segment between two
// consecutive kept ones by one of a few options. What is live while a
// segment's forward and backward windows run is what it needs itself (its
// measured `liveBytes`) plus what the segments before it hold until their
// own backward; so a choice fits a target when, for every segment, the
// bytes held from before plus its live bytes stay within it. The program
// walks the boundaries in order, keeping per boundary the Pareto front of
// (bytes held from before, recomputation cost so far).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REMAT_SEGMENTCHOICE_H
#define REMAT_LIB_REMAT_SEGMENTCHOICE_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::remat {

/// One segment between two kept boundaries under one option, measured.
struct SegmentFacts {
  /// False where the option does not apply to the segment.
  bool valid = false;
  /// Bytes live in the segment's windows beyond what earlier segments hold.
  int64_t liveBytes = 0;
  /// The recomputation the segment adds.
  double cost = 0.0;
  /// Bytes of the segment's own values held until its backward, besides
  /// its end boundary's.
  int64_t heldInside = 0;
};

/// The segment program's input.
struct SegmentProgram {
  /// Boundaries L: the segments run from -1 (the start) to L (the end).
  int boundaryCount = 0;
  /// Options per segment, tried in order (the first wins a tie).
  int optionCount = 1;
  /// Pareto states kept per boundary, an even spread with both ends where
  /// there are more; 0 keeps all (the exact program).
  size_t maxFront = 0;
  /// The segment (from, to) under option `option`.
  llvm::function_ref<SegmentFacts(int from, int to, int option)> measure;
  /// Bytes that keeping boundary `from` adds to what is held past the
  /// segment (from, to) (`from` >= 0).
  llvm::function_ref<int64_t(int from, int to)> keptBytes;
};

/// A choice: the kept boundaries in order, and the option of each segment
/// (one more than the kept boundaries; the last ends at L).
struct SegmentChoice {
  std::vector<int> kept;
  std::vector<int> options;
  double cost = 0.0;
};

/// The cheapest choice whose every segment fits `target`, or nothing when
/// none does. Deterministic: on equal cost the first found wins.
std::optional<SegmentChoice> chooseSegments(const SegmentProgram &program,
                                            int64_t target);

} // namespace mlir::remat

#endif // REMAT_LIB_REMAT_SEGMENTCHOICE_H
