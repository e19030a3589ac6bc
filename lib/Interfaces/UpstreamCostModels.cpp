//===- UpstreamCostModels.cpp - cost facts of upstream ops ----------------===//
//
// One model per dialect, attached to every op of the dialect through its
// generated op list. Bytes moved, workspace and recomputability keep the
// interface defaults (every operand and result byte, none, true): upstream
// ops of these dialects are pure.
//
//===----------------------------------------------------------------------===//

#include "remat/Interfaces/UpstreamCostModels.h"

#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::remat;

namespace {

/// arith: one FLOP per element of every result; constants cost nothing.
template <typename OpTy>
struct ArithCostModel
    : public CostOpInterface::ExternalModel<ArithCostModel<OpTy>, OpTy> {
  int64_t getFlopCount(Operation *op) const {
    if (isa<arith::ConstantOp>(op))
      return 0;
    int64_t flops = 0;
    for (Type type : op->getResultTypes())
      flops += getElementCount(type);
    return flops;
  }
};

/// tensor: data movement, no arithmetic.
template <typename OpTy>
struct TensorCostModel
    : public CostOpInterface::ExternalModel<TensorCostModel<OpTy>, OpTy> {
  int64_t getFlopCount(Operation *) const { return 0; }
};

/// linalg structured ops: each point of the iteration space runs the payload
/// once, one FLOP per payload op (a matmul's multiply and add make 2).
template <typename OpTy>
struct LinalgCostModel
    : public CostOpInterface::ExternalModel<LinalgCostModel<OpTy>, OpTy> {
  int64_t getFlopCount(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    int64_t points = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return 0;
      points *= range;
    }
    Block *body = linalgOp.getBlock();
    int64_t payloadOps =
        body ? static_cast<int64_t>(body->getOperations().size()) - 1 : 0;
    return points * std::max<int64_t>(payloadOps, 1);
  }
};

template <template <typename> class Model, typename... Ops>
void attachToAll(MLIRContext *context) {
  (Ops::template attachInterface<Model<Ops>>(*context), ...);
}

} // namespace

void mlir::remat::registerUpstreamCostModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachToAll<ArithCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
                >(context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    attachToAll<TensorCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Tensor/IR/TensorOps.cpp.inc"
                >(context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachToAll<LinalgCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
                >(context);
  });
}
