//===- NNAttentionOps.td - scaled dot-product attention ------*- tablegen -*-===//
//
// Attention as one op, with flash attention's memory: the forward saves its
// output and the log-sum-exp of each query's scores, and the backward
// recomputes the scores from q, k and v. The attention matrix
// [B, H, Lq, Lk] is never a value, so neither the planner nor an arena ever
// holds it.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNATTENTIONOPS
#define REMAT_DIALECT_NN_IR_NNATTENTIONOPS

include "remat/Dialect/NN/IR/NNBase.td"

/// What the forward and backward ops share: the causal flag, the scale of
/// the scores and the dropout probability.
defvar AttentionOptions = (ins DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                               F64Attr:$scale,
                               DefaultValuedAttr<F64Attr, "0.0">:$dropout_p);

def NN_AttentionOp : NN_Op<"attention", [AttrSizedOperandSegments,
    AllTypesMatch<["query", "output"]>, AllTypesMatch<["key", "value"]>]> {
  let summary = "scaled dot-product attention (aten::scaled_dot_product_attention)";
  let description = [{
    softmax(scale * q k^T + mask) v over query [B, Hq, Lq, E], key and value
    [B, Hkv, Lk, E]. Grouped-query heads: Hq is a multiple of Hkv, and query
    head h reads key and value head h / (Hq / Hkv). `mask`, optional, is
    added to the scores; its shape broadcasts to [B, Hq, Lq, Lk] (a boolean
    mask is imported as 0 where it keeps and -inf where it drops).
    `is_causal` drops the scores of key j > query i (PyTorch's top-left
    alignment); a query whose every score is dropped gets zeros.

    With `dropout_p` > 0 (and then a `seed`) each probability (b, h, i, j)
    is zeroed with probability dropout_p, the rest scaled by
    1 / (1 - dropout_p), as `F.dropout` on the attention weights: the keep
    mask is the project's counter-based generator at the flat index of
    (b, h, i, j) in [B, Hq, Lq, Lk], so the backward and any recomputation
    draw the same mask without storing it.

    Results: the output [B, Hq, Lq, E] and the log-sum-exp of each query's
    scaled, masked scores [B, Hq, Lq] (f32), which the backward reads with
    q, k, v and the output.
  }];
  let arguments = !con((ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                            NN_FloatTensor:$value,
                            Optional<NN_FloatTensor>:$mask,
                            Optional<NN_Seed>:$seed), AttentionOptions);
  let results = (outs NN_FloatTensor:$output, NN_FloatTensor:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $mask^)? (`seed` $seed^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AttentionBackwardOp : NN_Op<"attention_backward", [
    AttrSizedOperandSegments,
    AllTypesMatch<["query", "output", "grad_output", "grad_query"]>,
    AllTypesMatch<["key", "value", "grad_key", "grad_value"]>]> {
  let summary = "gradients of attention's query, key and value";
  let description = [{
    From the gradient of the output, the forward's operands, its output and
    its log-sum-exp: the probabilities are recomputed from the scores,
    never read, and the dropout mask from the seed. The mask gets no
    gradient.
  }];
  let arguments = !con((ins NN_FloatTensor:$grad_output, NN_FloatTensor:$query,
                            NN_FloatTensor:$key, NN_FloatTensor:$value,
                            NN_FloatTensor:$output, NN_FloatTensor:$logsumexp,
                            Optional<NN_FloatTensor>:$mask,
                            Optional<NN_Seed>:$seed), AttentionOptions);
  let results = (outs NN_FloatTensor:$grad_query, NN_FloatTensor:$grad_key,
                      NN_FloatTensor:$grad_value);
  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $logsumexp
    (`,` $mask^)? (`seed` $seed^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNATTENTIONOPS
