//===- BlockStructure.cpp - block boundaries of a forward part ------------===//

#include "BlockStructure.h"

#include <algorithm>
#include <set>

using namespace mlir::remat;

BlockAnalysis::BlockAnalysis(const RematProblem &problem,
                             const std::vector<NodeId> &forward,
                             int64_t longSpan)
    : problem(problem), forward(forward),
      positionOf(problem.nodes.size(), -1),
      longLived(problem.values.size(), false),
      readByBackward(problem.values.size(), false),
      lastForwardRead(problem.values.size(), -1) {
  for (size_t i = 0; i < forward.size(); ++i)
    positionOf[forward[i]] = int(i);
  for (size_t id = 0; id < problem.nodes.size(); ++id) {
    const RematNode &node = problem.nodes[id];
    for (ValueId operand : node.operands) {
      if (node.phase == NodePhase::Forward)
        lastForwardRead[operand] =
            std::max(lastForwardRead[operand], positionOf[id]);
      else
        readByBackward[operand] = true;
    }
  }
  int count = int(forward.size());
  // Values defined at each forward position that a later one reads.
  std::vector<std::vector<ValueId>> starting(count);
  for (int i = 0; i < count; ++i)
    for (ValueId value : problem.nodes[forward[i]].results) {
      if (lastForwardRead[value] <= i)
        continue;
      if (lastForwardRead[value] - i > longSpan) {
        longLived[value] = true;
        continue;
      }
      starting[i].push_back(value);
    }
  // Sweep: the crossing set at position i holds values defined before i and
  // read after i, ordered by their last forward read.
  std::set<std::pair<int, ValueId>> active;
  for (int i = 0; i + 1 < count; ++i) {
    while (!active.empty() && active.begin()->first <= i)
      active.erase(active.begin());
    const RematNode &node = problem.nodes[forward[i]];
    if (active.size() > kMaxCrossing) {
      // Too much crosses to cut here: skip the position without listing
      // what crosses (which would make the sweep quadratic).
      for (ValueId value : starting[i])
        active.insert({lastForwardRead[value], value});
      continue;
    }
    bool usable = node.policy != NodePolicy::Recompute;
    Boundary boundary{i, {}, {}};
    for (auto [last, value] : active) {
      (void)last;
      if (!readByBackward[value])
        usable = false;
      boundary.crossing.push_back(value);
    }
    bool anyRead = false;
    for (ValueId value : node.results) {
      bool later = lastForwardRead[value] > i;
      if (readByBackward[value])
        anyRead = true;
      if (later && !readByBackward[value] && !longLived[value])
        usable = false;
      if (later || readByBackward[value])
        boundary.kept.push_back(value);
    }
    if (usable && anyRead) {
      for (ValueId value : boundary.crossing)
        boundary.kept.push_back(value);
      boundaries.push_back(std::move(boundary));
    }
    for (ValueId value : starting[i])
      active.insert({lastForwardRead[value], value});
  }
}

