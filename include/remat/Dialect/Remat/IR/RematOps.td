//===- RematOps.td - ops of the remat dialect -----------------*- tablegen -*-===//
//
// Ops of the remat dialect: the abstract node of an imported benchmark graph.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS
#define REMAT_DIALECT_REMAT_IR_REMATOPS

include "remat/Dialect/Remat/IR/RematBase.td"
include "remat/Dialect/Remat/IR/RematAttrs.td"
include "remat/Interfaces/CostOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Remat_GraphNodeOp : Remat_Op<"graph_node", [
    Pure, DeclareOpInterfaceMethods<CostOpInterface,
                                    ["getFlopCount", "getGivenCost"]>]> {
  let summary = "a node of an imported rematerialization benchmark graph";
  let description = [{
    One node of a public benchmark graph (Checkmate's training graphs,
    Moccasin's random layered graphs): its operands are its predecessors in
    edge order, its result is an abstract buffer `tensor<Nxi8>` of the node's
    output bytes, and `cost` is the graph's compute cost in the graph's own
    units. Its values are packed with 1-byte alignment. Syntax:
    `remat.graph_node(operands) {attributes} : (operand types) -> result type`.

    ```mlir
    %2 = remat.graph_node(%0, %1) {cost = 385.0 : f64, remat.name = "conv1",
                                   remat.phase = #remat.phase<forward>}
        : (tensor<64xi8>, tensor<32xi8>) -> tensor<128xi8>
    ```
  }];
  let arguments = (ins Variadic<StaticShapeTensorOf<[I8]>>:$inputs,
                       F64Attr:$cost);
  let results = (outs 1DTensorOf<[I8]>:$output);
  // `(` $inputs `)` attr-dict `:` functional-type($inputs, $output), by
  // hand: the generated printer builds each op's whole attribute dictionary
  // (a new uniqued attribute per op) to print it.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS
