//===- GradientOpInterface.td - reverse-mode rules per op -----*- tablegen -*-===//
//
// What remat-autodiff needs from an op to build the backward pass through
// it: which operands can receive a gradient, and how to build their
// gradients from the gradients of its results. Separate from the cost
// interface: an op can be costed without being differentiable. nn ops get
// their rules as external models (Dialect/NN/Transforms), mirroring ATen's
// derivatives.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INTERFACES_GRADIENTOPINTERFACE
#define REMAT_INTERFACES_GRADIENTOPINTERFACE

include "mlir/IR/OpBase.td"

def GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::remat";
  let description = [{
    The reverse-mode derivative of one op.

    - `isDifferentiableOperand`: whether operand `index` can receive a
      gradient. By default every floating-point operand can; labels,
      indices and seeds (integers) cannot, and ops override this for float
      operands that are state rather than inputs (batch norm's running
      statistics).
    - `buildGradients`: given the gradient of each result (null for results
      that no gradient reaches), builds the gradient of each operand whose
      `needed` flag is set into `operandGradients`, through `builder`,
      which names the new ops after the op and marks them `backward`. Fails
      with an error at the op when it cannot.
  }];

  let methods = [
    InterfaceMethod<
      "Returns whether operand `index` can receive a gradient.",
      "bool", "isDifferentiableOperand", (ins "unsigned":$index), "",
      [{
        return ::llvm::isa<::mlir::FloatType>(::mlir::getElementTypeOrSelf(
            $_op->getOperand(index).getType()));
      }]>,
    InterfaceMethod<
      "Builds the gradients of the needed operands.",
      "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::remat::GradientBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::ArrayRef<bool>":$needed,
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGradients)>,
  ];
}

#endif // REMAT_INTERFACES_GRADIENTOPINTERFACE
