//===- TrainingGraphs.h - seeded random training-like graphs -----*- C++ -*-===//
//
// Generates problems shaped like training steps, for property tests and
// benchmarks: a forward chain with random skip connections, a loss, and a
// backward pass that reads each forward node's input and output, with a
// small weight gradient (an output of the step) per layer. Optionally each
// layer's weight is state updated in place right after its gradient, some
// layers' outputs are read through views, and every few layers a residual
// edge joins a layer to the output of the layer that many steps back (as in
// ResNet and transformer blocks), with the matching gradient in the backward
// pass.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REMAT_TRAININGGRAPHS_H
#define REMAT_REMAT_TRAININGGRAPHS_H

#include "remat/Remat/Problem.h"

#include <cstdint>

namespace mlir::remat {

struct TrainingGraphOptions {
  /// Forward layers; the problem has about 3x as many nodes.
  int64_t layers = 10;
  /// Chance that a layer also reads an earlier layer's output (a skip).
  double skipProbability = 0.2;
  /// Activation sizes are drawn from [minBytes, maxBytes].
  int64_t minBytes = 1024;
  int64_t maxBytes = 1 << 20;
  /// Each forward layer reads its weight (a state) and an update node right
  /// after the layer's backward node writes the weight's new value (which
  /// takes no bytes), in place of returning the weight gradient.
  bool updatesInPlace = false;
  /// Chance that a layer's output is read by the next layer through a view.
  double viewProbability = 0.0;
  /// Chance that a backward node also reads a later layer's output, whose
  /// weight (with updatesInPlace) is by then updated: that output can no
  /// longer be recomputed and must be kept.
  double lateReadProbability = 0.0;
  /// Residual edges: when positive, every forward layer i that is a
  /// multiple of it (i >= residualEvery) also reads layer i - residualEvery's
  /// output. Layer i's backward node then also produces the gradient of that
  /// output (as many bytes), which layer i - residualEvery's backward node
  /// reads beside the gradient from the layer after it. 0: none.
  int64_t residualEvery = 0;
  uint64_t seed = 1;
};

/// The same options and seed always give the same problem.
RematProblem generateTrainingGraph(const TrainingGraphOptions &options);

} // namespace mlir::remat

#endif // REMAT_REMAT_TRAININGGRAPHS_H
