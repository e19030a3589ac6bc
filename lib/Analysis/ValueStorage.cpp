//===- ValueStorage.cpp - where the bytes of each value are ---------------===//

#include "remat/Analysis/ValueStorage.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::remat;

bool mlir::remat::isViewOp(Operation *op) {
  return op && isa<ViewLikeOpInterface>(op) && op->getNumResults() == 1;
}

ValueStorage::ValueStorage(FunctionOpInterface function) {
  Region &body = function.getFunctionBody();
  if (body.empty() || !body.front().mightHaveTerminator())
    return;
  Operation *terminator = body.front().getTerminator();
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    BlockArgument argument = remat::getUpdatedArgument(function, index);
    if (!argument || !value.getDefiningOp() ||
        isViewOp(value.getDefiningOp()) || updateOf.count(argument) ||
        updatedArgument.count(value))
      continue;
    updatedArgument[value] = argument;
    updateOf[argument] = value;
  }
}

StorageKind ValueStorage::getKind(Value value) const {
  if (isa<BlockArgument>(value))
    return StorageKind::Argument;
  if (updatedArgument.count(value))
    return StorageKind::UpdatedState;
  if (isViewOp(value.getDefiningOp()))
    return StorageKind::View;
  return StorageKind::Arena;
}

Value ValueStorage::getOwner(Value value) const {
  while (true) {
    switch (getKind(value)) {
    case StorageKind::Argument:
    case StorageKind::Arena:
      return value;
    case StorageKind::UpdatedState:
      return updatedArgument.lookup(value);
    case StorageKind::View:
      value = cast<ViewLikeOpInterface>(value.getDefiningOp()).getViewSource();
      break;
    }
  }
}
