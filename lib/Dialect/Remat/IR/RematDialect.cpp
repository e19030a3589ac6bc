//===- RematDialect.cpp - the remat dialect -------------------------------===//
//
// Registers the remat dialect and verifies the `remat.*` attributes wherever
// they appear: on ops, on function arguments and on function results. Each
// attribute has one checker; an attribute the dialect does not know is an
// error, so that typos are caught where they are written.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "RematAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::remat;

#include "remat/Dialect/Remat/IR/RematOpsDialect.cpp.inc"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"

void RematDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"
      >();
  registerAttributes();
}

//===----------------------------------------------------------------------===//
// GraphNodeOp
//===----------------------------------------------------------------------===//

LogicalResult GraphNodeOp::verify() {
  double cost = getCost().convertToDouble();
  if (!(cost >= 0.0))
    return emitOpError() << "expects a non-negative 'cost', got " << cost;
  if (!getOutput().getType().hasStaticShape())
    return emitOpError("expects a statically sized output");
  return success();
}

ParseResult GraphNodeOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 4> inputs;
  FunctionType type;
  SMLoc inputsLoc;
  if (parser.parseLParen() ||
      (inputsLoc = parser.getCurrentLocation(),
       parser.parseOperandList(inputs)) ||
      parser.parseRParen())
    return failure();
  SMLoc attributesLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes) ||
      failed(verifyInherentAttrs(result.name, result.attributes,
                                 [&] {
                                   return parser.emitError(attributesLoc)
                                          << "'" << result.name.getStringRef()
                                          << "' op ";
                                 })) ||
      parser.parseColonType(type))
    return failure();
  result.addTypes(type.getResults());
  return parser.resolveOperands(inputs, type.getInputs(), inputsLoc,
                                result.operands);
}

void GraphNodeOp::print(OpAsmPrinter &printer) {
  printer << "(" << getInputs() << ")";
  // The cost among the other attributes in name order, as the op's whole
  // dictionary would print, without building that dictionary.
  SmallVector<NamedAttribute> attributes((*this)->getDiscardableAttrs());
  NamedAttribute cost(getCostAttrName(), getCostAttr());
  attributes.insert(llvm::lower_bound(attributes, cost), cost);
  printer.printOptionalAttrDict(attributes);
  printer << " : ";
  printer.printFunctionalType(getInputs().getTypes(),
                              ArrayRef<Type>(getOutput().getType()));
}

int64_t GraphNodeOp::getFlopCount() { return 0; }

std::optional<double> GraphNodeOp::getGivenCost() {
  return getCost().convertToDouble();
}

//===----------------------------------------------------------------------===//
// Roles and phases
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematEnums.cpp.inc"

std::optional<ArgumentRole>
mlir::remat::getArgumentRole(FunctionOpInterface function, unsigned index) {
  auto role = function.getArgAttrOfType<ArgumentRoleAttr>(index, attr::kRole);
  return role ? std::optional<ArgumentRole>(role.getValue()) : std::nullopt;
}

DictionaryAttr mlir::remat::getArgumentAttributes(MLIRContext *context,
                                                  StringRef name,
                                                  ArgumentRole role) {
  Builder b(context);
  NamedAttrList attrs;
  attrs.append(attr::kName, b.getStringAttr(name));
  attrs.append(attr::kRole, ArgumentRoleAttr::get(context, role));
  return attrs.getDictionary(context);
}

void mlir::remat::setPhase(Operation *op, Phase phase) {
  op->setAttr(attr::kPhase, PhaseAttr::get(op->getContext(), phase));
}

std::optional<OpPolicy> mlir::remat::getPolicy(Operation *op) {
  auto policy = op->getAttrOfType<OpPolicyAttr>(attr::kPolicy);
  return policy ? std::optional<OpPolicy>(policy.getValue()) : std::nullopt;
}

void mlir::remat::setPolicy(Operation *op, OpPolicy policy) {
  op->setAttr(attr::kPolicy, OpPolicyAttr::get(op->getContext(), policy));
}

std::optional<Phase> mlir::remat::getPhase(Operation *op) {
  auto phase = op->getAttrOfType<PhaseAttr>(attr::kPhase);
  return phase ? std::optional<Phase>(phase.getValue()) : std::nullopt;
}

StringRef mlir::remat::getOpName(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>(attr::kName);
  return name ? name.getValue() : StringRef();
}

std::string mlir::remat::getValueName(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto function =
        dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp());
    if (function) {
      if (auto name = function.getArgAttrOfType<StringAttr>(
              argument.getArgNumber(), attr::kName))
        return name.str();
    }
    return "arg" + std::to_string(argument.getArgNumber());
  }
  Operation *op = value.getDefiningOp();
  std::string name = getOpName(op).str();
  if (name.empty()) {
    int64_t position = 0;
    for (Operation &other : *op->getBlock()) {
      if (&other == op)
        break;
      ++position;
    }
    name = (op->getName().getStringRef() + "@" + Twine(position)).str();
  }
  if (op->getNumResults() > 1)
    name += "#" + std::to_string(cast<OpResult>(value).getResultNumber());
  return name;
}

void mlir::remat::tagBackwardOp(Operation *op, Operation *forward,
                                StringRef suffix) {
  StringRef base = getOpName(forward);
  std::string name =
      (base.empty() ? forward->getName().stripDialect() : base).str();
  Builder builder(op->getContext());
  op->setAttr(attr::kName, builder.getStringAttr(name + "." + suffix.str()));
  setPhase(op, Phase::Backward);
}

std::string mlir::remat::describeOp(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "' op";
  if (StringRef name = getOpName(op); !name.empty())
    text += " \"" + name.str() + "\"";
  return text;
}

InFlightDiagnostic mlir::remat::emitOpError(Operation *op) {
  InFlightDiagnostic diagnostic = emitError(op->getLoc());
  diagnostic << describeOp(op) << " ";
  return diagnostic;
}

InFlightDiagnostic mlir::remat::emitOpWarning(Operation *op) {
  InFlightDiagnostic diagnostic = emitWarning(op->getLoc());
  diagnostic << describeOp(op) << " ";
  return diagnostic;
}

InFlightDiagnostic mlir::remat::emitFunctionError(FunctionOpInterface function) {
  InFlightDiagnostic diagnostic = emitError(function.getLoc());
  diagnostic << "function @" << function.getName() << ": ";
  return diagnostic;
}

std::optional<unsigned>
mlir::remat::findArgumentIndexByName(FunctionOpInterface function,
                                     StringRef name) {
  for (unsigned index = 0, e = function.getNumArguments(); index < e; ++index) {
    auto argName = function.getArgAttrOfType<StringAttr>(index, attr::kName);
    if (argName && argName.getValue() == name)
      return index;
  }
  return std::nullopt;
}

BlockArgument mlir::remat::findArgumentByName(FunctionOpInterface function,
                                              StringRef name) {
  std::optional<unsigned> index = findArgumentIndexByName(function, name);
  Region &body = function.getFunctionBody();
  // The body's arguments follow the signature's once the function verifies;
  // before, a mismatch is the function verifier's to report.
  if (!index || body.empty() ||
      body.front().getNumArguments() != function.getNumArguments())
    return {};
  return body.front().getArgument(*index);
}

BlockArgument mlir::remat::getUpdatedArgument(FunctionOpInterface function,
                                              unsigned index) {
  if (index >= function.getNumResults())
    return {};
  auto updates = function.getResultAttrOfType<StringAttr>(index, attr::kUpdates);
  return updates ? findArgumentByName(function, updates.getValue())
                 : BlockArgument();
}

//===----------------------------------------------------------------------===//
// Attribute verification
//===----------------------------------------------------------------------===//

namespace {
/// Where a `remat.*` attribute was found; each attribute is allowed in some.
enum class Site { Op, Argument, Result };

StringRef describe(Site site) {
  switch (site) {
  case Site::Op:
    return "an op";
  case Site::Argument:
    return "a function argument";
  case Site::Result:
    return "a function result";
  }
  llvm_unreachable("unknown site");
}

/// Returns the attribute's string value, or emits an error and returns
/// std::nullopt when it is not a non-empty string.
std::optional<StringRef> getNonEmptyString(NamedAttribute attribute,
                                           function_ref<InFlightDiagnostic()>
                                               emitError) {
  auto string = dyn_cast<StringAttr>(attribute.getValue());
  if (!string || string.getValue().empty()) {
    emitError() << "'" << attribute.getName().getValue()
                << "' must be a non-empty string";
    return std::nullopt;
  }
  return string.getValue();
}

/// What a remat attribute's value must be.
enum class ValueRule {
  NonEmptyString,
  Role,
  Phase,
  Policy,
  MicroStep,
  Placement,
  MemoryPlan,
  SolveRecord,
};

/// Where each remat attribute may sit and what its value must be
/// (`remat.name` may sit anywhere).
struct AttributeRule {
  StringLiteral name;
  std::optional<Site> site;
  ValueRule value;
};

const AttributeRule kAttributeRules[] = {
    {attr::kName, std::nullopt, ValueRule::NonEmptyString},
    {attr::kRole, Site::Argument, ValueRule::Role},
    {attr::kPhase, Site::Op, ValueRule::Phase},
    {attr::kPolicy, Site::Op, ValueRule::Policy},
    {attr::kMicroStep, Site::Op, ValueRule::MicroStep},
    {attr::kMicroOrigin, Site::Op, ValueRule::NonEmptyString},
    {attr::kRecomputeOf, Site::Op, ValueRule::NonEmptyString},
    {attr::kWeights, Site::Op, ValueRule::NonEmptyString},
    {attr::kPlacement, Site::Op, ValueRule::Placement},
    {attr::kMemoryPlan, Site::Op, ValueRule::MemoryPlan},
    {attr::kSolve, Site::Op, ValueRule::SolveRecord},
    {attr::kUpdates, Site::Result, ValueRule::NonEmptyString},
};

/// The values of `EnumT` as the IR spells them, joined by '|' (`fromInt`
/// maps 0..maxValue to them), for the message that lists them.
template <typename EnumT, typename FromInt>
std::string joinEnumSpellings(unsigned maxValue, FromInt fromInt) {
  std::string joined;
  for (unsigned raw = 0; raw <= maxValue; ++raw) {
    std::optional<EnumT> value = fromInt(raw);
    if (!value)
      continue;
    if (!joined.empty())
      joined += "|";
    joined += stringifyEnum(*value).str();
  }
  return joined;
}

/// Checks that `attribute` is an `EnumAttrT` (`#remat.<mnemonic><value>`);
/// a string that spells a value gets the typed spelling to write instead.
template <typename EnumAttrT, typename EnumT = decltype(EnumAttrT().getValue()),
          typename FromInt>
LogicalResult verifyEnumAttribute(NamedAttribute attribute, StringRef mnemonic,
                                  unsigned maxValue, FromInt fromInt,
                                  function_ref<InFlightDiagnostic()> emitError) {
  if (isa<EnumAttrT>(attribute.getValue()))
    return success();
  InFlightDiagnostic diagnostic = emitError();
  diagnostic << "'" << attribute.getName().getValue() << "' must be #remat."
             << mnemonic << "<" << joinEnumSpellings<EnumT>(maxValue, fromInt)
             << ">";
  auto string = dyn_cast<StringAttr>(attribute.getValue());
  if (string && symbolizeEnum<EnumT>(string.getValue()))
    diagnostic << "; write #remat." << mnemonic << "<" << string.getValue()
               << "> for \"" << string.getValue() << "\"";
  return diagnostic;
}

LogicalResult
verifyAttributeValue(NamedAttribute attribute, ValueRule rule,
                     function_ref<InFlightDiagnostic()> emitError) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  switch (rule) {
  case ValueRule::NonEmptyString:
    return success(getNonEmptyString(attribute, emitError).has_value());
  case ValueRule::Role:
    return verifyEnumAttribute<ArgumentRoleAttr>(
        attribute, "role", getMaxEnumValForArgumentRole(),
        [](uint32_t raw) { return symbolizeArgumentRole(raw); }, emitError);
  case ValueRule::Phase:
    return verifyEnumAttribute<PhaseAttr>(
        attribute, "phase", getMaxEnumValForPhase(),
        [](uint32_t raw) { return symbolizePhase(raw); }, emitError);
  case ValueRule::Policy:
    return verifyEnumAttribute<OpPolicyAttr>(
        attribute, "policy", getMaxEnumValForOpPolicy(),
        [](uint32_t raw) { return symbolizeOpPolicy(raw); }, emitError);
  case ValueRule::MicroStep: {
    auto index = dyn_cast<IntegerAttr>(value);
    if (!index || !index.getType().isInteger(64) || index.getInt() < 1)
      return emitError() << "'" << name
                         << "' must be an i64 micro-step index of at least 1";
    return success();
  }
  case ValueRule::Placement:
    if (!isa<PlacementAttr>(value))
      return emitError() << "'" << name << "' must be a #remat.placement";
    return success();
  case ValueRule::MemoryPlan:
    if (!isa<MemoryPlanAttr>(value))
      return emitError() << "'" << name << "' must be a #remat.memory_plan";
    return success();
  case ValueRule::SolveRecord:
    if (!isa<SolveRecordAttr>(value))
      return emitError() << "'" << name << "' must be a #remat.solve record";
    return success();
  }
  llvm_unreachable("unknown value rule");
}

LogicalResult
verifyRematAttribute(NamedAttribute attribute, Site site,
                     function_ref<InFlightDiagnostic()> emitError) {
  StringRef name = attribute.getName().getValue();
  const AttributeRule *rule =
      llvm::find_if(kAttributeRules, [&](const AttributeRule &candidate) {
        return candidate.name == name;
      });
  if (rule == std::end(kAttributeRules))
    return emitError() << "unknown remat attribute '" << name << "'";
  if (rule->site && *rule->site != site)
    return emitError() << "'" << name << "' is not allowed on "
                       << describe(site);
  return verifyAttributeValue(attribute, rule->value, emitError);
}

/// The op of `block` that reads `value` at `use`, or null.
Operation *getReader(Block &block, OpOperand &use) {
  return block.findAncestorOpInBlock(*use.getOwner());
}

/// The first op of `block` after `update` (in block order) that reads the old
/// value of `argument`: the argument itself or a view of it, transitively.
Operation *findReadAfter(Block &block, BlockArgument argument,
                         Operation *update) {
  SmallVector<Value> values{argument};
  Operation *first = nullptr;
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *reader = getReader(block, use);
      if (!reader || reader == update)
        continue;
      if (isa<ViewLikeOpInterface>(reader) && reader->getNumResults() == 1)
        values.push_back(reader->getResult(0));
      // Returning the old value (or a view of it) reads it at the end, after
      // the update: the caller would find the new value there.
      if (update->isBeforeInBlock(reader) &&
          (!first || reader->isBeforeInBlock(first)))
        first = reader;
    }
  }
  return first;
}

/// Checks result `index`'s `remat.updates`: it names an argument of a state
/// role and the result's type, no other result updates that argument, the
/// value is an op result of the body (not an argument, not a view, not
/// returned twice), and nothing reads the argument's old value after the op
/// that writes the new one.
LogicalResult verifyStateUpdate(FunctionOpInterface function, unsigned index,
                                function_ref<InFlightDiagnostic()> emitError) {
  StringRef name =
      function.getResultAttrOfType<StringAttr>(index, attr::kUpdates).getValue();
  std::optional<unsigned> argumentIndex =
      findArgumentIndexByName(function, name);
  if (!argumentIndex)
    return emitError() << "'" << attr::kUpdates << "' names '" << name
                       << "', which is no argument's remat.name";
  std::optional<ArgumentRole> parsed =
      getArgumentRole(function, *argumentIndex);
  if (!parsed || (*parsed != ArgumentRole::Weight &&
                  *parsed != ArgumentRole::Buffer &&
                  *parsed != ArgumentRole::OptState &&
                  *parsed != ArgumentRole::Step))
    return emitError() << "'" << attr::kUpdates << "' names '" << name
                       << "', which is not an argument of role weight, "
                          "buffer, opt_state or step";
  Type argumentType = function.getArgumentTypes()[*argumentIndex];
  if (function.getResultTypes()[index] != argumentType)
    return emitError() << "updates '" << name << "' of type " << argumentType
                       << " with a value of type "
                       << function.getResultTypes()[index];
  for (unsigned other = 0; other < index; ++other)
    if (auto earlier =
            function.getResultAttrOfType<StringAttr>(other, attr::kUpdates);
        earlier && earlier.getValue() == name)
      return emitError() << "updates '" << name << "', which result " << other
                         << " already updates";
  Region &body = function.getFunctionBody();
  BlockArgument argument = findArgumentByName(function, name);
  if (!argument || !body.hasOneBlock() || !body.front().mightHaveTerminator())
    return success(); // declarations and malformed bodies: nothing to order
  Block &block = body.front();
  Operation *terminator = block.getTerminator();
  if (index >= terminator->getNumOperands())
    return success(); // the function's own verifier reports the mismatch
  Value value = terminator->getOperand(index);
  Operation *writer = value.getDefiningOp();
  if (!writer || writer->getBlock() != &block)
    return emitError() << "updates '" << name
                       << "' with a value no op of the body defines; state is "
                          "updated by the op that computes its new value";
  if (isa<ViewLikeOpInterface>(writer))
    return emitError() << "updates '" << name
                       << "' with a view; the new value must have bytes of "
                          "its own to write into the argument's buffer";
  for (OpOperand &use : value.getUses())
    if (use.getOwner() == terminator && use.getOperandNumber() != index)
      return emitError() << "updates '" << name << "' with a value also "
                         << "returned as result " << use.getOperandNumber();
  if (Operation *reader = findReadAfter(block, argument, writer)) {
    InFlightDiagnostic diagnostic = emitError();
    if (reader->hasTrait<OpTrait::IsTerminator>()) {
      diagnostic << "'" << name << "' is returned (itself or through a view) "
                    "after the op that writes its new value into its buffer";
      diagnostic.attachNote(writer->getLoc()) << "the update";
      return diagnostic;
    }
    diagnostic << "'" << name << "' is read by '" << reader->getName()
               << "'";
    if (StringRef readerName = getOpName(reader); !readerName.empty())
      diagnostic << " \"" << readerName << "\"";
    diagnostic << " after the op that writes its new value into its buffer";
    diagnostic.attachNote(reader->getLoc()) << "the read of the old value";
    diagnostic.attachNote(writer->getLoc()) << "the update";
    return diagnostic;
  }
  return success();
}
} // namespace

LogicalResult RematDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  if (failed(verifyRematAttribute(attribute, Site::Op,
                                  [op] { return op->emitOpError(); })))
    return failure();
  auto emitError = [op] { return remat::emitOpError(op); };
  if (attribute.getName() == attr::kPlacement)
    return detail::verifyPlacement(
        op, cast<PlacementAttr>(attribute.getValue()), emitError);
  if (attribute.getName() == attr::kMemoryPlan)
    return detail::verifyMemoryPlan(
        op, cast<MemoryPlanAttr>(attribute.getValue()), emitError);
  return success();
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                     unsigned argIndex,
                                                     NamedAttribute attribute) {
  return verifyRematAttribute(attribute, Site::Argument, [=] {
    return op->emitOpError() << "argument " << argIndex << ": ";
  });
}

LogicalResult RematDialect::verifyRegionResultAttribute(
    Operation *op, unsigned, unsigned resultIndex, NamedAttribute attribute) {
  auto emitResultError = [=] {
    return op->emitOpError() << "result " << resultIndex << ": ";
  };
  if (failed(verifyRematAttribute(attribute, Site::Result, emitResultError)))
    return failure();
  if (attribute.getName() != attr::kUpdates)
    return success();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return emitResultError() << "'" << attr::kUpdates
                             << "' is only allowed on a function's results";
  return verifyStateUpdate(function, resultIndex, emitResultError);
}

StringRef mlir::remat::getMicroStepOrigin(Operation *op) {
  auto origin = op->getAttrOfType<StringAttr>(attr::kMicroOrigin);
  return origin ? origin.getValue() : StringRef();
}
