//===- NNLossOps.td - softmax and losses ---------------------*- tablegen -*-===//
//
// Softmax, log-softmax and cross entropy with integer labels, with their
// backward ops.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNLOSSOPS
#define REMAT_DIALECT_NN_IR_NNLOSSOPS

include "remat/Dialect/NN/IR/NNBase.td"

/// FLOPs per element: a max, a subtraction, an exponential, a sum and a
/// division (softmax); a product, a sum and a subtraction (its backward).
class NN_SoftmaxLikeOp<string mnemonic>
    : NN_Op<mnemonic, [SameOperandsAndResultType]> {
  let flopsPerElement = 5;
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$dim);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

class NN_SoftmaxLikeBackwardOp<string mnemonic>
    : NN_Op<mnemonic, [SameOperandsAndResultType]> {
  let flopsPerElement = 4;
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$result,
                       I64Attr:$dim);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $result attr-dict `:` type($grad_input)
  }];
  let hasVerifier = 1;
}

def NN_SoftmaxOp : NN_SoftmaxLikeOp<"softmax"> {
  let summary = "exp(x) / sum(exp(x)) along dim (aten::_softmax)";
}
def NN_SoftmaxBackwardOp : NN_SoftmaxLikeBackwardOp<"softmax_backward"> {
  let summary = "gradient of softmax from its result (aten::_softmax_backward_data)";
}
def NN_LogSoftmaxOp : NN_SoftmaxLikeOp<"log_softmax"> {
  let summary = "x - log(sum(exp(x))) along dim (aten::_log_softmax)";
}
def NN_LogSoftmaxBackwardOp : NN_SoftmaxLikeBackwardOp<"log_softmax_backward"> {
  let summary = "gradient of log_softmax from its result (aten::_log_softmax_backward_data)";
}

def NN_CrossEntropyOp : NN_Op<"cross_entropy"> {
  let summary = "mean negative log-likelihood of labels under softmax(logits)";
  let description = [{
    logits [N, C] or [N, C, d1, ...] (a class score per pixel or position),
    labels [N] or [N, d1, ...] of integers in [0, C) (or `ignore_index`,
    whose positions are left out of the mean), result a 0-d tensor: ATen's
    cross_entropy with mean reduction, no weights, no label smoothing.
  }];
  let arguments = (ins NN_FloatTensor:$logits, NN_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs NN_FloatTensor:$loss);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_CrossEntropyBackwardOp : NN_Op<"cross_entropy_backward"> {
  let summary = "gradient of cross_entropy's logits: (softmax - onehot) * grad / N";
  let arguments = (ins NN_FloatTensor:$grad_loss, NN_FloatTensor:$logits,
                       NN_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs NN_FloatTensor:$grad_logits);
  let assemblyFormat = [{
    $grad_loss `,` $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNLOSSOPS
