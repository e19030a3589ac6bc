//===- RematAttrs.td - attributes of the remat dialect -------*- tablegen -*-===//
//
// The records that passes leave for the tools after them, typed so that
// the dialect verifies what they hold and readers need no key strings.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATATTRS
#define REMAT_DIALECT_REMAT_IR_REMATATTRS

include "remat/Dialect/Remat/IR/RematBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Remat_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Remat_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
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

#endif // REMAT_DIALECT_REMAT_IR_REMATATTRS
