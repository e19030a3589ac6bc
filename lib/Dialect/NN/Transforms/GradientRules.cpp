//===- GradientRules.cpp - registering the nn gradient rules --------------===//

#include "remat/Dialect/NN/Transforms/GradientRules.h"

#include "GradientRuleUtils.h"

#include "remat/Dialect/NN/IR/NNDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::nn;

Value mlir::nn::reduceToType(remat::GradientBuilder &builder, Value gradient,
                             Type type) {
  auto target = cast<RankedTensorType>(type);
  auto gradientType = cast<RankedTensorType>(gradient.getType());
  if (gradientType == target)
    return gradient;
  int64_t added = gradientType.getRank() - target.getRank();
  SmallVector<int64_t> dims;
  SmallVector<int64_t> keptShape(gradientType.getShape());
  for (int64_t d = 0; d < gradientType.getRank(); ++d) {
    bool stretched = d >= added && target.getDimSize(d - added) == 1 &&
                     gradientType.getDimSize(d) != 1;
    if (d < added || stretched) {
      dims.push_back(d);
      keptShape[d] = 1;
    }
  }
  Value reduced = gradient;
  if (!dims.empty())
    reduced = builder.create<SumOp>(
        "grad.unbroadcast",
        RankedTensorType::get(keptShape, target.getElementType()), gradient,
        dims, /*keepdim=*/true);
  if (reduced.getType() != target)
    reduced = builder.create<ReshapeOp>("grad.unbroadcast", target, reduced);
  return reduced;
}

LogicalResult mlir::nn::checkOnlyFirstResult(Operation *op,
                                             ArrayRef<Value> resultGradients) {
  for (unsigned i = 1; i < resultGradients.size(); ++i)
    if (resultGradients[i])
      return op->emitError()
             << "the loss depends on result " << i
             << ", which the gradient rule does not differentiate (only "
                "result 0 is)";
  return success();
}

void mlir::nn::registerGradientRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, NNDialect *) {
    registerNetworkGradientRules(context);
    registerTensorGradientRules(context);
  });
}
