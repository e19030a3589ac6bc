//===- GraphJsonImport.h - public benchmark graphs as MLIR ------*- C++ -*-===//
//
// Imports the rematerialization literature's benchmark graphs (networkx
// node-link JSON: Checkmate's training graphs and Moccasin's random layered
// graphs) as one function of remat.graph_node ops, so that every analysis,
// solver and the planner run on them unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TARGET_GRAPHJSON_GRAPHJSONIMPORT_H
#define REMAT_TARGET_GRAPHJSON_GRAPHJSONIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir::remat {

/// Imports the graph in `buffer` as a module with one function named after
/// the buffer's file (its stem). Each node becomes a remat.graph_node whose
/// operands are its predecessors in edge order and whose result is
/// tensor<Nxi8> for the node's output bytes; the sinks are returned. Emits
/// an error naming the node or edge and returns null on malformed input.
OwningOpRef<ModuleOp> importGraphJson(const llvm::MemoryBuffer &buffer,
                                      MLIRContext *context);

/// Registers the `--import-graph-json` translation.
void registerGraphJsonImport();

} // namespace mlir::remat

#endif // REMAT_TARGET_GRAPHJSON_GRAPHJSONIMPORT_H
