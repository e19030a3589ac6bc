//===- remat-translate.cpp - translations into and out of remat's IR ------===//
//
// An mlir-translate for remat: `--import-graph-json` reads a public
// rematerialization benchmark graph into a function of remat.graph_node ops;
// `--emit-cuda` writes a planned step as one CUDA C++ source (docs/cuda.md).
//
//===----------------------------------------------------------------------===//

#include "remat/Target/Cuda/CudaEmitter.h"
#include "remat/Target/GraphJson/GraphJsonImport.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::remat::registerGraphJsonImport();
  mlir::remat::registerCudaEmitter();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "remat translation driver"));
}
