//===- GraphPasses.h - the passes of graph preparation ----------*- C++ -*-===//
//
// Internal to the TorchScript importer (includes LibTorch). The passes that
// prepareGraph (PrepareGraph.cpp) runs, in the files that define them:
// folding shapes and control flow (FoldGraph.cpp), removing mutation
// (Functionalize.cpp) and computing constant tensors at import
// (ConstantSubgraphs.cpp), and the helpers they share.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TARGET_TORCHSCRIPT_GRAPHPASSES_H
#define REMAT_LIB_TARGET_TORCHSCRIPT_GRAPHPASSES_H

#include "TorchGraph.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <torch/script.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mlir::remat::torchscript {

//===----------------------------------------------------------------------===//
// Helpers (PrepareGraph.cpp)
//===----------------------------------------------------------------------===//

/// Every node of `graph` and of the blocks nested in it, in program order.
std::vector<torch::jit::Node *> getAllNodes(torch::jit::Graph &graph);

/// Whether `node` is of the qualified kind `kind` ("aten::append").
bool isKind(const torch::jit::Node *node, llvm::StringRef kind);

//===----------------------------------------------------------------------===//
// Folding shapes and control flow (FoldGraph.cpp)
//===----------------------------------------------------------------------===//

/// A tensor standing for `type` when a node is run to learn its result
/// shapes: on the meta device (no data), or zeros on the CPU for kernels
/// that have no meta implementation.
c10::optional<at::Tensor> makeExample(const c10::TensorType &type,
                                      bool onMeta);

/// Runs `node` on example inputs (every tensor input typed in full, every
/// other input a constant) and returns its outputs, or nothing. On a
/// failure of the op, its message's first line goes into `error` if given.
c10::optional<torch::jit::Stack> runOnExamples(torch::jit::Node *node,
                                               bool onMeta,
                                               std::string *error = nullptr);

/// Runs shape propagation, shape-query folding, constant propagation and
/// loop unrolling until nothing changes. Each round may fold one more
/// layer of shape checks (ViT-B/16's 12 attention blocks need more than
/// 32 rounds); the bound only guards against a pass that keeps changing.
void foldToFixpoint(std::shared_ptr<torch::jit::Graph> &graph);

//===----------------------------------------------------------------------===//
// Removing mutation (Functionalize.cpp)
//===----------------------------------------------------------------------===//

/// Whether `node` may write one of its inputs, as its schema says.
bool isInPlace(const torch::jit::Node *node);

/// Makes the mutation of lists functional where functionalizeList can.
bool functionalizeLists(torch::jit::Graph &graph);

/// Replaces the ops that make tensors of unspecified values
/// (`torch.empty`) by ones that make zeros: a program that reads those
/// values has no defined result, and the others cannot tell.
bool replaceEmpty(torch::jit::Graph &graph);

/// Makes in-place ops functional where replaceInPlace can (LibTorch's
/// passes first).
bool functionalize(std::shared_ptr<torch::jit::Graph> &graph);

/// Fails at an in-place op that is left. What is left mutates an argument:
/// the batch-norm step counter `num_batches_tracked` (read only when
/// momentum is None, which the importer rejects) is dropped; anything else
/// is an error.
LogicalResult removeMutation(std::shared_ptr<torch::jit::Graph> &graph,
                             const PreparedGraph &prepared, Location fileLoc);

//===----------------------------------------------------------------------===//
// Tensors computed at import (ConstantSubgraphs.cpp)
//===----------------------------------------------------------------------===//

/// Computes the tensors that depend on no input and no weight and replaces
/// each read of them by a constant (see ConstantSubgraphFolder). Returns
/// whether the graph changed.
bool foldConstantSubgraphs(torch::jit::Graph &graph);

/// Makes each integer or boolean buffer that no op writes a constant (token
/// type ids, position ids, boolean masks): nothing trains it and the step
/// never changes it, so what is computed from it alone folds like any
/// other constant. One an op may write, directly or through a view or a
/// list (a step counter), or whose reader's aliasing is unknown, stays an
/// argument.
void foldIntegerBuffers(torch::jit::Graph &graph, PreparedGraph &prepared);

/// Makes the constant attention masks that SDPA nodes read simple: one that
/// keeps every score goes, the causal triangle becomes `is_causal`, any
/// other boolean mask becomes additive (0 or -inf) in the query's type
/// (AttentionMasks.cpp). Returns whether the graph changed.
bool simplifyAttentionMasks(torch::jit::Graph &graph);

//===----------------------------------------------------------------------===//
// Float conversions (FloatCasts.cpp)
//===----------------------------------------------------------------------===//

/// The element types a torch.export program recorded for its values.
using RecordedTypes =
    llvm::DenseMap<const torch::jit::Value *, c10::ScalarType>;

/// Inserts an `aten::to` wherever `recorded` says that an op computes in
/// another float type than its operand has (autocast's casts, type
/// promotion), and after a normalization computed wider than its recorded
/// results.
void insertFloatCasts(torch::jit::Graph &graph, const RecordedTypes &recorded);

/// Replaces each constant tensor of rank 1 and more that an op reads: by
/// `aten::full` (nn.full) when it is a floating-point tensor of one value,
/// else by a new `buffer` argument named after the module whose code
/// computed it (`features.1.1.attn.constant`; not one of
/// `modelTensorNames`, the model's parameters and buffers), whose value
/// goes into the weights directory. (Constants of rank 0 stay: the converter reads them
/// as numbers.)
void materializeConstants(torch::jit::Graph &graph,
                          const std::set<std::string> &modelTensorNames,
                          PreparedGraph &prepared);

} // namespace mlir::remat::torchscript

#endif // REMAT_LIB_TARGET_TORCHSCRIPT_GRAPHPASSES_H
