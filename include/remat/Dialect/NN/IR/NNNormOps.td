//===- NNNormOps.td - batch and layer normalization ----------*- tablegen -*-===//
//
// Normalization ops in training mode, with their backward ops. Batch norm's
// running statistics are updated by an op of their own, never recomputed, so
// that the normalization is a pure function that a recomputation may repeat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNNORMOPS
#define REMAT_DIALECT_NN_IR_NNNORMOPS

include "remat/Dialect/NN/IR/NNBase.td"

def NN_BatchNormOp : NN_Op<"batch_norm", [
    AllTypesMatch<["input", "result"]>,
    AllTypesMatch<["weight", "bias", "save_mean", "save_invstd"]>]> {
  let summary = "batch normalization with batch statistics (aten::native_batch_norm, training)";
  let description = [{
    Normalizes over every dimension but the channel dimension 1 of an input
    of rank 2 or more, then scales by `weight` and shifts by `bias` (both
    [C]). Results: the output, and the batch mean and inverse standard
    deviation (saved for the backward). No running statistics: a pure
    function of its operands, so a recomputation reads and writes no state.
    The running statistics are updated by `nn.batch_norm_update_stats`.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       NN_FloatTensor:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs NN_FloatTensor:$result, NN_FloatTensor:$save_mean,
                      NN_FloatTensor:$save_invstd);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict `:` type($input) `,` type($weight)
  }];
  let hasVerifier = 1;
}

def NN_BatchNormUpdateStatsOp : NN_Op<"batch_norm_update_stats", [
    AllTypesMatch<["running_mean", "running_var", "new_running_mean",
                   "new_running_var"]>], ["isRecomputable"]> {
  let summary = "batch norm's running statistics after one training step (aten::batch_norm_update_stats)";
  let description = [{
    The running statistics updated with the batch statistics of `input`
    ([N, C, ...], per channel over every dimension but 1), as ATen does in
    training mode: new = (1 - momentum) * old + momentum * batch statistic,
    the variance unbiased (times M / (M - 1), M the elements per channel).
    Its results are state (the new values of buffers), so it is never
    recomputed.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$running_mean,
                       NN_FloatTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum);
  let results = (outs NN_FloatTensor:$new_running_mean,
                      NN_FloatTensor:$new_running_var);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var attr-dict
    `:` type($input) `,` type($running_mean)
  }];
  let hasVerifier = 1;
}

def NN_BatchNormBackwardOp : NN_Op<"batch_norm_backward", [
    AllTypesMatch<["grad_output", "input", "grad_input"]>,
    AllTypesMatch<["weight", "save_mean", "save_invstd", "grad_weight",
                   "grad_bias"]>]> {
  let summary = "gradients of batch_norm's input, weight and bias (training mode)";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$input,
                       NN_FloatTensor:$weight, NN_FloatTensor:$save_mean,
                       NN_FloatTensor:$save_invstd);
  let results = (outs NN_FloatTensor:$grad_input, NN_FloatTensor:$grad_weight,
                      NN_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $weight `,` $save_mean `,` $save_invstd attr-dict
    `:` type($input) `,` type($weight)
  }];
  let hasVerifier = 1;
}

def NN_LayerNormOp : NN_Op<"layer_norm", [
    AllTypesMatch<["input", "result"]>, AllTypesMatch<["weight", "bias"]>,
    AllTypesMatch<["mean", "rstd"]>]> {
  let summary = "normalization over the trailing dims weight covers (aten::native_layer_norm)";
  let description = [{
    The normalized shape is the shape of `weight` (and `bias`), which must
    equal the trailing dimensions of the input. `mean` and `rstd` have the
    input's leading dimensions followed by a 1 for each normalized dimension.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       NN_FloatTensor:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs NN_FloatTensor:$result, NN_FloatTensor:$mean,
                      NN_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict
    `:` type($input) `,` type($weight) `->` type($mean)
  }];
  let hasVerifier = 1;
}

def NN_LayerNormBackwardOp : NN_Op<"layer_norm_backward", [
    AllTypesMatch<["grad_output", "input", "grad_input"]>,
    AllTypesMatch<["mean", "rstd"]>,
    AllTypesMatch<["weight", "grad_weight", "grad_bias"]>]> {
  let summary = "gradients of layer_norm's input, weight and bias";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$input,
                       NN_FloatTensor:$mean, NN_FloatTensor:$rstd,
                       NN_FloatTensor:$weight);
  let results = (outs NN_FloatTensor:$grad_input, NN_FloatTensor:$grad_weight,
                      NN_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $mean `,` $rstd `,` $weight attr-dict
    `:` type($input) `,` type($mean) `,` type($weight)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNNORMOPS
