//===- SegmentChoice.cpp - the checkpoint solvers' dynamic program --------===//

#include "SegmentChoice.h"

#include "SolverSupport.h"

#include <algorithm>
#include <limits>

using namespace mlir::remat;

namespace {

/// A state at a boundary: bytes held from before it, cost so far, and the
/// state it came from with the option of the segment that ends here.
struct State {
  int64_t heldBefore;
  double cost;
  int parentBoundary;
  int parentState;
  int option;
};

/// Sorts `front` by held bytes and keeps its Pareto front (fewer held bytes
/// or lower cost), thinned to `maxFront` states when that is not 0.
void pruneFront(std::vector<State> &front, size_t maxFront) {
  std::sort(front.begin(), front.end(), [](const State &a, const State &b) {
    return a.heldBefore < b.heldBefore ||
           (a.heldBefore == b.heldBefore && a.cost < b.cost);
  });
  std::vector<State> pruned;
  for (const State &state : front)
    if (pruned.empty() || state.cost < pruned.back().cost)
      pruned.push_back(state);
  if (maxFront > 1 && pruned.size() > maxFront) {
    std::vector<State> spread;
    for (size_t k = 0; k < maxFront; ++k)
      spread.push_back(pruned[k * (pruned.size() - 1) / (maxFront - 1)]);
    pruned = std::move(spread);
  }
  front = std::move(pruned);
}

} // namespace

std::optional<SegmentChoice>
mlir::remat::chooseSegments(const SegmentProgram &program, int64_t target) {
  int count = program.boundaryCount;
  // states[b + 1]: the front at boundary b (-1 is the start).
  std::vector<std::vector<State>> states(count + 1);
  states[0].push_back({0, 0.0, -2, -1, 0});
  double bestCost = std::numeric_limits<double>::infinity();
  int bestFrom = -2, bestState = -1, bestOption = 0;
  for (int from = -1; from < count; ++from) {
    std::vector<State> &front = states[from + 1];
    if (front.empty())
      continue;
    pruneFront(front, program.maxFront);
    for (int to = from + 1; to <= count; ++to) {
      int64_t own = from < 0 || to == count ? 0 : program.keptBytes(from, to);
      for (int option = 0; option < program.optionCount; ++option) {
        SegmentFacts facts = program.measure(from, to, option);
        if (!facts.valid)
          continue;
        for (size_t s = 0; s < front.size(); ++s) {
          const State &state = front[s];
          if (addBytesSaturated(state.heldBefore, facts.liveBytes) > target)
            continue;
          double cost = state.cost + facts.cost;
          if (to < count) {
            int64_t held = addBytesSaturated(
                addBytesSaturated(state.heldBefore, own), facts.heldInside);
            states[to + 1].push_back({held, cost, from, int(s), option});
          } else if (cost < bestCost) {
            bestCost = cost;
            bestFrom = from;
            bestState = int(s);
            bestOption = option;
          }
        }
      }
    }
  }
  if (bestFrom == -2)
    return std::nullopt;
  SegmentChoice choice;
  choice.cost = bestCost;
  choice.options.push_back(bestOption);
  for (int boundary = bestFrom, s = bestState; boundary >= 0;) {
    choice.kept.push_back(boundary);
    const State &state = states[boundary + 1][s];
    choice.options.push_back(state.option);
    boundary = state.parentBoundary;
    s = state.parentState;
  }
  std::reverse(choice.kept.begin(), choice.kept.end());
  std::reverse(choice.options.begin(), choice.options.end());
  return choice;
}
