//===- BlockStructure.h - block boundaries of a forward part ----*- C++ -*-===//
//
// Internal to lib/Remat: where the forward part of a step can be cut into
// blocks for checkpointing. `blocks` chooses among all the boundaries found
// here; `chain` among the pure cut vertices (boundaries nothing crosses) of
// the analysis without long-lived values.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_REMAT_BLOCKSTRUCTURE_H
#define REMAT_LIB_REMAT_BLOCKSTRUCTURE_H

#include "remat/Remat/Problem.h"

#include <cstddef>
#include <vector>

namespace mlir::remat {

/// Non-long-lived values that may cross a boundary besides its own results.
constexpr size_t kMaxCrossing = 2;

struct Boundary {
  /// Forward index (into `forward`) of the node the boundary follows.
  int position;
  /// Values kept with the boundary: the node's results read later, and the
  /// non-long-lived values crossing it.
  std::vector<ValueId> kept;
  /// The crossing values (a subset of `kept`).
  std::vector<ValueId> crossing;
};

/// The forward part's structure for one choice of long-lived values: values
/// read by forward nodes more than `longSpan` positions after their own are
/// long-lived (never dropped, live everywhere); a boundary follows a node
/// that the backward reads from, and that no value crosses but long-lived
/// ones and at most kMaxCrossing others, all read by the backward too.
class BlockAnalysis {
public:
  BlockAnalysis(const RematProblem &problem, const std::vector<NodeId> &forward,
                int64_t longSpan);

  const RematProblem &problem;
  const std::vector<NodeId> &forward;
  std::vector<int> positionOf;    // node -> forward index, -1 otherwise
  std::vector<bool> longLived;    // per value
  std::vector<bool> readByBackward;
  std::vector<int> lastForwardRead; // forward index, -1 when none
  std::vector<Boundary> boundaries;
};

} // namespace mlir::remat

#endif // REMAT_LIB_REMAT_BLOCKSTRUCTURE_H
