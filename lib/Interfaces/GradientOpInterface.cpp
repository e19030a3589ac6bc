//===- GradientOpInterface.cpp - reverse-mode rules per op ----------------===//

#include "remat/Interfaces/GradientOpInterface.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

using namespace mlir;
using namespace mlir::remat;

#include "remat/Interfaces/GradientOpInterface.cpp.inc"

GradientBuilder::GradientBuilder(OpBuilder &builder, Operation *forward)
    : builder(builder), forward(forward), loc(forward->getLoc()) {
  if (auto name = forward->getAttrOfType<StringAttr>(attr::kName))
    baseName = name.str();
  else
    baseName = forward->getName().stripDialect().str();
}

void GradientBuilder::tag(Operation *op, llvm::StringRef suffix) {
  op->setAttr(attr::kName, builder.getStringAttr(baseName + "." + suffix));
  op->setAttr(attr::kPhase, builder.getStringAttr("backward"));
}
