//===- CostOpInterface.td - per-op cost facts for remat ------*- tablegen -*-===//
//
// The facts that the analyses and the rematerialization pass need about an op:
// how much arithmetic it does, how many bytes it moves, how much scratch
// memory it needs while it runs, and whether it may be recomputed at all.
// nn ops implement it directly; upstream dialects get it through external
// models, and abstract benchmark-graph ops from their `cost` attribute.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INTERFACES_COSTOPINTERFACE
#define REMAT_INTERFACES_COSTOPINTERFACE

include "mlir/IR/OpBase.td"

def CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::remat";
  let description = [{
    Cost facts of one execution of an op, used by the cost model, the
    peak-memory analysis and the rematerialization solvers.

    - `getFlopCount`: floating-point operations (a multiply-add counts 2).
    - `getBytesMoved`: bytes read plus bytes written; by default the bytes of
      every tensor operand and result, which is right for ops that touch each
      element once.
    - `getWorkspaceBytes`: scratch memory live only while the op runs, on top
      of its operands and results; 0 by default.
    - `getGivenCost`: for abstract benchmark-graph ops, the cost the graph
      gives (in its own units); std::nullopt for real ops, whose time the
      cost model estimates from FLOPs and bytes.
    - `isRecomputable`: false for ops whose results cannot be reproduced by
      running them again (and that must therefore never be cloned by
      rematerialization); true by default, since every op of value semantics
      whose randomness comes from an explicit seed operand is reproducible.
  }];

  let methods = [
    InterfaceMethod<
      "Returns the floating-point operations of one execution.",
      "int64_t", "getFlopCount", (ins)>,
    InterfaceMethod<
      "Returns the bytes read and written by one execution.",
      "int64_t", "getBytesMoved", (ins), "",
      [{ return ::mlir::remat::getOperandAndResultBytes($_op.getOperation()); }]>,
    InterfaceMethod<
      "Returns the scratch bytes the op needs while it runs.",
      "int64_t", "getWorkspaceBytes", (ins), "", [{ return 0; }]>,
    InterfaceMethod<
      "Returns whether running the op again reproduces its results.",
      "bool", "isRecomputable", (ins), "", [{ return true; }]>,
    InterfaceMethod<
      "Returns the op's compute cost in an imported graph's own units, for "
      "abstract graph ops whose cost is given rather than estimated.",
      "std::optional<double>", "getGivenCost", (ins), "",
      [{ return std::nullopt; }]>,
  ];

  // Bytes of a value are element count x element size; a result whose bytes
  // do not fit in int64 is an error at its op.
  let verify = [{ return ::mlir::remat::verifyResultBytes($_op); }];
}

#endif // REMAT_INTERFACES_COSTOPINTERFACE
