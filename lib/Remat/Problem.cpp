//===- Problem.cpp - the rematerialization problem, IR-free ---------------===//
//
// simulate() binds each operand to the latest instance of its producer and
// each output to the first, which is exactly how the rewriting rewires the
// IR; the resulting lifetimes go through the one memory model.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Problem.h"

#include <algorithm>
#include <limits>
#include <set>

using namespace mlir::remat;

NodeId RematProblem::addNode(std::string name, double cost,
                             const std::vector<int64_t> &resultBytes,
                             std::vector<ValueId> operands) {
  NodeId id = nodes.size();
  RematNode node;
  node.name = std::move(name);
  node.cost = cost;
  node.operands = std::move(operands);
  for (int64_t bytes : resultBytes) {
    node.results.push_back(values.size());
    values.push_back({id, bytes, 1, false});
  }
  nodes.push_back(std::move(node));
  return id;
}

std::string RematProblem::verify() const {
  for (size_t id = 0; id < nodes.size(); ++id) {
    for (ValueId operand : nodes[id].operands) {
      if (operand < 0 || static_cast<size_t>(operand) >= values.size())
        return "node " + std::to_string(id) + " reads unknown value " +
               std::to_string(operand);
      if (static_cast<size_t>(values[operand].producer) >= id)
        return "node " + std::to_string(id) + " reads value " +
               std::to_string(operand) + " defined later";
    }
    for (ValueId result : nodes[id].results)
      if (result < 0 || static_cast<size_t>(result) >= values.size() ||
          static_cast<size_t>(values[result].producer) != id)
        return "node " + std::to_string(id) + " has a foreign result";
  }
  for (size_t id = 0; id < values.size(); ++id) {
    ValueId owner = values[id].viewOf;
    if (owner < 0)
      continue;
    if (static_cast<size_t>(owner) >= values.size() ||
        values[owner].viewOf >= 0 ||
        values[owner].producer >= values[id].producer ||
        values[id].bytes != 0)
      return "value " + std::to_string(id) +
             " is a view of no earlier owning value, or has bytes";
  }
  size_t numStates = stateNames.size();
  std::vector<int64_t> writer(numStates, -1);
  for (size_t id = 0; id < nodes.size(); ++id)
    for (int32_t state : nodes[id].stateWrites) {
      if (state < 0 || static_cast<size_t>(state) >= numStates)
        return "node " + std::to_string(id) + " writes unknown state";
      if (writer[state] >= 0)
        return "state '" + stateNames[state] + "' is written twice";
      if (nodes[id].recomputable)
        return "node " + std::to_string(id) + " writes state '" +
               stateNames[state] + "' but may be recomputed";
      writer[state] = id;
    }
  for (size_t id = 0; id < nodes.size(); ++id)
    for (int32_t state : nodes[id].stateReads) {
      if (state < 0 || static_cast<size_t>(state) >= numStates)
        return "node " + std::to_string(id) + " reads unknown state";
      if (writer[state] >= 0 && static_cast<size_t>(writer[state]) < id)
        return "node " + std::to_string(id) + " reads state '" +
               stateNames[state] + "' after its update";
    }
  return "";
}

std::vector<int64_t> RematProblem::getStateDeadlines() const {
  std::vector<int64_t> writer(stateNames.size(),
                              std::numeric_limits<int64_t>::max());
  for (size_t id = 0; id < nodes.size(); ++id)
    for (int32_t state : nodes[id].stateWrites)
      writer[state] = std::min<int64_t>(writer[state], id);
  std::vector<int64_t> deadlines(nodes.size(),
                                 std::numeric_limits<int64_t>::max());
  for (size_t id = 0; id < nodes.size(); ++id)
    for (int32_t state : nodes[id].stateReads)
      deadlines[id] = std::min(deadlines[id], writer[state]);
  return deadlines;
}

double RematProblem::getTotalCost() const {
  double total = 0.0;
  for (const RematNode &node : nodes)
    total += node.cost;
  return total;
}

std::optional<NodeId> RematProblem::findByteOverflow() const {
  std::optional<int64_t> total = argumentBytes;
  for (size_t id = 0; id < nodes.size() && total; ++id) {
    total = addBytes(*total, nodes[id].workspaceBytes);
    for (ValueId result : nodes[id].results) {
      if (!total)
        break;
      const RematValue &value = values[result];
      total = addBytes(*total, value.bytes);
      if (total)
        total = addBytes(*total, std::max<int64_t>(value.alignment, 1) - 1);
    }
    if (!total)
      return static_cast<NodeId>(id);
  }
  return std::nullopt;
}

int64_t RematProblem::getPeakLowerBound() const {
  int64_t largest = 0;
  for (const RematNode &node : nodes) {
    std::set<ValueId> distinct(node.operands.begin(), node.operands.end());
    int64_t bytes = node.workspaceBytes;
    for (ValueId operand : distinct)
      bytes = addBytesSaturated(bytes, values[operand].bytes);
    for (ValueId result : node.results)
      bytes = addBytesSaturated(bytes, values[result].bytes);
    largest = std::max(largest, bytes);
  }
  return addBytesSaturated(argumentBytes, largest);
}

Schedule mlir::remat::getStartingSchedule(const RematProblem &problem) {
  Schedule schedule;
  for (size_t id = 0; id < problem.nodes.size(); ++id)
    schedule.steps.push_back(id);
  return schedule;
}

namespace {

/// Runs a schedule over a problem, step by step, into a Simulation.
class Simulator {
public:
  Simulator(const RematProblem &problem, const Schedule &schedule)
      : problem(problem), steps(schedule.steps),
        numSteps(int64_t(schedule.steps.size())) {}

  Simulation run();

private:
  /// Lays out one slot per (step, result) instance; false on an unknown node.
  bool layOutSlots();
  /// Checks and records what step `step` reads and writes.
  bool runStep(int64_t step);
  bool checkStateReads(int64_t step, const RematNode &node);
  bool readOperands(int64_t step, const RematNode &node);
  /// A returned view keeps the instance of its owner it was made from (the
  /// first instance of the view is returned) to the end.
  void extendReturnedViews();
  void collectBuffers();
  bool fail(std::string error) {
    result.error = std::move(error);
    return false;
  }

  const RematProblem &problem;
  const std::vector<NodeId> &steps;
  int64_t numSteps;
  Simulation result;
  /// The instance (step index) of each node currently read by its
  /// consumers, and its first.
  std::vector<int64_t> latest, first;
  /// The (step, result) instances, flat: step s's results are the slots
  /// [slotBegin[s], slotBegin[s + 1]) (one allocation, not one per step).
  std::vector<int64_t> slotBegin;
  /// Each value's index among its producer's results.
  std::vector<int32_t> resultIndex;
  /// Last step reading each instance.
  std::vector<int64_t> lastRead;
  /// The step that wrote each state, -1 before its update.
  std::vector<int64_t> stateWritten;
  /// For each instance of a view: the instance of its owner it was made
  /// from.
  std::vector<int64_t> viewMadeFrom;
};

} // namespace

bool Simulator::layOutSlots() {
  size_t numNodes = problem.nodes.size();
  slotBegin.assign(numSteps + 1, 0);
  for (int64_t step = 0; step < numSteps; ++step) {
    NodeId id = steps[step];
    if (id < 0 || static_cast<size_t>(id) >= numNodes)
      return fail("step " + std::to_string(step) + " runs unknown node " +
                  std::to_string(id));
    slotBegin[step + 1] = slotBegin[step] + problem.nodes[id].results.size();
  }
  resultIndex.assign(problem.values.size(), 0);
  for (const RematNode &node : problem.nodes)
    for (size_t index = 0; index < node.results.size(); ++index)
      resultIndex[node.results[index]] = int32_t(index);
  lastRead.assign(slotBegin[numSteps], -1);
  viewMadeFrom.assign(slotBegin[numSteps], -1);
  return true;
}

bool Simulator::checkStateReads(int64_t step, const RematNode &node) {
  for (int32_t state : node.stateReads)
    if (stateWritten[state] >= 0)
      return fail("step " + std::to_string(step) + " runs '" + node.name +
                  "', which reads '" + problem.stateNames[state] +
                  "' after step " + std::to_string(stateWritten[state]) +
                  " wrote its new value");
  return true;
}

bool Simulator::readOperands(int64_t step, const RematNode &node) {
  for (ValueId operand : node.operands) {
    const RematValue &value = problem.values[operand];
    int64_t instance = latest[value.producer];
    if (instance < 0)
      return fail("step " + std::to_string(step) + " runs '" + node.name +
                  "' before '" + problem.nodes[value.producer].name +
                  "', which it reads");
    size_t slot = slotBegin[instance] + resultIndex[operand];
    lastRead[slot] = step;
    if (value.viewOf >= 0 &&
        viewMadeFrom[slot] != latest[problem.values[value.viewOf].producer])
      return fail("step " + std::to_string(step) + " runs '" + node.name +
                  "', which reads a view made from an earlier instance of '" +
                  problem.nodes[problem.values[value.viewOf].producer].name +
                  "'");
  }
  return true;
}

bool Simulator::runStep(int64_t step) {
  NodeId id = steps[step];
  const RematNode &node = problem.nodes[id];
  if (!checkStateReads(step, node) || !readOperands(step, node))
    return false;
  if (++result.runs[id] > 1 && !node.recomputable)
    return fail("'" + node.name + "' runs twice but may not be recomputed");
  for (size_t index = 0; index < node.results.size(); ++index) {
    lastRead[slotBegin[step] + index] = step;
    ValueId owner = problem.values[node.results[index]].viewOf;
    viewMadeFrom[slotBegin[step] + index] =
        owner >= 0 ? latest[problem.values[owner].producer] : -1;
  }
  for (int32_t state : node.stateWrites)
    stateWritten[state] = step;
  latest[id] = step;
  if (first[id] < 0)
    first[id] = step;
  result.cost += node.cost;
  return true;
}

void Simulator::extendReturnedViews() {
  for (int64_t step = 0; step < numSteps; ++step) {
    const RematNode &node = problem.nodes[steps[step]];
    if (first[steps[step]] != step)
      continue;
    for (size_t index = 0; index < node.results.size(); ++index) {
      const RematValue &value = problem.values[node.results[index]];
      if (!value.isOutput || value.viewOf < 0)
        continue;
      int64_t instance = viewMadeFrom[slotBegin[step] + index];
      lastRead[slotBegin[instance] + resultIndex[value.viewOf]] = numSteps - 1;
    }
  }
}

void Simulator::collectBuffers() {
  result.buffers.reserve(lastRead.size());
  result.alignments.reserve(lastRead.size());
  for (int64_t step = 0; step < numSteps; ++step) {
    const RematNode &node = problem.nodes[steps[step]];
    bool isFirst = first[steps[step]] == step;
    for (size_t index = 0; index < node.results.size(); ++index) {
      const RematValue &value = problem.values[node.results[index]];
      int64_t last = lastRead[slotBegin[step] + index];
      if (isFirst && value.isOutput)
        last = numSteps - 1;
      result.buffers.push_back({value.bytes, step, last});
      result.alignments.push_back(value.alignment);
    }
  }
  for (int64_t step = 0; step < numSteps; ++step) {
    int64_t workspace = problem.nodes[steps[step]].workspaceBytes;
    if (workspace <= 0)
      continue;
    result.buffers.push_back({workspace, step, step});
    result.alignments.push_back(256);
  }
}

Simulation Simulator::run() {
  size_t numNodes = problem.nodes.size();
  result.runs.assign(numNodes, 0);
  latest.assign(numNodes, -1);
  first.assign(numNodes, -1);
  stateWritten.assign(problem.stateNames.size(), -1);
  if (!layOutSlots())
    return std::move(result);
  for (int64_t step = 0; step < numSteps; ++step)
    if (!runStep(step))
      return std::move(result);
  for (size_t id = 0; id < numNodes; ++id)
    if (result.runs[id] == 0) {
      fail("'" + problem.nodes[id].name + "' never runs");
      return std::move(result);
    }
  extendReturnedViews();
  collectBuffers();
  LiveProfile profile =
      computeLiveProfile(problem.argumentBytes, result.buffers, numSteps);
  if (profile.overflows()) {
    result.overflowStep = profile.overflowStep;
    fail("the bytes live at step " + std::to_string(profile.overflowStep) +
         " ('" + problem.nodes[steps[profile.overflowStep]].name +
         "') exceed the int64 range");
    return std::move(result);
  }
  result.liveBytes = std::move(profile.liveBytes);
  result.peakBytes = profile.peakBytes;
  result.peakStep = profile.peakStep;
  result.valid = true;
  return std::move(result);
}

Simulation mlir::remat::simulate(const RematProblem &problem,
                                 const Schedule &schedule) {
  return Simulator(problem, schedule).run();
}
