//===- RematAttrs.cpp - the records passes leave on the IR ----------------===//
//
// The remat dialect's attribute definitions: the solve record, and the
// memory plan (#remat.memory_plan on a function, #remat.placement on each of
// its ops), with the check that a planned function's placements are
// complete and inside its arena.
//
//===----------------------------------------------------------------------===//

#include "RematAttrs.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::remat;

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/IR/RematAttrs.cpp.inc"

void RematDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "remat/Dialect/Remat/IR/RematAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SolveRecordAttr
//===----------------------------------------------------------------------===//

LogicalResult
SolveRecordAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t budgetBytes, StringRef budgetTyped,
                        int64_t peakBytesBefore, FloatAttr computeCostBefore,
                        StringRef solver, StringRef status,
                        DenseI64ArrayAttr liveBytesBefore,
                        DenseI64ArrayAttr givenPositions, BoolAttr timedOut,
                        BoolAttr fitArena, FloatAttr lowerBoundCost,
                        FloatAttr solveSeconds) {
  auto negative = [](int64_t value) { return value < 0; };
  if (budgetBytes < 0 || peakBytesBefore < 0 ||
      llvm::any_of(liveBytesBefore.asArrayRef(), negative))
    return emitError() << "'remat.solve' byte counts must be non-negative";
  if (llvm::any_of(givenPositions.asArrayRef(), negative))
    return emitError() << "'remat.solve' positions must be non-negative";
  if (solver.empty() || status.empty())
    return emitError() << "'remat.solve' must name its solver and status";
  for (FloatAttr value : {computeCostBefore, lowerBoundCost, solveSeconds})
    if (value && !(value.getValueAsDouble() >= 0.0))
      return emitError() << "'remat.solve' costs and times must be "
                            "non-negative";
  return success();
}

SolveRecordAttr SolveRecordAttr::withoutSolveTime() const {
  return SolveRecordAttr::get(
      getContext(), getBudgetBytes(), getBudgetTyped(), getPeakBytesBefore(),
      getComputeCostBefore(), getSolver(), getStatus(), getLiveBytesBefore(),
      getGivenPositions(), getTimedOut(), getFitArena(), getLowerBoundCost(),
      /*solveSeconds=*/nullptr);
}

//===----------------------------------------------------------------------===//
// MemoryPlanAttr and PlacementAttr
//===----------------------------------------------------------------------===//

LogicalResult
MemoryPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t arenaBytes, int64_t alignment) {
  if (arenaBytes < 0)
    return emitError() << "'remat.memory_plan' arena_bytes must be "
                          "non-negative, got "
                       << arenaBytes;
  if (alignment < 1 || !llvm::isPowerOf2_64(alignment))
    return emitError() << "'remat.memory_plan' alignment must be a power of "
                          "two, got "
                       << alignment;
  return success();
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> offsets,
                      std::optional<int64_t> workspace) {
  if (llvm::any_of(offsets, [](int64_t offset) { return offset < -1; }))
    return emitError() << "'remat.placement' offsets must each be "
                          "non-negative or -1 (in an argument's buffer)";
  if (workspace && *workspace < 0)
    return emitError() << "'remat.placement' workspace offset must be "
                          "non-negative, got "
                       << *workspace;
  return success();
}

// #remat.placement<[0, 256]> or #remat.placement<[0], workspace = 512>.
Attribute PlacementAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> offsets;
  std::optional<int64_t> workspace;
  auto parseOffset = [&]() -> ParseResult {
    return parser.parseInteger(offsets.emplace_back());
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseOffset))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("workspace") || parser.parseEqual() ||
        parser.parseInteger(workspace.emplace()))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), offsets, workspace);
}

void PlacementAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getOffsets(), printer);
  printer << "]";
  if (std::optional<int64_t> workspace = getWorkspace())
    printer << ", workspace = " << *workspace;
  printer << ">";
}

MemoryPlanAttr mlir::remat::getMemoryPlan(Operation *function) {
  return function->getAttrOfType<MemoryPlanAttr>(attr::kMemoryPlan);
}

PlacementAttr mlir::remat::getPlacement(Operation *op) {
  return op->getAttrOfType<PlacementAttr>(attr::kPlacement);
}

void mlir::remat::eraseMemoryPlan(FunctionOpInterface function) {
  if (!function->removeAttr(attr::kMemoryPlan))
    return;
  for (Block &block : function.getFunctionBody())
    for (Operation &op : block)
      op.removeAttr(attr::kPlacement);
}

//===----------------------------------------------------------------------===//
// A planned function's placements
//===----------------------------------------------------------------------===//

namespace {
/// Checks that `bytes` at `offset` end inside the arena of `plan` and that
/// `offset` is aligned as the plan says (`aligned`: a tensor, not a graph
/// node's byte count); `what` names the value or workspace.
LogicalResult verifyPlace(Operation *op, MemoryPlanAttr plan, int64_t offset,
                          int64_t bytes, bool aligned, const Twine &what) {
  if (aligned && offset % plan.getAlignment() != 0)
    return emitOpError(op) << what << " is placed at offset " << offset
                           << ", not a multiple of the plan's alignment "
                           << plan.getAlignment();
  if (offset > plan.getArenaBytes() || bytes > plan.getArenaBytes() - offset)
    return emitOpError(op) << what << " (" << bytes << " bytes at offset "
                           << offset << ") ends beyond the arena of "
                           << plan.getArenaBytes() << " bytes";
  return success();
}

/// Checks the placement of `op`, an op of a function planned as `plan`:
/// present when the op has results, each arena value and the workspace
/// inside the arena. The dialect verifies attributes before the ops that
/// carry them, so this reads only types: an op's own rules (its operands, its
/// workspace's size) are not known to hold yet. A placement of the wrong
/// kind or length is verifyPlacement's to report, at its op.
LogicalResult verifyOpPlacement(Operation *op, MemoryPlanAttr plan) {
  Attribute attribute = op->getAttr(attr::kPlacement);
  auto placement = dyn_cast_or_null<PlacementAttr>(attribute);
  if (!attribute) {
    if (op->getNumResults() == 0)
      return success();
    return emitOpError(op) << "has no '" << attr::kPlacement
                           << "' in a function with a '" << attr::kMemoryPlan
                           << "'";
  }
  if (!placement || placement.getOffsets().size() != op->getNumResults())
    return success();
  bool aligned = !isa<GraphNodeOp>(op);
  for (auto [index, offset] : llvm::enumerate(placement.getOffsets())) {
    std::optional<int64_t> bytes =
        getTypeBytes(op->getResult(index).getType());
    if (offset == kNotInArena || !bytes)
      continue;
    if (failed(verifyPlace(op, plan, offset, *bytes, aligned,
                           "result " + Twine(index))))
      return failure();
  }
  if (std::optional<int64_t> workspace = placement.getWorkspace())
    return verifyPlace(op, plan, *workspace, /*bytes=*/0, /*aligned=*/true,
                       "its workspace");
  return success();
}
} // namespace

LogicalResult mlir::remat::detail::verifyMemoryPlan(
    Operation *op, MemoryPlanAttr plan,
    function_ref<InFlightDiagnostic()> emitError) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || function.isExternal())
    return emitError() << "'" << attr::kMemoryPlan
                       << "' is only allowed on a function with a body";
  Region &body = function.getFunctionBody();
  if (!body.hasOneBlock())
    return emitError() << "'" << attr::kMemoryPlan
                       << "' plans a body of one block; this one has "
                       << llvm::range_size(body.getBlocks());
  for (Operation &inner : body.front().without_terminator())
    if (failed(verifyOpPlacement(&inner, plan)))
      return failure();
  return success();
}

LogicalResult mlir::remat::detail::verifyPlacement(
    Operation *op, PlacementAttr placement,
    function_ref<InFlightDiagnostic()> emitError) {
  Operation *parent = op->getParentOp();
  if (!parent || !isa<FunctionOpInterface>(parent) || !getMemoryPlan(parent) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return emitError() << "'" << attr::kPlacement
                       << "' is only allowed on an op of the body of a "
                          "function with a '"
                       << attr::kMemoryPlan << "'";
  if (placement.getOffsets().size() != op->getNumResults())
    return emitError() << "has " << op->getNumResults() << " results but "
                       << placement.getOffsets().size() << " offsets in '"
                       << attr::kPlacement << "'";
  return success();
}
