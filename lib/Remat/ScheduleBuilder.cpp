//===- ScheduleBuilder.cpp - builds schedules that recompute on demand ----===//
//
// Recomputation is iterative (an explicit stack), so chains of any length
// are fine. Values being prepared for a node are pinned and never evicted.
// Residency mirrors the memory model exactly for the IR the schedule becomes:
// a resident value with a later read is live, an evicted one died at its
// last read, and outputs live to the end.
//
//===----------------------------------------------------------------------===//

#include "ScheduleBuilder.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir::remat;

/// Lists of items per value from `forEachPair(add)`, which calls add(value,
/// item) for each pair in list order: counted first, then filled.
template <typename T, typename ForEachPair>
static void fillLists(size_t numValues, std::vector<int64_t> &begin,
                      std::vector<T> &items, ForEachPair forEachPair) {
  begin.assign(numValues + 1, 0);
  forEachPair([&](ValueId value, T) { ++begin[value + 1]; });
  for (size_t value = 0; value < numValues; ++value)
    begin[value + 1] += begin[value];
  items.resize(begin[numValues]);
  std::vector<int64_t> next(begin.begin(), begin.end() - 1);
  forEachPair([&](ValueId value, T item) { items[next[value]++] = item; });
}

/// Starting positions of the nodes reading each value, ascending.
static ListPerValue<int64_t> getReaders(const RematProblem &problem) {
  ListPerValue<int64_t> readers;
  fillLists<int64_t>(
      problem.values.size(), readers.begin, readers.items, [&](auto add) {
        // A node that reads a value twice reads it once here.
        std::vector<int64_t> last(problem.values.size(), -1);
        for (size_t id = 0; id < problem.nodes.size(); ++id)
          for (ValueId operand : problem.nodes[id].operands)
            if (last[operand] != static_cast<int64_t>(id)) {
              last[operand] = id;
              add(operand, static_cast<int64_t>(id));
            }
      });
  return readers;
}

static ListPerValue<ValueId> getViews(const RematProblem &problem) {
  ListPerValue<ValueId> views;
  fillLists<ValueId>(problem.values.size(), views.begin, views.items,
                     [&](auto add) {
                       for (const RematNode &node : problem.nodes)
                         for (ValueId result : node.results)
                           if (ValueId owner = problem.values[result].viewOf;
                               owner >= 0)
                             add(owner, result);
                     });
  return views;
}

ScheduleIndex::ScheduleIndex(const RematProblem &problem)
    : reads(getReaders(problem)), viewsOf(getViews(problem)),
      recoverable(problem.values.size(), false),
      recoverableUntil(problem.values.size(),
                       std::numeric_limits<int64_t>::max()) {
  for (size_t id = 0; id < problem.nodes.size(); ++id) {
    const RematNode &node = problem.nodes[id];
    // A value can always be brought back when its producer may run again
    // and everything that producer reads can be brought back too.
    bool operandsRecoverable =
        std::all_of(node.operands.begin(), node.operands.end(),
                    [&](ValueId operand) { return recoverable[operand]; });
    for (ValueId result : node.results)
      recoverable[result] = node.recomputable && operandsRecoverable;
  }
  // Recomputing a value may need its producer and, when chains are allowed,
  // the producers of its operands: none of them may run after an update of
  // state it reads.
  std::vector<int64_t> deadlines = problem.getStateDeadlines();
  for (size_t id = 0; id < problem.nodes.size(); ++id) {
    const RematNode &node = problem.nodes[id];
    int64_t until = deadlines[id];
    for (ValueId operand : node.operands)
      until = std::min(until, recoverableUntil[operand]);
    for (ValueId result : node.results)
      recoverableUntil[result] = until;
  }
}

ScheduleBuilder::ScheduleBuilder(const RematProblem &problem)
    : ScheduleBuilder(problem, std::make_shared<const ScheduleIndex>(problem)) {
}

ScheduleBuilder::ScheduleBuilder(const RematProblem &problem,
                                 std::shared_ptr<const ScheduleIndex> shared)
    : problem(problem), index(std::move(shared)), reads(index->reads),
      viewsOf(index->viewsOf), recoverable(index->recoverable),
      recoverableUntil(index->recoverableUntil),
      readCursor(problem.values.size(), 0), heldFor(problem.values.size()),
      discarded(problem.values.size(), false),
      resident(problem.values.size(), false), pins(problem.values.size(), 0),
      firstDone(problem.nodes.size(), false),
      residentIndex(problem.values.size(), -1),
      stamps(problem.values.size(), 0), touched(problem.values.size(), false),
      heldUntil(problem.nodes.size()) {}

void ScheduleBuilder::setDiscarded(const std::vector<bool> &values) {
  discarded = values;
  computeCheckpointHolds();
}

/// A checkpoint (a `keep` node's result) is never recomputed, so it must
/// stay resident while a discarded value that depends on it, directly or
/// through other discarded values, may still be recomputed: until the last
/// read of any such value.
void ScheduleBuilder::computeCheckpointHolds() {
  checkpointHold.clear();
  releaseAt.clear();
  bool anyCheckpoint = llvm::any_of(problem.nodes, [](const RematNode &node) {
    return node.policy == NodePolicy::Keep;
  });
  if (!anyCheckpoint)
    return;
  const size_t numValues = problem.values.size();
  // needed[v]: the last node that reads v or a recomputation that needs v.
  std::vector<int64_t> needed(numValues, -1);
  for (NodeId id = problem.nodes.size(); id-- > 0;) {
    for (ValueId operand : problem.nodes[id].operands)
      needed[operand] = std::max<int64_t>(needed[operand], id);
    // Recomputing a discarded result of this node reads its operands again.
    for (ValueId result : problem.nodes[id].results)
      if (discarded[result])
        for (ValueId operand : problem.nodes[id].operands)
          needed[operand] = std::max(needed[operand], needed[result]);
  }
  checkpointHold.assign(numValues, -1);
  releaseAt.assign(problem.nodes.size(), {});
  for (ValueId value = 0; size_t(value) < numValues; ++value) {
    const RematValue &info = problem.values[value];
    if (problem.nodes[info.producer].policy != NodePolicy::Keep ||
        needed[value] < 0)
      continue;
    checkpointHold[value] = needed[value];
    releaseAt[needed[value]].push_back(value);
  }
}

void ScheduleBuilder::setBudget(int64_t budgetBytes, EvictionScore score) {
  budget = budgetBytes;
  scoreKind = score;
}

void ScheduleBuilder::setLimits(
    int64_t limit,
    std::optional<std::chrono::steady_clock::time_point> until) {
  workLimit = limit;
  deadline = until;
}

std::optional<int64_t> ScheduleBuilder::nextRead(ValueId value) {
  llvm::ArrayRef<int64_t> list = reads[value];
  size_t &cursor = readCursor[value];
  while (cursor < list.size() && list[cursor] < position)
    ++cursor;
  std::vector<int64_t> &held = heldFor[value];
  auto later = std::greater<int64_t>();
  while (!held.empty() && held.front() < position) {
    std::pop_heap(held.begin(), held.end(), later);
    held.pop_back();
  }
  std::optional<int64_t> next;
  if (cursor < list.size())
    next = list[cursor];
  if (!held.empty() && (!next || held.front() < *next))
    next = held.front();
  return next;
}

void ScheduleBuilder::setResident(ValueId value, bool isResident) {
  if (resident[value] == isResident)
    return;
  // A view is its owner's bytes: when they go, the view goes with them and
  // is made again from the owner's next instance.
  if (!isResident)
    for (ValueId view : viewsOf[value])
      setResident(view, false);
  resident[value] = isResident;
  int64_t bytes = problem.values[value].bytes;
  if (isResident) {
    residentIndex[value] = residentList.size();
    residentList.push_back(value);
    residentBytes += bytes;
    // It may be evicted, and so may the results of nodes reading it, whose
    // producers' operands are now all here (and cost less to bring back).
    touch(value);
    touchConsumers(value);
    return;
  }
  int64_t index = residentIndex[value];
  ValueId last = residentList.back();
  residentList[index] = last;
  residentIndex[last] = index;
  residentList.pop_back();
  residentIndex[value] = -1;
  residentBytes -= bytes;
  // A view that leaves no longer keeps its owner.
  if (ValueId owner = problem.values[value].viewOf; owner >= 0)
    touch(owner);
}

bool ScheduleBuilder::isEvictionCandidate(ValueId value) const {
  const RematValue &info = problem.values[value];
  return info.viewOf < 0 && info.bytes != 0 && !info.isOutput &&
         problem.nodes[info.producer].policy != NodePolicy::Keep &&
         recoverable[value];
}

void ScheduleBuilder::touch(ValueId value) {
  if (!budget || touched[value] || !resident[value] ||
      !isEvictionCandidate(value))
    return;
  touched[value] = true;
  touchedList.push_back(value);
}

void ScheduleBuilder::refreshTouched() {
  for (ValueId value : touchedList) {
    touched[value] = false;
    if (!resident[value])
      continue;
    ++work;
    std::optional<double> score = getEvictionScore(value);
    if (!score)
      continue;
    candidates.push_back({*score, value, ++stamps[value]});
    std::push_heap(candidates.begin(), candidates.end(), Later());
  }
  touchedList.clear();
  // Superseded entries pile up: sweep them out now and then (linear, and
  // rare enough to cost O(1) per push).
  if (candidates.size() > 4 * residentList.size() + 4096) {
    llvm::erase_if(candidates, [&](const Candidate &entry) {
      return entry.stamp != stamps[entry.value] || !resident[entry.value];
    });
    std::make_heap(candidates.begin(), candidates.end(), Later());
  }
}

void ScheduleBuilder::touchConsumers(ValueId value) {
  // A consumer's score depends on its operands only where evicting it holds
  // them (one-step recomputation) or its score counts their recomputation.
  if (!budget ||
      (!holdOperands && scoreKind != EvictionScore::ChainCostPerByteDistance))
    return;
  // Only nodes that have run have resident results.
  for (int64_t reader : reads[value]) {
    if (reader > position)
      break;
    ++work;
    for (ValueId result : problem.nodes[reader].results)
      touch(result);
  }
}

void ScheduleBuilder::nextReadMoved(ValueId value) {
  if (!budget)
    return;
  touch(value);
  if (ValueId owner = problem.values[value].viewOf; owner >= 0)
    touch(owner);
  touchConsumers(value);
}

bool ScheduleBuilder::mayRecomputeAtNextRead(ValueId value) {
  return recoverable[value] && mayRecomputeAt(value, nextRead(value));
}

bool ScheduleBuilder::mayRecomputeAt(ValueId value,
                                     std::optional<int64_t> next) {
  if (next && *next > recoverableUntil[value])
    return false;
  // Its views leave with it and are made again where read.
  for (ValueId view : viewsOf[value]) {
    if (!resident[view])
      continue;
    std::optional<int64_t> viewNext = nextRead(view);
    if (viewNext &&
        (!recoverable[view] ||
         problem.nodes[problem.values[view].producer].policy ==
             NodePolicy::Keep ||
         *viewNext > recoverableUntil[view]))
      return false;
  }
  return true;
}

std::optional<double> ScheduleBuilder::getEvictionScore(ValueId value) {
  // Views own no bytes (they leave with their owner), nor do updates.
  if (!isEvictionCandidate(value) || pins[value] != 0)
    return std::nullopt;
  std::optional<int64_t> next = nextRead(value);
  if (!mayRecomputeAt(value, next))
    return std::nullopt;
  const RematValue &info = problem.values[value];
  const RematNode &producer = problem.nodes[info.producer];
  double bytes = double(info.bytes);
  if (holdOperands) {
    // A value held for another's recomputation stays, and bringing this one
    // back must be one step: everything its producer reads is here.
    if (!heldFor[value].empty() && next && heldFor[value].front() <= *next)
      return std::nullopt;
    for (ValueId operand : producer.operands)
      if (!resident[operand])
        return std::nullopt;
    int64_t freed = getFreedBytes(value, next);
    if (freed <= 0)
      return std::nullopt;
    bytes = double(freed);
  }
  // A cached value nobody reads again is the first to go.
  if (!next)
    return -1.0;
  double cost = producer.cost;
  if (scoreKind == EvictionScore::ChainCostPerByteDistance)
    for (ValueId operand : producer.operands)
      if (!resident[operand])
        cost += problem.nodes[problem.values[operand].producer].cost;
  double distance = double(*next - position + 1);
  switch (scoreKind) {
  case EvictionScore::CostPerByteDistance:
  case EvictionScore::ChainCostPerByteDistance:
    return cost / (bytes * distance);
  case EvictionScore::CostPerByte:
    return cost / bytes;
  case EvictionScore::ByteDistance:
    return 1.0 / (bytes * distance);
  }
  return cost;
}

int64_t ScheduleBuilder::getFreedBytes(ValueId value,
                                       std::optional<int64_t> next) {
  int64_t freed = problem.values[value].bytes;
  for (ValueId operand : problem.nodes[problem.values[value].producer].operands) {
    if (problem.values[operand].isOutput)
      continue;
    std::optional<int64_t> operandNext = nextRead(operand);
    if (next && (!operandNext || *operandNext < *next))
      freed -= problem.values[operand].bytes;
  }
  return freed;
}

void ScheduleBuilder::evict(ValueId value) {
  std::optional<int64_t> next = nextRead(value);
  if (next && holdOperands)
    for (ValueId operand :
         problem.nodes[problem.values[value].producer].operands) {
      std::vector<int64_t> &held = heldFor[operand];
      held.push_back(*next);
      std::push_heap(held.begin(), held.end(), std::greater<int64_t>());
      heldUntil[*next].push_back(operand);
      nextReadMoved(operand);
    }
  setResident(value, false);
}

bool ScheduleBuilder::overLimits() {
  if (outOfWork || outOfTime)
    return true;
  if (workLimit > 0 && work >= workLimit) {
    outOfWork = true;
    return true;
  }
  if (deadline && (limitChecks++ & 63) == 0 &&
      std::chrono::steady_clock::now() > *deadline) {
    outOfTime = true;
    return true;
  }
  return false;
}

std::optional<ValueId> ScheduleBuilder::scanForVictim() {
  std::optional<ValueId> best;
  double bestScore = std::numeric_limits<double>::infinity();
  for (ValueId value : residentList) {
    std::optional<double> candidate = getEvictionScore(value);
    if (!candidate)
      continue;
    if (!best || *candidate < bestScore ||
        (*candidate == bestScore && value < *best)) {
      best = value;
      bestScore = *candidate;
    }
  }
  return best;
}

std::optional<ValueId> ScheduleBuilder::pickVictim() {
  refreshTouched();
  std::optional<ValueId> victim;
  while (!candidates.empty()) {
    ++work;
    Candidate top = candidates.front();
    std::pop_heap(candidates.begin(), candidates.end(), Later());
    candidates.pop_back();
    // Superseded entries, and values that left or cannot leave now (an
    // event pushes them again when they can).
    if (top.stamp != stamps[top.value] || !resident[top.value])
      continue;
    std::optional<double> now = getEvictionScore(top.value);
    if (!now)
      continue;
    // Scores only grow between the events that push entries again: a score
    // that grew since the entry was pushed goes back in its place.
    if (*now > top.score) {
      candidates.push_back({*now, top.value, ++stamps[top.value]});
      std::push_heap(candidates.begin(), candidates.end(), Later());
      continue;
    }
    victim = top.value;
    break;
  }
  if (checkVictims && scanForVictim() != victim)
    ++victimMismatches;
  return victim;
}

void ScheduleBuilder::makeRoomFor(NodeId id) {
  if (!budget)
    return;
  const RematNode &node = problem.nodes[id];
  auto need = [&] {
    int64_t bytes = problem.argumentBytes + residentBytes + node.workspaceBytes;
    for (ValueId result : node.results)
      bytes += resident[result] ? 0 : problem.values[result].bytes;
    return bytes;
  };
  while (need() > *budget) {
    if (overLimits())
      return;
    std::optional<ValueId> victim = pickVictim();
    if (!victim) {
      overBudget = true;
      return;
    }
    evict(*victim);
  }
}

void ScheduleBuilder::pin(NodeId id, int delta) {
  for (ValueId operand : problem.nodes[id].operands)
    if ((pins[operand] += delta) == 0)
      touch(operand);
}

void ScheduleBuilder::emit(NodeId id, bool recompute) {
  makeRoomFor(id);
  schedule.steps.push_back(id);
  if (static_cast<int64_t>(schedule.steps.size()) > maxSteps)
    abandoned = true;
  const RematNode &node = problem.nodes[id];
  // A recomputation makes new instances of all the node's results, also of
  // those still resident: views made from the old instances are stale.
  if (recompute)
    for (ValueId result : node.results)
      for (ValueId view : viewsOf[result])
        setResident(view, false);
  for (ValueId result : node.results) {
    // Pinned values are read by a node being prepared (a recomputation
    // reads values whose last read in the starting order has passed).
    bool live = pins[result] > 0 || nextRead(result).has_value() ||
                (!recompute && problem.values[result].isOutput);
    setResident(result, live);
  }
  firstDone[id] = true;
}

/// The first operand of `node` from `start` on that is not resident, or the
/// operand count.
static size_t findMissing(const RematNode &node,
                          const std::vector<bool> &resident, size_t start) {
  while (start < node.operands.size() && resident[node.operands[start]])
    ++start;
  return start;
}

void ScheduleBuilder::ensureResident(ValueId target) {
  // Depth-first over producers of non-resident operands. Each frame resumes
  // its scan of the operands where it left off (a concatenation of every
  // step of an unrolled recurrence has thousands), and rescans from the
  // first once at the end: pinned operands stay resident, but recomputing a
  // value makes its views stale.
  struct Frame {
    NodeId node;
    size_t nextOperand = 0;
    bool rescanned = false;
  };
  std::vector<Frame> stack = {{problem.values[target].producer}};
  pin(stack.back().node, +1);
  while (!stack.empty() && !abandoned) {
    Frame &top = stack.back();
    const RematNode &node = problem.nodes[top.node];
    top.nextOperand = findMissing(node, resident, top.nextOperand);
    if (top.nextOperand == node.operands.size() && !top.rescanned) {
      top.rescanned = true;
      top.nextOperand = findMissing(node, resident, 0);
    }
    if (top.nextOperand < node.operands.size()) {
      top.rescanned = false;
      NodeId producer = problem.values[node.operands[top.nextOperand]].producer;
      stack.push_back({producer});
      pin(producer, +1);
      continue;
    }
    NodeId id = top.node;
    emit(id, /*recompute=*/firstDone[id]);
    pin(id, -1);
    stack.pop_back();
    // Operands only this recomputation needed die after it; when chains are
    // allowed they stay cached instead, first in line for eviction, since
    // recomputing other evicted values may need them again.
    if (holdOperands)
      for (ValueId operand : problem.nodes[id].operands)
        if (resident[operand] && pins[operand] == 0 &&
            !problem.values[operand].isOutput && !nextRead(operand))
          setResident(operand, false);
  }
}

void ScheduleBuilder::releaseAfter(NodeId id) {
  const RematNode &node = problem.nodes[id];
  auto release = [&](ValueId value) {
    if (!resident[value] || problem.values[value].isOutput)
      return;
    // A checkpoint stays until the recomputations that need it are done.
    if (!checkpointHold.empty() && checkpointHold[value] > id)
      return;
    std::optional<int64_t> next = nextRead(value);
    if (!next) {
      setResident(value, false);
      return;
    }
    // A discarded value leaves when its defining phase ends and the rest of
    // its reads are in a later phase; once brought back there, it stays
    // until its last read.
    NodePhase defined = problem.nodes[problem.values[value].producer].phase;
    if (discarded[value] && mayRecomputeAtNextRead(value) &&
        defined != NodePhase::Unknown && node.phase == defined &&
        problem.nodes[*next].phase != defined)
      setResident(value, false);
  };
  for (ValueId operand : node.operands)
    release(operand);
  for (ValueId result : node.results)
    release(result);
  if (!releaseAt.empty())
    for (ValueId value : releaseAt[id])
      if (pins[value] == 0)
        release(value);
}

void ScheduleBuilder::processNode(NodeId id) {
  pin(id, +1);
  // Bringing one operand back can make a view among the others stale (its
  // owner's producer ran again): repeat until all are resident.
  for (bool complete = false; !complete && !abandoned;) {
    complete = true;
    for (ValueId operand : problem.nodes[id].operands)
      if (!resident[operand]) {
        ensureResident(operand);
        complete = false;
      }
  }
  emit(id, /*recompute=*/firstDone[id]);
  pin(id, -1);
  ++position;
  // The build passed this node: its operands' next reads moved, and so did
  // those of values held for recomputations here.
  for (ValueId operand : problem.nodes[id].operands)
    nextReadMoved(operand);
  std::vector<ValueId> held = std::move(heldUntil[id]);
  for (ValueId value : held)
    nextReadMoved(value);
  releaseAfter(id);
}

Schedule ScheduleBuilder::build() {
  schedule.steps.clear();
  position = 0;
  // Recomputation that snowballs (evicting what the next recomputation
  // needs) is abandoned past this many steps.
  maxSteps = 16 * static_cast<int64_t>(problem.nodes.size()) + 1024;
  for (size_t id = 0; id < problem.nodes.size() && !abandoned; ++id) {
    position = id;
    processNode(id);
  }
  return schedule;
}
