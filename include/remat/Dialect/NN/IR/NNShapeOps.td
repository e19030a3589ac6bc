//===- NNShapeOps.td - reshapes, permutations and reductions -*- tablegen -*-===//
//
// Ops that move or reduce data without other arithmetic. The IR has value
// semantics; reshape and flatten only reinterpret a contiguous buffer, so they
// are views (ViewLikeOpInterface): by the memory model their result shares
// its operand's bytes. Dimension attributes may be negative, counting from
// the last dimension as in ATen.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNSHAPEOPS
#define REMAT_DIALECT_NN_IR_NNSHAPEOPS

include "remat/Dialect/NN/IR/NNBase.td"
include "mlir/Interfaces/ViewLikeInterface.td"

def NN_ReshapeOp : NN_Op<"reshape", [
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "same elements in row-major order, new shape (aten::reshape)";
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_FlattenOp : NN_Op<"flatten", [
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "merges dims start_dim..end_dim into one (aten::flatten)";
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$start_dim,
                       DefaultValuedAttr<I64Attr, "-1">:$end_dim);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_TransposeOp : NN_Op<"transpose"> {
  let summary = "swaps two dimensions (aten::transpose)";
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$dim0, I64Attr:$dim1);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_PermuteOp : NN_Op<"permute"> {
  let summary = "result dim i is input dim dims[i] (aten::permute)";
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_ConcatOp : NN_Op<"concat"> {
  let summary = "joins tensors along dim (aten::cat)";
  let arguments = (ins Variadic<NN_FloatTensor>:$inputs, I64Attr:$dim);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $result)
  }];
  let hasVerifier = 1;
}

/// The window shared by slice and its backward op.
defvar SliceWindow = (ins I64Attr:$dim, I64Attr:$start, I64Attr:$end,
                          DefaultValuedAttr<I64Attr, "1">:$step);

def NN_SliceOp : NN_Op<"slice"> {
  let summary = "elements start, start+step, ... below end along dim (aten::slice)";
  let description = [{
    0 <= start <= end <= size of dim, step >= 1; the result has
    ceil((end - start) / step) elements along dim. Integer tensors too
    (token ids, labels: remat-autodiff's micro-batches), a copy like the
    rest.
  }];
  let arguments = !con((ins NN_FloatOrIndexTensor:$input), SliceWindow);
  let results = (outs NN_FloatOrIndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_SliceBackwardOp : NN_Op<"slice_backward"> {
  let summary = "grad_output placed into zeros of the input's shape (aten::slice_backward)";
  let arguments = !con((ins NN_FloatTensor:$grad_output), SliceWindow);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `->` type($grad_input)
  }];
  let hasVerifier = 1;
}

/// A reduction over `dims`: the result drops them, or keeps them as 1 with
/// `keepdim`.
class NN_ReductionOp<string mnemonic> : NN_Op<mnemonic> {
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_SumOp : NN_ReductionOp<"sum"> {
  let summary = "sum over dims (aten::sum.dim_IntList)";
}

def NN_MeanOp : NN_ReductionOp<"mean"> {
  let summary = "mean over dims (aten::mean.dim)";
}

#endif // REMAT_DIALECT_NN_IR_NNSHAPEOPS
