//===- NodeConverter.h - TorchScript nodes into nn ops ----------*- C++ -*-===//
//
// Internal to the TorchScript importer (includes LibTorch). Converts the
// nodes of a prepared graph (TorchGraph.h), in order, into nn ops in one
// block: each ATen op into the nn op that mirrors it, constants into
// attributes, in-graph tensor lists into operand lists.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TARGET_TORCHSCRIPT_NODECONVERTER_H
#define REMAT_LIB_TARGET_TORCHSCRIPT_NODECONVERTER_H

#include "TorchGraph.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat::torchscript {

struct ConvolutionCall;
struct RecurrentCall;
struct RecurrentWeights;
enum class RecurrentCell;

class NodeConverter {
public:
  /// Adds a function argument (dropout seeds) named `name` with `role`.
  using AddArgument =
      std::function<Value(Type type, llvm::StringRef name, ArgumentRole role)>;

  NodeConverter(Block *body, Location fileLoc, AddArgument addArgument);

  /// Makes `value` stand for the graph value `graphValue` (inputs).
  void map(const torch::jit::Value *graphValue, Value value);
  /// The converted value of a tensor-typed graph value, or null.
  Value lookup(const torch::jit::Value *graphValue) {
    return materialize(graphValue);
  }

  /// Converts `node` after the ops converted so far.
  LogicalResult convert(torch::jit::Node *node);

  /// An nn op the conversion created, with the path of the module whose code
  /// produced it ("" for the top-level module): the basis of its name. An op
  /// with a suffix (batch norm's running-statistics update) is named
  /// `<path>.<suffix>` and leaves the names of its module's other ops as if
  /// it were not there.
  struct CreatedOp {
    Operation *op;
    std::string modulePath;
    std::string suffix = {};
    /// Where a node makes many ops (an unrolled LSTM), the op's name after
    /// the module path in place of its kind (`l0.t3.sigmoid`).
    std::string label = {};
  };
  const std::vector<CreatedOp> &getCreatedOps() const { return createdOps; }

  /// Running statistics updated by batch norms: the argument, then the
  /// value that holds its update after the whole forward (the result of the
  /// last nn.batch_norm_update_stats that updates it).
  const llvm::MapVector<Value, Value> &getBufferUpdates() const {
    return bufferUpdates;
  }
  /// Whether `value` is used as the labels of a loss.
  bool isLabel(Value value) const { return labels.contains(value); }

private:
  using Node = torch::jit::Node;

  // Dispatch groups (ConvertNetworkOps.cpp and ConvertTensorOps.cpp). Each
  // returns std::nullopt when it does not handle the node's kind.
  std::optional<LogicalResult> convertNetworkOp(Node *node, llvm::StringRef kind);
  std::optional<LogicalResult> convertTensorOp(Node *node, llvm::StringRef kind);

  LogicalResult convertConvolution(Node *node, llvm::StringRef kind);
  LogicalResult convertGlobalAvgPool3d(Node *node);
  template <typename ConvOp, typename BackwardInputOp>
  Value createConvolution(Node *node, const ConvolutionCall &call,
                          RankedTensorType type);
  FailureOr<ConvolutionCall> getConvolutionCall(Node *node,
                                                llvm::StringRef kind);
  LogicalResult convertRecurrent(Node *node, llvm::StringRef kind);
  FailureOr<RecurrentCall> getRecurrentCall(Node *node, llvm::StringRef kind);
  LogicalResult convertBatchNorm(Node *node);
  LogicalResult convertLayerNorm(Node *node);
  LogicalResult convertGroupNorm(Node *node, bool isInstanceNorm);
  LogicalResult convertMaxPool(Node *node, bool withIndices, bool volume);
  LogicalResult convertAvgPool(Node *node, bool volume);
  LogicalResult convertLinear(Node *node);
  LogicalResult convertMatmul(Node *node);
  LogicalResult convertEinsum(Node *node);
  LogicalResult convertAddmm(Node *node);
  LogicalResult convertEmbedding(Node *node);
  LogicalResult convertSoftmax(Node *node, bool logarithmic);
  LogicalResult convertAttention(Node *node);
  LogicalResult convertMseLoss(Node *node);
  LogicalResult convertCrossEntropy(Node *node);
  LogicalResult convertDropout(Node *node);
  LogicalResult convertBernoulli(Node *node);
  /// A new seed argument for the next random op, named after its module.
  Value addSeedArgument(Node *node, llvm::StringRef kind);
  LogicalResult convertUpsample(Node *node, bool bilinear);

  LogicalResult convertUnary(Node *node, llvm::StringRef kind);
  /// A node that is one nn op (the op table's atenImport): its first
  /// `numInputs` inputs, tensors, are the op's operands.
  LogicalResult
  convertOneToOne(Node *node, unsigned numInputs,
                  Operation *(*create)(OpBuilder &, Location, ArrayRef<Value>));
  LogicalResult convertBinary(Node *node, llvm::StringRef kind);
  LogicalResult convertPow(Node *node, llvm::StringRef kind);
  LogicalResult convertReshape(Node *node);
  LogicalResult convertTranspose(Node *node, bool isT);
  LogicalResult convertPermute(Node *node);
  LogicalResult convertExpand(Node *node);
  LogicalResult convertBroadcastTensors(Node *node);
  LogicalResult convertStack(Node *node);
  LogicalResult convertRepeat(Node *node);
  LogicalResult convertConcat(Node *node);
  LogicalResult convertSlice(Node *node);
  LogicalResult convertSelect(Node *node);
  LogicalResult convertReduction(Node *node, bool isMean);
  LogicalResult convertVectorNorm(Node *node);
  /// The dims list at input `index` (None, [] or past the inputs: every
  /// dimension), made non-negative and sorted.
  FailureOr<SmallVector<int64_t>> getReducedDims(Node *node, size_t index,
                                                 int64_t rank);
  LogicalResult convertFill(Node *node, llvm::StringRef kind);
  LogicalResult convertEmpty(Node *node);
  LogicalResult convertRoll(Node *node);
  LogicalResult convertPad(Node *node, llvm::StringRef kind);
  LogicalResult convertIndex(Node *node);
  /// An nn.slice of `input` along `dim`, named after `node`'s module.
  Value createSlice(Node *node, Value input, int64_t dim, int64_t start,
                    int64_t end);
  /// An nn.concat of `pieces` along `dim`, named after `node`'s module.
  Value createConcat(Node *node, ArrayRef<Value> pieces, int64_t dim);
  LogicalResult convertSplit(Node *node, llvm::StringRef kind);
  LogicalResult convertListUnpack(Node *node);
  LogicalResult convertListIndex(Node *node);

  // Operands and constants. Each getter emits an error naming the operand
  // and fails when the node's input is not what it needs.
  FailureOr<Value> getTensor(Node *node, size_t index);
  /// The tensor at `index`, or null when the input is None.
  FailureOr<Value> getOptionalTensor(Node *node, size_t index);
  std::optional<c10::IValue> getConstant(Node *node, size_t index);
  bool isNone(Node *node, size_t index);
  FailureOr<int64_t> getInt(Node *node, size_t index);
  FailureOr<double> getDouble(Node *node, size_t index);
  FailureOr<bool> getBool(Node *node, size_t index);
  FailureOr<std::string> getString(Node *node, size_t index);
  FailureOr<SmallVector<int64_t>> getIntList(Node *node, size_t index);
  /// A dimension index normalized into [0, rank).
  FailureOr<int64_t> getDim(Node *node, size_t index, int64_t rank);
  /// The full type of the node's result `index`.
  FailureOr<RankedTensorType> getResultType(Node *node, size_t index = 0);
  /// Whether the node's input `index` is a list of tensors the converter
  /// knows (built in the graph, or returned by chunk, split or unbind).
  bool isTensorList(Node *node, size_t index) const;
  /// Every element of the tensor list at `index`.
  FailureOr<SmallVector<Value>> getTensorList(Node *node, size_t index);
  /// Element `element` of the tensor list at `index` (negative counts from
  /// the end).
  FailureOr<Value> getListElement(Node *node, size_t index, int64_t element);

  /// Records `op` as created for `node` and maps the node's first outputs
  /// to the op's first results.
  void finish(Node *node, Operation *op, unsigned mappedResults = 1);
  /// Records `op`, one of several created for `node`, and returns its first
  /// result.
  Value record(Node *node, Operation *op, std::string label = {});
  /// `value` reshaped with `count` dimensions of size 1 inserted at `dim`.
  Value createUnsqueeze(Node *node, Value value, int64_t dim, int64_t count);
  InFlightDiagnostic emitNodeError(Node *node);
  InFlightDiagnostic emitInputError(Node *node, size_t index);

  OpBuilder builder;
  Location fileLoc;
  Location loc; ///< the location of the node being converted
  AddArgument addArgument;
  llvm::DenseMap<const torch::jit::Value *, Value> values;
  llvm::DenseMap<const torch::jit::Value *, SmallVector<Value>> tensorLists;
  /// A tensor list an op returns (chunk, split, unbind): slices of one
  /// tensor along one dimension, each created when something reads it (so
  /// that unread pieces cost nothing), named after the op's module.
  struct SlicedList {
    Value input;
    int64_t dim;
    SmallVector<std::pair<int64_t, int64_t>> bounds;
    bool squeeze; ///< unbind: each piece loses the dimension
    Location loc;
    std::string modulePath;
    SmallVector<Value> pieces; ///< created so far (null: not yet)
  };
  std::map<const torch::jit::Value *, SlicedList> slicedLists;
  FailureOr<Value> getSlicedPiece(SlicedList &list, int64_t element);
  std::vector<CreatedOp> createdOps;
  llvm::MapVector<Value, Value> bufferUpdates;
  llvm::DenseSet<Value> labels;
  unsigned randomOpCount = 0;
  /// Constant fills (zeros, ones, full, and empty, whose contents are
  /// unspecified: zeros): each an nn.full created where something first
  /// reads its values, named after the fill's module. nn.bernoulli reads
  /// only the shape, so stochastic depth's `torch.empty(...).bernoulli_(p)`
  /// creates none.
  struct PendingFill {
    RankedTensorType type;
    double value;
    Location loc;
    std::string modulePath;
  };
  std::map<const torch::jit::Value *, PendingFill> pendingFills;
  /// The converted value of `graphValue`, creating its pending fill if it
  /// has one; null if it has none.
  Value materialize(const torch::jit::Value *graphValue);
};

/// The dot-joined instance names of the modules whose code `node` came
/// from, outermost first ("layer1.0.conv1"); "" at the top level.
std::string getModulePath(const torch::jit::Node *node);

} // namespace mlir::remat::torchscript

#endif // REMAT_LIB_TARGET_TORCHSCRIPT_NODECONVERTER_H
