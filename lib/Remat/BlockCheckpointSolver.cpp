//===- BlockCheckpointSolver.cpp - checkpoints at every block output ------===//
//
// The `block-checkpoints` solver: what a user gets by wrapping each of the
// model's top-level blocks in torch.utils.checkpoint. The blocks are read
// from the op names, which are module paths: a forward node named
// `blocks.3.attn.query` belongs to block `blocks.3`, `layer2.1.conv1` to
// `layer2.1` (the path up to its first numeric component: an element of an
// nn.ModuleList or nn.Sequential). A block is at least two forward nodes
// in a row; the step needs two blocks. Each block's outputs (its values that
// forward nodes after the block read) are kept, every other value of the
// block is dropped after the forward and recomputed before the backward
// reads it; forward nodes outside the blocks (the embedding, the head, the
// loss) are kept, as they are by the user who checkpoints blocks only.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/Solvers.h"

#include "SolverSupport.h"

#include "llvm/ADT/StringRef.h"

using namespace mlir::remat;
using llvm::StringRef;

/// The top-level block a node's name places it in: its module path up to
/// and including the first component that is a number (`blocks.3`), or an
/// empty string for a node outside any container.
static StringRef getBlockPrefix(StringRef name) {
  size_t start = 0;
  for (bool first = true; start < name.size(); first = false) {
    size_t dot = name.find('.', start);
    StringRef component =
        name.slice(start, dot == StringRef::npos ? name.size() : dot);
    if (!first && !component.empty() &&
        component.find_first_not_of("0123456789") == StringRef::npos)
      return name.take_front(start + component.size());
    if (dot == StringRef::npos)
      break;
    start = dot + 1;
  }
  return {};
}

namespace {
/// A run of forward nodes (positions in the forward list) of one block.
struct BlockRun {
  size_t begin = 0;
  size_t end = 0; ///< One past the last.
};
} // namespace

/// The runs of consecutive forward nodes that share a block prefix; a run
/// of one node is not a block (a top-level `relu.2`: the `.2` only tells
/// names apart).
static std::vector<BlockRun> findBlockRuns(const RematProblem &problem,
                                           const std::vector<NodeId> &forward) {
  std::vector<BlockRun> runs;
  size_t i = 0;
  while (i < forward.size()) {
    StringRef prefix = getBlockPrefix(problem.nodes[forward[i]].name);
    size_t j = i + 1;
    while (!prefix.empty() && j < forward.size() &&
           getBlockPrefix(problem.nodes[forward[j]].name) == prefix)
      ++j;
    if (!prefix.empty() && j - i >= 2)
      runs.push_back({i, j});
    i = j;
  }
  return runs;
}

SolverResult mlir::remat::solveBlockCheckpoints(const RematProblem &problem,
                                                const SolverOptions &options) {
  const char *name = "block-checkpoints";
  std::vector<NodeId> forward = getForwardNodes(problem);
  if (forward.empty() || forward.size() == problem.nodes.size())
    return notApplicable(name, "the step has no forward and backward phases "
                               "(remat.phase) to checkpoint");
  std::vector<BlockRun> runs = findBlockRuns(problem, forward);
  if (runs.size() < 2)
    return notApplicable(name, "the op names show fewer than two top-level "
                               "blocks (module paths such as blocks.0.*, "
                               "layer1.0.*)");
  // The last forward position reading each value.
  std::vector<size_t> lastForwardRead(problem.values.size(), 0);
  for (size_t i = 0; i < forward.size(); ++i)
    for (ValueId operand : problem.nodes[forward[i]].operands)
      lastForwardRead[operand] = i;
  std::vector<bool> discarded = getMarkedDiscards(problem);
  for (const BlockRun &run : runs) {
    for (size_t i = run.begin; i < run.end; ++i) {
      const RematNode &node = problem.nodes[forward[i]];
      if (node.policy == NodePolicy::Keep)
        continue;
      for (ValueId result : node.results)
        if (lastForwardRead[result] < run.end)
          discarded[result] = true;
    }
  }
  // A kept view keeps the bytes it shares.
  for (size_t value = 0; value < problem.values.size(); ++value)
    for (ValueId owner = problem.values[value].viewOf;
         !discarded[value] && owner >= 0; owner = problem.values[owner].viewOf)
      discarded[owner] = false;
  return finish(problem, name,
                buildWithDiscards(problem, discarded,
                                  getScheduleIndex(problem, options)),
                options,
                std::to_string(runs.size()) + " blocks");
}
