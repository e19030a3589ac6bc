//===- GradientOpInterface.cpp - reverse-mode rules per op ----------------===//

#include "remat/Interfaces/GradientOpInterface.h"

using namespace mlir;
using namespace mlir::remat;

#include "remat/Interfaces/GradientOpInterface.cpp.inc"
