//===- TrainingGraphs.cpp - seeded random training-like graphs ------------===//
//
// Uses splitmix64 (Support/SplitMix.h) rather than <random>, so that the
// graphs are the same on every platform and standard library.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/TrainingGraphs.h"
#include "remat/Support/SplitMix.h"

using namespace mlir::remat;

namespace {
/// splitmix64: a small, portable, well-mixed generator.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() { return mixBits(state += kSplitMixIncrement); }
  /// Uniform in [low, high].
  int64_t uniform(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(next() % uint64_t(high - low + 1));
  }
  double unit() { return double(next() >> 11) / double(1ULL << 53); }

private:
  uint64_t state;
};
} // namespace

namespace {
/// Builds one graph: the forward layers in order, the loss, then the
/// backward layers in reverse, drawing from one generator in that order.
class TrainingGraphBuilder {
public:
  explicit TrainingGraphBuilder(const TrainingGraphOptions &options)
      : options(options), rng(options.seed),
        layers(std::max<int64_t>(1, options.layers)), residualGrad(layers, -1) {
  }

  RematProblem build() {
    problem.argumentBytes = rng.uniform(options.minBytes, options.maxBytes);
    for (int64_t i = 0; i < layers; ++i)
      addForwardLayer(i);
    NodeId loss = problem.addNode("loss", 1.0, {4}, nextInput);
    problem.nodes[loss].phase = NodePhase::Forward;
    ValueId grad = problem.nodes[loss].results.front();
    problem.values[grad].isOutput = true;
    for (int64_t i = layers - 1; i >= 0; --i)
      grad = addBackwardLayer(i, grad);
    problem.values[grad].isOutput = true;
    return std::move(problem);
  }

private:
  bool hasResidual(int64_t layer) const {
    return options.residualEvery > 0 && layer >= options.residualEvery &&
           layer % options.residualEvery == 0;
  }
  void addForwardLayer(int64_t i);
  /// Adds layer i's backward node (and its update), reading `grad`;
  /// returns the gradient of its input.
  ValueId addBackwardLayer(int64_t i, ValueId grad);
  void addUpdate(int64_t i, NodeId backward);

  const TrainingGraphOptions &options;
  SplitMix64 rng;
  int64_t layers;
  RematProblem problem;
  /// The gradient of each layer's output that a residual edge adds, made by
  /// the backward node of the layer reading it (-1: none).
  std::vector<ValueId> residualGrad;
  std::vector<ValueId> activation;
  std::vector<NodeId> forwardNodes;
  /// What the next layer reads: the last activation, or a view of it (and
  /// then the activation too, whose bytes the view shares).
  std::vector<ValueId> nextInput;
};
} // namespace

void TrainingGraphBuilder::addForwardLayer(int64_t i) {
  std::vector<ValueId> operands = nextInput;
  if (i > 1 && rng.unit() < options.skipProbability)
    operands.push_back(activation[rng.uniform(0, i - 2)]);
  if (hasResidual(i))
    operands.push_back(activation[i - options.residualEvery]);
  int64_t bytes = rng.uniform(options.minBytes, options.maxBytes);
  NodeId id = problem.addNode("f" + std::to_string(i),
                              double(rng.uniform(1, 100)), {bytes}, operands);
  problem.nodes[id].phase = NodePhase::Forward;
  if (options.updatesInPlace) {
    problem.nodes[id].stateReads.push_back(problem.stateNames.size());
    problem.stateNames.push_back("w" + std::to_string(i));
  }
  ValueId output = problem.nodes[id].results.front();
  activation.push_back(output);
  forwardNodes.push_back(id);
  nextInput = {output};
  if (options.viewProbability > 0 && rng.unit() < options.viewProbability) {
    NodeId view = problem.addNode("v" + std::to_string(i), 0.0, {0}, {output});
    problem.nodes[view].phase = NodePhase::Forward;
    ValueId viewValue = problem.nodes[view].results.front();
    problem.values[viewValue].viewOf = output;
    nextInput = {viewValue, output};
  }
}

ValueId TrainingGraphBuilder::addBackwardLayer(int64_t i, ValueId grad) {
  const RematNode &forward = problem.nodes[forwardNodes[i]];
  std::vector<ValueId> operands = {grad, forward.results.front()};
  operands.insert(operands.end(), forward.operands.begin(),
                  forward.operands.end());
  if (i + 1 < layers && options.lateReadProbability > 0 &&
      rng.unit() < options.lateReadProbability)
    operands.push_back(activation[rng.uniform(i + 1, layers - 1)]);
  // The gradient of this layer's output that a residual edge added.
  if (residualGrad[i] >= 0)
    operands.push_back(residualGrad[i]);
  int64_t inputBytes =
      i > 0 ? problem.values[activation[i - 1]].bytes : options.minBytes;
  std::vector<int64_t> resultBytes = {inputBytes, rng.uniform(64, 4096)};
  if (hasResidual(i))
    resultBytes.push_back(
        problem.values[activation[i - options.residualEvery]].bytes);
  double cost = 2.0 * forward.cost;
  NodeId backward =
      problem.addNode("b" + std::to_string(i), cost, resultBytes, operands);
  problem.nodes[backward].phase = NodePhase::Backward;
  if (hasResidual(i))
    residualGrad[i - options.residualEvery] =
        problem.nodes[backward].results[2];
  if (options.updatesInPlace)
    addUpdate(i, backward);
  else // The weight gradient is a result of the step.
    problem.values[problem.nodes[backward].results[1]].isOutput = true;
  return problem.nodes[backward].results[0];
}

/// The update reads the weight gradient and writes the weight in place.
void TrainingGraphBuilder::addUpdate(int64_t i, NodeId backward) {
  problem.nodes[backward].stateReads.push_back(i);
  NodeId update = problem.addNode("u" + std::to_string(i), 1.0, {0},
                                  {problem.nodes[backward].results[1]});
  problem.nodes[update].phase = NodePhase::Update;
  problem.nodes[update].recomputable = false;
  problem.nodes[update].stateReads.push_back(i);
  problem.nodes[update].stateWrites.push_back(i);
  problem.values[problem.nodes[update].results[0]].isOutput = true;
}

RematProblem
mlir::remat::generateTrainingGraph(const TrainingGraphOptions &options) {
  return TrainingGraphBuilder(options).build();
}
