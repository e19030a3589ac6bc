//===- remat-tblgen.cpp - mlir-tblgen with remat's generators -------------===//
//
// The generators register themselves (mlir::GenRegistration); the driver is
// mlir-tblgen's, so `remat-tblgen --help` lists them with their options.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
