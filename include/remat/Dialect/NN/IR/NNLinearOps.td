//===- NNLinearOps.td - linear, matmul and embedding ops -----*- tablegen -*-===//
//
// Dense contractions (linear layers, batched matrix products) and embedding
// lookups, with their backward ops.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNLINEAROPS
#define REMAT_DIALECT_NN_IR_NNLINEAROPS

include "remat/Dialect/NN/IR/NNBase.td"

def NN_LinearOp : NN_Op<"linear"> {
  let summary = "input [..., in] x weight [out, in]^T + bias [out] (aten::linear)";
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_LinearBackwardInputOp : NN_Op<"linear_backward_input"> {
  let summary = "grad_output [..., out] x weight [out, in] -> grad_input [..., in]";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$weight);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_LinearBackwardWeightOp : NN_Op<"linear_backward_weight"> {
  let summary = "grad_output^T x input, summed over leading dims -> [out, in]";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$grad_weight);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_LinearBackwardBiasOp : NN_Op<"linear_backward_bias"> {
  let summary = "grad_output summed over all but the last dim -> [out]";
  let arguments = (ins NN_FloatTensor:$grad_output);
  let results = (outs NN_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_MatmulOp : NN_Op<"matmul"> {
  let summary = "batched matrix product [B..., M, K] x [B..., K, N] (aten::matmul)";
  let description = [{
    Both operands have the same rank, at least 2, and the same batch
    dimensions (no broadcasting); the result is [B..., M, N].
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_MatmulBackwardLhsOp : NN_Op<"matmul_backward_lhs"> {
  let summary = "grad_output [B..., M, N] x rhs^T -> grad_lhs [B..., M, K]";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$grad_lhs);
  let assemblyFormat = [{
    $grad_output `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_MatmulBackwardRhsOp : NN_Op<"matmul_backward_rhs"> {
  let summary = "lhs^T x grad_output [B..., M, N] -> grad_rhs [B..., K, N]";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_FloatTensor:$lhs);
  let results = (outs NN_FloatTensor:$grad_rhs);
  let assemblyFormat = [{
    $grad_output `,` $lhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_EmbeddingOp : NN_Op<"embedding", [], ["getBytesMoved"]> {
  let summary = "rows of weight [V, D] picked by integer indices (aten::embedding)";
  let description = [{
    The result has shape indices.shape + [D]. Rows at `padding_idx` (when it
    is not -1) receive no gradient.
  }];
  let arguments = (ins NN_FloatTensor:$weight, NN_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "-1">:$padding_idx);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $weight `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_EmbeddingBackwardOp : NN_Op<"embedding_backward"> {
  let summary = "scatter-adds grad_output rows into a [V, D] weight gradient";
  let arguments = (ins NN_FloatTensor:$grad_output, NN_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "-1">:$padding_idx);
  let results = (outs NN_FloatTensor:$grad_weight);
  let assemblyFormat = [{
    $grad_output `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNLINEAROPS
