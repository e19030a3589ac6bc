//===- RematDialect.h - the remat dialect -----------------------*- C++ -*-===//
//
// The dialect that owns the `remat.*` attributes (names, roles, phases,
// policies) and the helpers that read them, so that no pass spells an
// attribute name itself.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "remat/Interfaces/CostOpInterface.h"

#include "remat/Dialect/Remat/IR/RematOpsDialect.h.inc"

#include "remat/Dialect/Remat/IR/RematEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/IR/RematAttrs.h.inc"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.h.inc"

namespace mlir::remat {

/// Names of the discardable attributes the remat dialect owns.
namespace attr {
inline constexpr llvm::StringLiteral kName = "remat.name";
inline constexpr llvm::StringLiteral kRole = "remat.role";
inline constexpr llvm::StringLiteral kPhase = "remat.phase";
inline constexpr llvm::StringLiteral kPolicy = "remat.policy";
inline constexpr llvm::StringLiteral kRecomputeOf = "remat.recompute_of";
inline constexpr llvm::StringLiteral kWeights = "remat.weights";
/// On a function: its planned arena (#remat.memory_plan).
inline constexpr llvm::StringLiteral kMemoryPlan = "remat.memory_plan";
/// On each op of a planned function with results or a workspace: where they
/// sit in the arena (#remat.placement).
inline constexpr llvm::StringLiteral kPlacement = "remat.placement";
inline constexpr llvm::StringLiteral kSolve = "remat.solve";
/// On a function result: the `remat.name` of the argument (role weight,
/// buffer, opt_state or step) whose new value the result is; it is written
/// into that argument's buffer.
inline constexpr llvm::StringLiteral kUpdates = "remat.updates";
/// On an op of an accumulated step: the micro-step i >= 1 whose copy of the
/// micro-batch's op it is (its name is the original's with the prefix
/// `micro<i>.`); micro-step 0's ops carry none.
inline constexpr llvm::StringLiteral kMicroStep = "remat.micro_step";
/// Beside `remat.micro_step`: the `remat.name` of the micro-step 0 op that
/// this op copies. A copy's own name may have been made unique (the model
/// may hold an op of that name), so it is never parsed for its origin.
inline constexpr llvm::StringLiteral kMicroOrigin = "remat.micro_origin";
} // namespace attr

/// The `remat.placement` offset of a value that lives in an argument's
/// buffer (updated state, a view of an argument), not in the arena.
inline constexpr int64_t kNotInArena = -1;

/// The planned arena of `function` (its `remat.memory_plan`); null when it
/// has none.
MemoryPlanAttr getMemoryPlan(Operation *function);

/// Where `op`'s results and workspace sit in its function's arena (its
/// `remat.placement`); null when it has none.
PlacementAttr getPlacement(Operation *op);

/// Removes the memory plan of `function` and every placement in its body: a
/// pass that changes the body (adds, moves or clones ops) leaves no plan that
/// no longer holds.
void eraseMemoryPlan(FunctionOpInterface function);

/// The name of the micro-step 0 op that `op` (of an accumulated step, or a
/// recomputation of one) repeats: its `remat.micro_origin`; empty when `op`
/// is no micro-step's copy.
llvm::StringRef getMicroStepOrigin(Operation *op);

// Roles, phases and policies (ArgumentRole, Phase, OpPolicy) and their
// spellings (stringifyPhase, symbolizePhase, ...) are generated from
// RematEnums.td. These read and write them:

/// The `remat.role` of argument `index` of `function`; std::nullopt if it
/// has none.
std::optional<ArgumentRole> getArgumentRole(FunctionOpInterface function,
                                            unsigned index);

/// The attributes of a new argument: `remat.name = name`, `remat.role`.
DictionaryAttr getArgumentAttributes(MLIRContext *context,
                                     llvm::StringRef name, ArgumentRole role);

/// Sets the `remat.phase` of `op`.
void setPhase(Operation *op, Phase phase);

/// The `remat.policy` of `op` (the user's mark), if it has one.
std::optional<OpPolicy> getPolicy(Operation *op);

/// Sets the `remat.policy` of `op`.
void setPolicy(Operation *op, OpPolicy policy);

/// The index of the argument of `function` whose `remat.name` is `name`.
std::optional<unsigned> findArgumentIndexByName(FunctionOpInterface function,
                                                llvm::StringRef name);

/// The body's argument of `function` whose `remat.name` is `name`; null for a
/// declaration, an unknown name, or a body whose arguments do not match the
/// signature.
BlockArgument findArgumentByName(FunctionOpInterface function,
                                 llvm::StringRef name);

/// For result `index` of `function` marked `remat.updates`: the argument it
/// names, or null when the mark is absent or names no argument.
BlockArgument getUpdatedArgument(FunctionOpInterface function, unsigned index);


/// Returns the `remat.phase` of `op`, or std::nullopt if it has none.
std::optional<Phase> getPhase(Operation *op);

/// Returns the `remat.name` of `op`, or an empty string if it has none.
llvm::StringRef getOpName(Operation *op);

/// The name of a value (docs/design.md): the `remat.name` of an argument; for an
/// op's result, the op's `remat.name`, followed by `#k` for result k of an op
/// with several results. Ops and arguments without a name are called by
/// their kind and position (`nn.relu@3`, `arg2`).
std::string getValueName(Value value);

/// Names `op`, which `forward`'s gradient rule created,
/// "<forward's remat.name (else its kind)>.<suffix>" and marks it
/// `remat.phase = #remat.phase<backward>`.
void tagBackwardOp(Operation *op, Operation *forward, llvm::StringRef suffix);

/// `op` as diagnostics name it: its kind and its `remat.name` when it has
/// one, e.g. `'nn.conv2d' op "layer1.0.conv1"`.
std::string describeOp(Operation *op);

/// An error (a warning) at `op`'s location that begins with describeOp(op),
/// as Operation::emitOpError does with the kind alone, but that never
/// prints the op after it: a diagnostic stays a few lines however large the
/// op (a function, an op with regions) and whatever
/// --mlir-print-op-on-diagnostic says.
InFlightDiagnostic emitOpError(Operation *op);
InFlightDiagnostic emitOpWarning(Operation *op);

/// An error at `function`'s location that begins with its name
/// (`function @forward: `), without printing the function.
InFlightDiagnostic emitFunctionError(FunctionOpInterface function);

} // namespace mlir::remat

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
