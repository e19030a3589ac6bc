//===- NNOptimizerOps.td - optimizer updates -----------------*- tablegen -*-===//
//
// One optimizer step for one weight: the updated weight and optimizer state
// are new values (no in-place update at this level). These ops are never
// recomputed.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNOPTIMIZEROPS
#define REMAT_DIALECT_NN_IR_NNOPTIMIZEROPS

include "remat/Dialect/NN/IR/NNBase.td"

def NN_SgdOp : NN_Op<"sgd", [], ["isRecomputable"]> {
  let summary = "one SGD step with optional momentum and weight decay (torch.optim.SGD)";
  let description = [{
    g = grad + weight_decay * param; with momentum, the buffer becomes
    momentum * buffer + (1 - dampening) * g and g becomes the buffer (or
    g + momentum * buffer with nesterov); the weight becomes param - lr * g.
    The momentum buffer operand and result are present exactly when momentum
    is not 0. The buffer starts at zero (so the first step matches PyTorch,
    whose first buffer is g itself, only when dampening is 0).
  }];
  let arguments = (ins NN_FloatTensor:$param, NN_FloatTensor:$grad,
                       Optional<NN_FloatTensor>:$momentum_buffer,
                       F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       DefaultValuedAttr<BoolAttr, "false">:$nesterov);
  let results = (outs NN_FloatTensor:$new_param,
                      Optional<NN_FloatTensor>:$new_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad (`,` $momentum_buffer^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AdamOp : NN_Op<"adam", [
    AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq", "new_param",
                   "new_exp_avg", "new_exp_avg_sq"]>], ["isRecomputable"]> {
  let summary = "one Adam or AdamW step (torch.optim.Adam and AdamW, amsgrad off)";
  let description = [{
    `step` is a 0-d float tensor holding t, the number of this step counting
    from 1 (as PyTorch's state['step'] after its increment). With
    g = grad + weight_decay * param: m = beta1 * m + (1 - beta1) * g,
    v = beta2 * v + (1 - beta2) * g^2,
    param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).

    With `decoupled_weight_decay` (AdamW, as PyTorch's Adam option of that
    name) the decay leaves the gradient alone: g = grad, and the weight is
    first scaled, param *= 1 - lr * weight_decay.
  }];
  let arguments = (ins NN_FloatTensor:$param, NN_FloatTensor:$grad,
                       NN_FloatTensor:$exp_avg, NN_FloatTensor:$exp_avg_sq,
                       0DTensorOf<[AnyFloat]>:$step,
                       DefaultValuedAttr<F64Attr, "1e-3">:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       DefaultValuedAttr<BoolAttr, "false">:$decoupled_weight_decay);
  let results = (outs NN_FloatTensor:$new_param, NN_FloatTensor:$new_exp_avg,
                      NN_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step attr-dict
    `:` type($param) `,` type($step)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNOPTIMIZEROPS
