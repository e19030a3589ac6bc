//===- RematBase.td - the remat dialect ----------------------*- tablegen -*-===//
//
// The `remat` dialect owns the discardable attributes that every pass and tool
// of the project reads: stable names, roles of function arguments, phases of
// ops, user policies and recomputation provenance. Its verifier rejects
// misspelled or ill-typed `remat.*` attributes at parse time, so that a typo
// in a hand-written step does not silently change what the solvers do.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATBASE
#define REMAT_DIALECT_REMAT_IR_REMATBASE

include "mlir/IR/OpBase.td"

def Remat_Dialect : Dialect {
  let name = "remat";
  let cppNamespace = "::mlir::remat";
  let summary = "Names, roles, phases and policies of a training step";
  let description = [{
    Attributes read by the remat passes and tools (see docs/design.md,
    "The IR"):

    | attribute | where | values |
    |---|---|---|
    | `remat.name` | ops, function arguments and results | a non-empty string, stable across passes |
    | `remat.role` | function arguments | `#remat.role<input>`, `label`, `weight`, `buffer`, `opt_state`, `step` or `seed` |
    | `remat.phase` | ops | `#remat.phase<forward>`, `backward` or `update` |
    | `remat.policy` | ops | `#remat.policy<keep>` or `recompute` (the user's marks) |
    | `remat.recompute_of` | ops | the name of the value this op recomputes |
    | `remat.micro_step` | ops | in an accumulated step, the micro-step i >= 1 whose copy of the micro-batch's op this is (i64; named `micro<i>.<name>`) |
    | `remat.micro_origin` | ops | beside `remat.micro_step`: the `remat.name` of the micro-step 0 op this op copies (the copy's own name may have been made unique) |
    | `remat.weights` | functions | path of the weights file |
    | `remat.memory_plan` | functions | the planned arena: its bytes and the alignment of its tensors (`#remat.memory_plan`, memory planner) |
    | `remat.placement` | ops of a planned function | the arena offset of each result and of the workspace (`#remat.placement`; -1: in an argument's buffer) |
    | `remat.solve` | functions | what rematerialization did: budget, solver, status, the peak and cost before (`#remat.solve`, read by the report) |

    A value is named `<op name>` for a single result or `<op name>#k` for
    result k; an argument by its `remat.name`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the attribute definitions (RematAttrs.cpp).
    void registerAttributes();
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

class Remat_Op<string mnemonic, list<Trait> traits = []>
    : Op<Remat_Dialect, mnemonic, traits>;

#endif // REMAT_DIALECT_REMAT_IR_REMATBASE
