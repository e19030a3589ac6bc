//===- remat-translate.cpp - translations into and out of remat's IR ------===//
//
// An mlir-translate for remat: `--import-graph-json` reads a public
// rematerialization benchmark graph into a function of remat.graph_node ops.
//
//===----------------------------------------------------------------------===//

#include "remat/Target/GraphJson/GraphJsonImport.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::remat::registerGraphJsonImport();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "remat translation driver"));
}
