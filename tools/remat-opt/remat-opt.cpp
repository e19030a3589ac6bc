//===- remat-opt.cpp - the remat optimizer driver -------------------------===//
//
// An mlir-opt for remat: parses, verifies, runs passes over and prints MLIR
// with remat's dialects and the upstream dialects of a training step
// registered.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::DialectRegistry registry;
  mlir::remat::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "remat optimizer driver: rematerialization of training "
                  "steps\n",
      registry));
}
