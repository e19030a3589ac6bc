//===- ConvertRecurrentOps.cpp - LSTM, GRU and RNN, unrolled --------------===//
//
// `aten::lstm`, `aten::gru`, `aten::rnn_tanh` and `aten::rnn_relu` (what
// nn.LSTM, nn.GRU and nn.RNN call) become their cells' ops, one time step
// after the other, per layer and direction: linear, sigmoid, tanh, mul, add
// and slices. Nothing is fused across steps, so the planner sees, keeps or
// recomputes each step's activations like any other op's; the cells compute
// what PyTorch's do (its gate order i, f, g, o for the LSTM and r, z, n for
// the GRU, with the GRU's reset gate applied to the hidden state's linear
// part, bias included).
//
// Layers, bidirectional, batch_first, biases or none, LSTM projections
// (proj_size), the initial states given or zero, and dropout between layers
// in training (an nn.dropout with its own seed, as any dropout). Packed
// sequences are a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
using Node = torch::jit::Node;

/// The cell a recurrent node runs.
enum class torchscript::RecurrentCell { Lstm, Gru, RnnTanh, RnnRelu };
using Cell = RecurrentCell;

namespace {
/// How many gate blocks the cell's weights stack: 4 (i, f, g, o), 3 (r, z,
/// n) or 1.
int64_t getGateCount(Cell cell) {
  switch (cell) {
  case Cell::Lstm:
    return 4;
  case Cell::Gru:
    return 3;
  default:
    return 1;
  }
}
} // namespace

/// The weights of one layer in one direction, as nn.LSTM flattens them:
/// w_ih, w_hh, then b_ih, b_hh with biases, then w_hr with projections.
struct torchscript::RecurrentWeights {
  Value inputWeight, hiddenWeight, inputBias, hiddenBias, projection;
};

/// The recurrent node's arguments.
struct torchscript::RecurrentCall {
  Cell cell;
  Value input;
  SmallVector<Value> initialStates;      ///< [h0] or, for the LSTM, [h0, c0]
  SmallVector<RecurrentWeights> weights; ///< per layer, then direction
  int64_t layers = 1, directions = 1;
  double dropout = 0.0;
  bool train = false, batchFirst = false;
};

FailureOr<RecurrentCall> NodeConverter::getRecurrentCall(Node *node,
                                                         llvm::StringRef kind) {
  RecurrentCall call;
  call.cell = kind == "aten::lstm"       ? Cell::Lstm
              : kind == "aten::gru"      ? Cell::Gru
              : kind == "aten::rnn_tanh" ? Cell::RnnTanh
                                         : Cell::RnnRelu;
  // The `.input` overloads: (input, hx, params, has_biases, num_layers,
  // dropout, train, bidirectional, batch_first). The `.data` ones, for
  // packed sequences, take the batch sizes second and no batch_first.
  bool isLstm = call.cell == Cell::Lstm;
  if (node->inputs().size() != 9 || !isTensorList(node, 2) ||
      (isLstm && !isTensorList(node, 1)))
    return emitNodeError(node)
           << "packed sequences are not supported: pass the padded batch";
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<Value>> params = getTensorList(node, 2);
  FailureOr<bool> hasBiases = getBool(node, 3);
  FailureOr<int64_t> layers = getInt(node, 4);
  FailureOr<double> dropout = getDouble(node, 5);
  FailureOr<bool> train = getBool(node, 6);
  FailureOr<bool> bidirectional = getBool(node, 7);
  FailureOr<bool> batchFirst = getBool(node, 8);
  if (failed(input) || failed(params) || failed(hasBiases) || failed(layers) ||
      failed(dropout) || failed(train) || failed(bidirectional) ||
      failed(batchFirst))
    return failure();
  if (isLstm) {
    FailureOr<SmallVector<Value>> states = getTensorList(node, 1);
    if (failed(states))
      return failure();
    call.initialStates = *states;
  } else {
    FailureOr<Value> state = getTensor(node, 1);
    if (failed(state))
      return failure();
    call.initialStates = {*state};
  }
  auto inputType = cast<RankedTensorType>(input->getType());
  if (inputType.getRank() != 3 || inputType.getNumElements() == 0)
    return emitInputError(node, 0)
           << "is not supported: recurrent layers take a non-empty batch, "
              "[batch, time, features] or [time, batch, features]";
  call.input = *input;
  call.layers = *layers;
  call.directions = *bidirectional ? 2 : 1;
  call.dropout = *dropout;
  call.train = *train;
  call.batchFirst = *batchFirst;
  int64_t groups = call.layers * call.directions;
  int64_t perGroup = 2 + (*hasBiases ? 2 : 0);
  bool projected = isLstm && groups > 0 &&
                   int64_t(params->size()) == groups * (perGroup + 1);
  if (projected)
    ++perGroup;
  if (groups <= 0 || int64_t(params->size()) != groups * perGroup)
    return emitInputError(node, 2)
           << "holds " << params->size() << " tensors, not the "
           << groups * perGroup << " of " << call.layers << " layer(s) in "
           << call.directions << " direction(s)";
  for (int64_t g = 0; g < groups; ++g) {
    ArrayRef<Value> group =
        ArrayRef<Value>(*params).slice(g * perGroup, perGroup);
    RecurrentWeights weights{group[0], group[1], {}, {}, {}};
    if (*hasBiases) {
      weights.inputBias = group[2];
      weights.hiddenBias = group[3];
    }
    if (projected)
      weights.projection = group.back();
    call.weights.push_back(weights);
  }
  return call;
}

namespace {
/// Creates one recurrent node's ops, each recorded for the node.
class RecurrentUnroller {
public:
  RecurrentUnroller(OpBuilder &builder, Location loc,
                    std::function<Value(Operation *, std::string)> recordOp)
      : builder(builder), loc(loc), recordOp(std::move(recordOp)) {}

  /// Records `op` named `<where>.<kind>` (`l0.t3.sigmoid`; `l0r` for the
  /// reverse direction).
  Value record(Operation *op) {
    std::string kind = op->getName().stripDialect().str();
    return recordOp(op, where.empty() ? kind : where + "." + kind);
  }

  RankedTensorType typeLike(Value value, ArrayRef<int64_t> shape) {
    return RankedTensorType::get(
        shape, cast<RankedTensorType>(value.getType()).getElementType());
  }
  ArrayRef<int64_t> shapeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
  Value reshape(Value value, ArrayRef<int64_t> shape) {
    return record(
        nn::ReshapeOp::create(builder, loc, typeLike(value, shape), value));
  }
  Value slice(Value value, int64_t dim, int64_t start, int64_t end) {
    SmallVector<int64_t> shape(shapeOf(value));
    shape[dim] = end - start;
    return record(nn::SliceOp::create(builder, loc, typeLike(value, shape),
                                      value, dim, start, end, 1));
  }
  Value concat(ArrayRef<Value> pieces, int64_t dim) {
    SmallVector<int64_t> shape(shapeOf(pieces.front()));
    shape[dim] = 0;
    for (Value piece : pieces)
      shape[dim] += shapeOf(piece)[dim];
    if (pieces.size() == 1)
      return pieces.front();
    return record(nn::ConcatOp::create(
        builder, loc, typeLike(pieces.front(), shape), pieces, dim));
  }
  Value linear(Value input, Value weight, Value bias) {
    SmallVector<int64_t> shape(shapeOf(input));
    shape.back() = shapeOf(weight).front();
    return record(nn::LinearOp::create(builder, loc, typeLike(input, shape),
                                       input, weight, bias));
  }
  template <typename OpTy> Value unary(Value input) {
    return record(OpTy::create(builder, loc, input.getType(), input));
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return record(OpTy::create(builder, loc, lhs.getType(), lhs, rhs));
  }

  OpBuilder &builder;
  Location loc;
  std::function<Value(Operation *, std::string)> recordOp;
  std::string where; ///< the layer and step of the ops created now
};

/// The state a cell carries from step to step.
struct CellState {
  Value hidden, memory; ///< memory: the LSTM's cell state, else null
};

/// One step of `cell`: the new state from the input x [B, I] and the state.
CellState stepCell(RecurrentUnroller &u, Cell cell, const RecurrentWeights &w,
                   Value x, CellState state) {
  Value inputPart = u.linear(x, w.inputWeight, w.inputBias);
  Value hiddenPart = u.linear(state.hidden, w.hiddenWeight, w.hiddenBias);
  int64_t width = u.shapeOf(w.hiddenWeight)[0] / getGateCount(cell);
  auto gate = [&](Value gates, int64_t index) {
    return u.slice(gates, 1, index * width, (index + 1) * width);
  };
  // One op per statement: the ops (and their names) come in this order.
  switch (cell) {
  case Cell::Lstm: {
    Value gates = u.binary<nn::AddOp>(inputPart, hiddenPart);
    Value in = u.unary<nn::SigmoidOp>(gate(gates, 0));
    Value forget = u.unary<nn::SigmoidOp>(gate(gates, 1));
    Value candidate = u.unary<nn::TanhOp>(gate(gates, 2));
    Value out = u.unary<nn::SigmoidOp>(gate(gates, 3));
    Value kept = u.binary<nn::MulOp>(forget, state.memory);
    Value added = u.binary<nn::MulOp>(in, candidate);
    Value memory = u.binary<nn::AddOp>(kept, added);
    Value squashed = u.unary<nn::TanhOp>(memory);
    Value hidden = u.binary<nn::MulOp>(out, squashed);
    if (w.projection)
      hidden = u.linear(hidden, w.projection, Value());
    return {hidden, memory};
  }
  case Cell::Gru: {
    auto gateSum = [&](int64_t index) {
      Value fromInput = gate(inputPart, index);
      Value fromHidden = gate(hiddenPart, index);
      return u.binary<nn::AddOp>(fromInput, fromHidden);
    };
    Value reset = u.unary<nn::SigmoidOp>(gateSum(0));
    Value update = u.unary<nn::SigmoidOp>(gateSum(1));
    Value fromInput = gate(inputPart, 2);
    Value fromHidden = gate(hiddenPart, 2);
    Value gated = u.binary<nn::MulOp>(reset, fromHidden);
    Value candidate =
        u.unary<nn::TanhOp>(u.binary<nn::AddOp>(fromInput, gated));
    // (1 - z) n + z h = n + z (h - n)
    Value difference = u.binary<nn::SubOp>(state.hidden, candidate);
    Value step = u.binary<nn::MulOp>(update, difference);
    return {u.binary<nn::AddOp>(candidate, step), Value()};
  }
  case Cell::RnnTanh:
    return {u.unary<nn::TanhOp>(u.binary<nn::AddOp>(inputPart, hiddenPart)),
            Value()};
  case Cell::RnnRelu:
    return {u.unary<nn::ReluOp>(u.binary<nn::AddOp>(inputPart, hiddenPart)),
            Value()};
  }
  llvm_unreachable("unknown cell");
}
} // namespace

LogicalResult NodeConverter::convertRecurrent(Node *node,
                                              llvm::StringRef kind) {
  FailureOr<RecurrentCall> call = getRecurrentCall(node, kind);
  if (failed(call))
    return failure();
  RecurrentUnroller u(builder, loc, [&](Operation *op, std::string label) {
    return record(node, op, std::move(label));
  });
  int64_t timeDim = call->batchFirst ? 1 : 0;
  int64_t batchDim = 1 - timeDim;
  int64_t steps = u.shapeOf(call->input)[timeDim];
  int64_t batch = u.shapeOf(call->input)[batchDim];
  // The state of layer l, direction d: row l * directions + d of h0 (c0).
  auto initial = [&](size_t which, int64_t group) {
    Value all = call->initialStates[which];
    int64_t width = u.shapeOf(all).back();
    return u.reshape(u.slice(all, 0, group, group + 1), {batch, width});
  };
  // A step's [B, H] as one time slice of the output, and back.
  auto asTimeSlice = [&](Value value) {
    int64_t width = u.shapeOf(value).back();
    return call->batchFirst ? u.reshape(value, {batch, 1, width})
                            : u.reshape(value, {1, batch, width});
  };
  Value layerInput = call->input;
  SmallVector<Value> finalHidden, finalMemory;
  for (int64_t layer = 0; layer < call->layers; ++layer) {
    SmallVector<Value> directionOutputs;
    for (int64_t direction = 0; direction < call->directions; ++direction) {
      int64_t group = layer * call->directions + direction;
      std::string layerName =
          llvm::formatv("l{0}{1}", layer, direction ? "r" : "").str();
      u.where = layerName;
      CellState state{initial(0, group),
                      call->cell == Cell::Lstm ? initial(1, group) : Value()};
      SmallVector<Value> outputs(steps);
      for (int64_t i = 0; i < steps; ++i) {
        int64_t t = direction == 0 ? i : steps - 1 - i;
        u.where = llvm::formatv("{0}.t{1}", layerName, t).str();
        Value x = u.slice(layerInput, timeDim, t, t + 1);
        x = u.reshape(x, {batch, u.shapeOf(x).back()});
        state = stepCell(u, call->cell, call->weights[group], x, state);
        outputs[t] = asTimeSlice(state.hidden);
      }
      u.where = layerName;
      directionOutputs.push_back(u.concat(outputs, timeDim));
      finalHidden.push_back(
          u.reshape(state.hidden, {1, batch, u.shapeOf(state.hidden)[1]}));
      if (state.memory)
        finalMemory.push_back(
            u.reshape(state.memory, {1, batch, u.shapeOf(state.memory)[1]}));
    }
    u.where = llvm::formatv("l{0}", layer).str();
    layerInput = u.concat(directionOutputs, 2);
    if (call->train && call->dropout > 0.0 && layer + 1 < call->layers)
      layerInput = u.record(
          nn::DropoutOp::create(builder, loc, layerInput.getType(), layerInput,
                                addSeedArgument(node, "dropout"),
                                builder.getF64FloatAttr(call->dropout)));
  }
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(type))
    return failure();
  if (layerInput.getType() != *type)
    return emitNodeError(node) << "unrolls to " << layerInput.getType()
                               << ", not the graph's " << *type;
  map(node->output(0), layerInput);
  u.where.clear();
  if (node->output(1)->hasUses())
    map(node->output(1), u.concat(finalHidden, 0));
  if (call->cell == Cell::Lstm && node->output(2)->hasUses())
    map(node->output(2), u.concat(finalMemory, 0));
  return success();
}
