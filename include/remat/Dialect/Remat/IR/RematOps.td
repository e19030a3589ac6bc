//===- RematOps.td - ops of the remat dialect -----------------*- tablegen -*-===//
//
// Ops of the remat dialect. The dialect has none yet: abstract benchmark-graph
// nodes come with graph import.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS
#define REMAT_DIALECT_REMAT_IR_REMATOPS

include "remat/Dialect/Remat/IR/RematBase.td"

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS
