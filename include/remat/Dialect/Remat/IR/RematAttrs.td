//===- RematAttrs.td - attributes of the remat dialect -------*- tablegen -*-===//
//
// The records that passes leave for the tools after them, typed so that
// the dialect verifies what they hold and readers need no key strings.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATATTRS
#define REMAT_DIALECT_REMAT_IR_REMATATTRS

include "remat/Dialect/Remat/IR/RematBase.td"
include "remat/Dialect/Remat/IR/RematEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Remat_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Remat_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// Roles, phases and policies: `#remat.role<weight>`, `#remat.phase<forward>`,
// `#remat.policy<recompute>`.
def Remat_ArgumentRoleAttr
    : EnumAttr<Remat_Dialect, Remat_ArgumentRole, "role"> {
  let assemblyFormat = "`<` $value `>`";
}

def Remat_PhaseAttr : EnumAttr<Remat_Dialect, Remat_Phase, "phase"> {
  let assemblyFormat = "`<` $value `>`";
}

def Remat_OpPolicyAttr : EnumAttr<Remat_Dialect, Remat_OpPolicy, "policy"> {
  let assemblyFormat = "`<` $value `>`";
}

def Remat_SolveRecordAttr : Remat_Attr<"SolveRecord", "solve"> {
  let summary = "what rematerialization did to a function (`remat.solve`)";
  let description = [{
    Left on the function by `remat-rematerialize` for the report: the
    budget (in bytes and as typed), the peak, compute cost and live bytes
    per step of the step before, the solver that ran and its status, each
    op's step in the given order (a recomputation: its original's), whether
    a time limit cut the solve short and whether the budget limits the
    arena with the arguments (`fit_arena`) or the peak alone; optionally
    the solver's proven lower bound on the cost and the solve's wall time.

    ```mlir
    func.func @step(...) attributes {remat.solve = #remat.solve<
        budget_bytes = 114688, budget_typed = "50%",
        peak_bytes_before = 229376, compute_cost_before = 1.5e-03 : f64,
        solver = "auto", status = "feasible",
        live_bytes_before = array<i64: 1024, 2048>,
        given_positions = array<i64: 0, 1>, timed_out = false,
        fit_arena = true>}
    ```
  }];
  let parameters = (ins
    "int64_t":$budget_bytes,
    StringRefParameter<"the budget as it was typed">:$budget_typed,
    "int64_t":$peak_bytes_before,
    "FloatAttr":$compute_cost_before,
    StringRefParameter<"the solver that ran">:$solver,
    StringRefParameter<"the solver's status">:$status,
    "DenseI64ArrayAttr":$live_bytes_before,
    "DenseI64ArrayAttr":$given_positions,
    "BoolAttr":$timed_out,
    "BoolAttr":$fit_arena,
    OptionalParameter<"FloatAttr">:$lower_bound_cost,
    OptionalParameter<"FloatAttr">:$solve_seconds
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same record without the solve's wall time (which makes the IR
    /// differ from run to run).
    SolveRecordAttr withoutSolveTime() const;
  }];
}

def Remat_MemoryPlanAttr : Remat_Attr<"MemoryPlan", "memory_plan"> {
  let summary = "a function's planned arena (`remat.memory_plan`)";
  let description = [{
    Left on a function by `remat-plan-memory`: the bytes of the one arena
    that holds every value and workspace of the step, and the alignment of
    the offsets of tensors in it (values of imported graph nodes, which are
    byte counts rather than tensors, are aligned to one byte). Each op of
    the body that has results or a workspace carries its place in the arena
    as a `#remat.placement`; the dialect checks that every one is there and
    that each value and workspace, at its offset, ends inside the arena.

    ```mlir
    func.func @step(...) attributes {
        remat.memory_plan = #remat.memory_plan<arena_bytes = 512,
                                               alignment = 256>} {...}
    ```
  }];
  let parameters = (ins "int64_t":$arena_bytes, "int64_t":$alignment);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Remat_PlacementAttr : Remat_Attr<"Placement", "placement"> {
  let summary = "where an op's results and workspace sit in the arena "
                "(`remat.placement`)";
  let description = [{
    Left on each op of a planned function by `remat-plan-memory`: the arena
    offset of each result, in order, and of the op's workspace when it has
    one. An offset of -1 says that the value lives in an argument's buffer
    (updated state, a view of an argument) rather than in the arena; a view
    of an arena value has its owner's offset.

    ```mlir
    %0:3 = nn.batch_norm ... {remat.placement = #remat.placement<[0, 256, 512]>}
    %1 = nn.conv2d ... {remat.placement = #remat.placement<[0], workspace = 1024>}
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "the offset of each result">:$offsets,
    OptionalParameter<"std::optional<int64_t>",
                      "the offset of the workspace">:$workspace
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATATTRS
