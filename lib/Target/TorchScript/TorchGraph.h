//===- TorchGraph.h - TorchScript graphs ready for conversion ---*- C++ -*-===//
//
// Internal to the TorchScript importer (includes LibTorch). Prepares a
// loaded module's forward graph for conversion: inlined, with parameters and
// buffers lifted into graph inputs, non-tensor attributes and shapes folded
// into constants, in-place ops made functional, and full tensor types on
// every value.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TARGET_TORCHSCRIPT_TORCHGRAPH_H
#define REMAT_LIB_TARGET_TORCHSCRIPT_TORCHGRAPH_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <torch/script.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlir::remat::torchscript {

/// The TorchScript source position of `node` (the original Python file and
/// line when the module was saved with debug information), else `fallback`.
Location getNodeLocation(const torch::jit::Node *node, Location fallback);

/// A parameter or buffer of the module, now a graph input.
struct LiftedTensor {
  std::string name; ///< its path in the module, e.g. "layer1.0.bn1.weight"
  at::Tensor value;
  bool isBuffer = false;
};

struct PreparedGraph {
  std::shared_ptr<torch::jit::Graph> graph;
  /// The graph's inputs are the model's inputs, named by `inputNames`, then
  /// one input per entry of `lifted`, in order.
  std::vector<std::string> inputNames;
  /// The full type of each model input.
  std::vector<RankedTensorType> inputTypes;
  std::vector<LiftedTensor> lifted;
};

/// Prepares the forward method of `module` (switched to training mode) for
/// inputs of `inputTypes` (given by the option `inputTypesOption`, which
/// diagnostics name). Emits an error at `fileLoc` or at the offending
/// node's location and returns failure when the graph cannot be made
/// straight-line code with full shapes.
FailureOr<PreparedGraph> prepareGraph(torch::jit::Module &module,
                                      ArrayRef<RankedTensorType> inputTypes,
                                      StringRef inputTypesOption,
                                      Location fileLoc);

/// Prepares a graph whose inputs are typed and whose parameters and buffers
/// are already lifted (`prepared`'s fields are set): folds shapes and control
/// flow, removes mutation, lifts constant tensors (named apart from
/// `modelTensorNames`, the model's parameters and buffers) and checks that
/// the graph is straight-line code with full shapes. prepareGraph ends with
/// it; so does the import of a torch.export program.
LogicalResult finishPreparation(PreparedGraph &prepared,
                                const std::set<std::string> &modelTensorNames,
                                Location fileLoc);

/// Marks `node` as computed by the module at `path` ("layer1.0.conv1"), for
/// graphs built without TorchScript's inlined call stacks (a torch.export
/// program's); getModulePath reads it. Kept through copyMetadata.
void setModulePath(torch::jit::Node *node, const std::string &path);

/// The MLIR element type of a tensor of `type`, or null when nn has none.
Type getElementType(MLIRContext *context, c10::ScalarType type);

/// The ATen scalar type of an nn element type (the inverse of
/// getElementType), or nothing.
std::optional<c10::ScalarType> getScalarType(Type type);

} // namespace mlir::remat::torchscript

#endif // REMAT_LIB_TARGET_TORCHSCRIPT_TORCHGRAPH_H
