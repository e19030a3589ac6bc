//===- NodeConverter.cpp - dispatch, operands and constants ---------------===//

#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNOps.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

#include <torch/csrc/jit/ir/constants.h>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;

/// The scope name prefix of setModulePath's marks.
static constexpr llvm::StringLiteral kModulePathScope = "remat.module:";

void torchscript::setModulePath(jit::Node *node, const std::string &path) {
  node->setScope(c10::make_intrusive<jit::Scope>()->push(
      c10::Symbol::scope(kModulePathScope.str() + path)));
}

std::string torchscript::getModulePath(const jit::Node *node) {
  c10::optional<jit::InlinedCallStackPtr> callstack = node->callstack();
  if (!callstack) {
    // (jit::Node::scope has no const overload; it only reads.)
    jit::ScopePtr scope = const_cast<jit::Node *>(node)->scope();
    llvm::StringRef name =
        scope && !scope->isRoot() ? scope->name().toUnqualString() : "";
    return name.consume_front(kModulePathScope) ? name.str() : "";
  }
  std::vector<std::string> names;
  for (const jit::InlinedCallStackEntry &entry : (*callstack)->vec()) {
    const c10::optional<jit::ModuleInstanceInfo> &info = std::get<2>(entry);
    if (!info)
      continue;
    std::string name = info->instance_name();
    // Traced modules name their instances by the full path already
    // ("__module.layer1.0"); scripted ones by the attribute ("0").
    llvm::StringRef ref(name);
    if (ref.consume_front("__module.")) {
      names.assign({ref.str()});
      continue;
    }
    // Calls of a module's own methods (SELF) stay in the module.
    if (!name.empty() && name != "SELF")
      names.push_back(name);
  }
  return llvm::join(names, ".");
}

NodeConverter::NodeConverter(Block *body, Location fileLoc,
                             AddArgument addArgument)
    : builder(fileLoc.getContext()), fileLoc(fileLoc),
      loc(fileLoc), addArgument(std::move(addArgument)) {
  builder.setInsertionPointToEnd(body);
}

void NodeConverter::map(const jit::Value *graphValue, Value value) {
  values[graphValue] = value;
}

Value NodeConverter::materialize(const jit::Value *graphValue) {
  if (Value value = values.lookup(graphValue))
    return value;
  auto pending = pendingFills.find(graphValue);
  if (pending == pendingFills.end())
    return Value();
  const PendingFill &fill = pending->second;
  auto op = nn::FullOp::create(builder, fill.loc, fill.type,
                               builder.getF64FloatAttr(fill.value));
  createdOps.push_back({op, fill.modulePath});
  values[graphValue] = op;
  pendingFills.erase(pending);
  return op;
}

InFlightDiagnostic NodeConverter::emitNodeError(Node *node) {
  return emitError(loc) << "'" << node->kind().toQualString() << "': ";
}

InFlightDiagnostic NodeConverter::emitInputError(Node *node, size_t index) {
  std::string name = "input " + std::to_string(index);
  if (const c10::FunctionSchema *schema = node->maybeSchema())
    if (index < schema->arguments().size())
      name = "'" + schema->arguments()[index].name() + "'";
  return emitNodeError(node) << name << " ";
}

//===----------------------------------------------------------------------===//
// Operands and constants
//===----------------------------------------------------------------------===//

std::optional<c10::IValue> NodeConverter::getConstant(Node *node,
                                                      size_t index) {
  if (index >= node->inputs().size())
    return std::nullopt;
  c10::optional<c10::IValue> value = jit::toIValue(node->input(index));
  if (!value)
    return std::nullopt;
  return *value;
}

bool NodeConverter::isNone(Node *node, size_t index) {
  std::optional<c10::IValue> value = getConstant(node, index);
  return value && value->isNone();
}

FailureOr<Value> NodeConverter::getTensor(Node *node, size_t index) {
  if (index < node->inputs().size())
    if (Value value = materialize(node->input(index)))
      return value;
  std::optional<c10::IValue> constant = getConstant(node, index);
  if (constant && constant->isTensor())
    return emitInputError(node, index)
           << "is a constant tensor; the importer takes tensors only from "
              "inputs, parameters, buffers and other ops";
  return emitInputError(node, index) << "must be a tensor";
}

FailureOr<Value> NodeConverter::getOptionalTensor(Node *node, size_t index) {
  if (isNone(node, index))
    return Value();
  return getTensor(node, index);
}

FailureOr<int64_t> NodeConverter::getInt(Node *node, size_t index) {
  std::optional<c10::IValue> value = getConstant(node, index);
  if (!value || !value->isInt())
    return emitInputError(node, index)
           << "must be an integer constant for the given input shapes";
  return value->toInt();
}

FailureOr<double> NodeConverter::getDouble(Node *node, size_t index) {
  std::optional<c10::IValue> value = getConstant(node, index);
  if (value && value->isDouble())
    return value->toDouble();
  if (value && value->isInt())
    return static_cast<double>(value->toInt());
  if (value && value->isTensor() && value->toTensor().dim() == 0 &&
      value->toTensor().is_floating_point())
    return value->toTensor().item<double>();
  return emitInputError(node, index) << "must be a number constant";
}

FailureOr<bool> NodeConverter::getBool(Node *node, size_t index) {
  std::optional<c10::IValue> value = getConstant(node, index);
  if (!value || !value->isBool())
    return emitInputError(node, index) << "must be a boolean constant";
  return value->toBool();
}

FailureOr<std::string> NodeConverter::getString(Node *node, size_t index) {
  std::optional<c10::IValue> value = getConstant(node, index);
  if (!value || !value->isString())
    return emitInputError(node, index) << "must be a string constant";
  return value->toStringRef();
}

FailureOr<SmallVector<int64_t>> NodeConverter::getIntList(Node *node,
                                                          size_t index) {
  std::optional<c10::IValue> value = getConstant(node, index);
  if (value && value->isIntList()) {
    std::vector<int64_t> list = value->toIntVector();
    return SmallVector<int64_t>(list.begin(), list.end());
  }
  if (value && value->isInt())
    return SmallVector<int64_t>{value->toInt()};
  return emitInputError(node, index)
         << "must be a list of integer constants for the given input shapes";
}

FailureOr<int64_t> NodeConverter::getDim(Node *node, size_t index,
                                         int64_t rank) {
  FailureOr<int64_t> dim = getInt(node, index);
  if (failed(dim))
    return failure();
  int64_t normalized = *dim < 0 ? *dim + rank : *dim;
  if (normalized < 0 || normalized >= rank)
    return emitInputError(node, index)
           << "is " << *dim << ", out of range for rank " << rank;
  return normalized;
}

FailureOr<RankedTensorType> NodeConverter::getResultType(Node *node,
                                                         size_t index) {
  const jit::Value *output = node->output(index);
  auto type = output->type()->cast<c10::TensorType>();
  c10::optional<std::vector<int64_t>> sizes =
      type ? type->sizes().concrete_sizes() : c10::nullopt;
  c10::optional<c10::ScalarType> scalarType =
      type ? type->scalarType() : c10::nullopt;
  if (!sizes)
    return emitNodeError(node) << "the shape of result " << index
                               << " is unknown after shape propagation";
  // Shape propagation may leave the element type open; every nn op
  // converted here has the element type of its first tensor operand.
  Type elementType;
  if (scalarType)
    elementType = getElementType(builder.getContext(), *scalarType);
  else if (!node->inputs().empty()) {
    if (Value first = values.lookup(node->input(0)))
      elementType = cast<RankedTensorType>(first.getType()).getElementType();
    else if (auto fill = pendingFills.find(node->input(0));
             fill != pendingFills.end())
      elementType = fill->second.type.getElementType();
  }
  if (!elementType && !scalarType)
    return emitNodeError(node) << "the element type of result " << index
                               << " is unknown after shape propagation";
  if (!elementType)
    return emitNodeError(node) << "result " << index << " has element type "
                               << c10::toString(*scalarType)
                               << ", which the nn dialect does not take";
  return RankedTensorType::get(*sizes, elementType);
}

void NodeConverter::finish(Node *node, Operation *op, unsigned mappedResults) {
  createdOps.push_back({op, getModulePath(node)});
  for (unsigned i = 0; i < mappedResults; ++i)
    values[node->output(i)] = op->getResult(i);
}

Value NodeConverter::record(Node *node, Operation *op, std::string label) {
  createdOps.push_back({op, getModulePath(node), {}, std::move(label)});
  return op->getResult(0);
}

Value NodeConverter::createUnsqueeze(Node *node, Value value, int64_t dim,
                                     int64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + dim, count, 1);
  return record(node, nn::ReshapeOp::create(
                          builder, loc,
                          RankedTensorType::get(shape, type.getElementType()),
                          value));
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// Ops that are the identity under value semantics.
static bool isIdentity(llvm::StringRef kind) {
  return kind == "aten::contiguous" || kind == "aten::clone" ||
         kind == "aten::alias";
}

/// Conversions of device, layout or type (`x.to(device)`, `x.type_as(y)`):
/// the identity where the type stays (imported tensors live on one device),
/// else nn.convert between float types.
static bool isConversion(llvm::StringRef kind) {
  return kind == "aten::to" || kind == "aten::_to_copy" ||
         kind == "aten::type_as";
}

/// Checks that only look at their input (torch.export's checks of a
/// tensor's dtype and device): the import has typed every value.
static bool isMetadataCheck(llvm::StringRef kind) {
  return kind == "aten::_assert_tensor_metadata";
}

LogicalResult NodeConverter::convert(Node *node) {
  loc = getNodeLocation(node, fileLoc);
  llvm::StringRef kind = node->kind().toQualString();
  if (kind == "prim::Constant")
    return success();
  if (kind == "prim::ListConstruct") {
    if (node->output()->type()->cast<c10::ListType>() &&
        node->output()->type()->cast<c10::ListType>()->getElementType()->cast<
            c10::TensorType>()) {
      SmallVector<Value> list;
      for (size_t i = 0; i < node->inputs().size(); ++i) {
        FailureOr<Value> element = getTensor(node, i);
        if (failed(element))
          return failure();
        list.push_back(*element);
      }
      tensorLists[node->output()] = std::move(list);
    }
    return success();
  }
  if (isMetadataCheck(kind))
    return success();
  if (isIdentity(kind)) {
    FailureOr<Value> input = getTensor(node, 0);
    if (failed(input))
      return failure();
    values[node->output()] = *input;
    return success();
  }
  if (isConversion(kind)) {
    FailureOr<Value> input = getTensor(node, 0);
    FailureOr<RankedTensorType> type = getResultType(node);
    if (failed(input) || failed(type))
      return failure();
    if (input->getType() == *type) {
      values[node->output()] = *input;
      return success();
    }
    if (!isa<FloatType>(getElementTypeOrSelf(input->getType())) ||
        !isa<FloatType>(type->getElementType()))
      return emitNodeError(node)
             << "converts " << input->getType() << " to " << *type
             << ": the importer converts between float "
                "types only";
    finish(node, nn::ConvertOp::create(builder, loc, *type, *input));
    return success();
  }
  if (std::optional<LogicalResult> result = convertNetworkOp(node, kind))
    return *result;
  if (std::optional<LogicalResult> result = convertTensorOp(node, kind))
    return *result;
  return emitError(loc) << "unsupported op '" << kind
                        << "': the nn dialect has no equivalent";
}
