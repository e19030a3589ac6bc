//===- NNConvPoolOps.td - convolution, pooling, upsampling ---*- tablegen -*-===//
//
// 2-D ops on NCHW images: convolution, max and average pooling, adaptive
// average pooling and bilinear upsampling, with their backward ops. Backward
// ops take the input's shape from their result type.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNCONVPOOLOPS
#define REMAT_DIALECT_NN_IR_NNCONVPOOLOPS

include "remat/Dialect/NN/IR/NNBase.td"

/// Geometry shared by conv2d and its backward ops.
defvar ConvGeometry = (ins NN_DefaultPair<"1", "1">:$stride,
                           NN_DefaultPair<"0", "0">:$padding,
                           NN_DefaultPair<"1", "1">:$dilation,
                           DefaultValuedAttr<I64Attr, "1">:$groups);

def NN_Conv2dOp : NN_Op<"conv2d"> {
  let summary = "2-D convolution, NCHW input, OIHW weight, optional bias";
  let description = [{
    Output size per spatial dimension:
    floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1.
    The weight is [O, C / groups, KH, KW]; C and O are divisible by groups.
  }];
  let arguments = !con((ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                            Optional<NN_FloatTensor>:$bias), ConvGeometry);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_Conv2dBackwardInputOp : NN_Op<"conv2d_backward_input"> {
  let summary = "gradient of a conv2d's input from grad_output and the weight";
  let description = [{
    Also the transposed convolution (ConvTranspose2d, without its bias):
    the weight is then [C_in, C_out / groups, KH, KW] and `grad_output` the
    transposed convolution's input. The result's spatial size is any whose
    convolution gives `grad_output`'s (the output padding, below the
    stride, is in the result type).
  }];
  let arguments = !con((ins NN_FloatTensor:$grad_output,
                            NN_FloatTensor:$weight), ConvGeometry);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_Conv2dBackwardWeightOp : NN_Op<"conv2d_backward_weight"> {
  let summary = "gradient of a conv2d's weight from grad_output and the input";
  let arguments = !con((ins NN_FloatTensor:$grad_output,
                            NN_FloatTensor:$input), ConvGeometry);
  let results = (outs NN_FloatTensor:$grad_weight);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_Conv2dBackwardBiasOp : NN_Op<"conv2d_backward_bias"> {
  let summary = "gradient of a conv2d's bias: grad_output summed over N, H, W";
  let arguments = (ins NN_FloatTensor:$grad_output);
  let results = (outs NN_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// Geometry shared by max_pool2d and its backward op.
defvar MaxPoolGeometry = (ins NN_Pair:$kernel_size, NN_Pair:$stride,
                              NN_DefaultPair<"0", "0">:$padding,
                              NN_DefaultPair<"1", "1">:$dilation,
                              DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);

def NN_MaxPool2dOp : NN_Op<"max_pool2d"> {
  let summary = "2-D max pooling with the argmax indices (aten::max_pool2d_with_indices)";
  let description = [{
    Output size per spatial dimension: as for conv2d, rounded up instead of
    down when `ceil_mode` is set, except that a last window starting in the
    right padding is dropped (ATen's rule). Padding is at most half the
    kernel. `indices` holds, per output element, the flat H*W index of the
    maximum in its input plane.
  }];
  let arguments = !con((ins NN_FloatTensor:$input), MaxPoolGeometry);
  let results = (outs NN_FloatTensor:$result, NN_IndexTensor:$indices);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def NN_MaxPool2dBackwardOp : NN_Op<"max_pool2d_backward"> {
  let summary = "scatters grad_output to the argmax positions of max_pool2d";
  let arguments = !con((ins NN_FloatTensor:$grad_output,
                            NN_IndexTensor:$indices), MaxPoolGeometry);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// Geometry shared by avg_pool2d and its backward op.
defvar AvgPoolGeometry = (ins NN_Pair:$kernel_size, NN_Pair:$stride,
                              NN_DefaultPair<"0", "0">:$padding,
                              DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                              DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);

def NN_AvgPool2dOp : NN_Op<"avg_pool2d"> {
  let summary = "2-D average pooling (aten::avg_pool2d)";
  let arguments = !con((ins NN_FloatTensor:$input), AvgPoolGeometry);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_AvgPool2dBackwardOp : NN_Op<"avg_pool2d_backward"> {
  let summary = "spreads grad_output evenly over each avg_pool2d window";
  let arguments = !con((ins NN_FloatTensor:$grad_output), AvgPoolGeometry);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `->` type($grad_input)
  }];
  let hasVerifier = 1;
}

def NN_AdaptiveAvgPool2dOp : NN_Op<"adaptive_avg_pool2d"> {
  let summary = "average pooling to the result's H x W (aten::adaptive_avg_pool2d)";
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_AdaptiveAvgPool2dBackwardOp : NN_Op<"adaptive_avg_pool2d_backward"> {
  let summary = "spreads grad_output over the adaptive pooling windows";
  let arguments = (ins NN_FloatTensor:$grad_output);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `->` type($grad_input)
  }];
  let hasVerifier = 1;
}

def NN_UpsampleBilinear2dOp : NN_Op<"upsample_bilinear2d"> {
  let summary = "bilinear resize to the result's H x W (aten::upsample_bilinear2d)";
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_UpsampleBilinear2dBackwardOp : NN_Op<"upsample_bilinear2d_backward"> {
  let summary = "gradient of upsample_bilinear2d, shaped as its input";
  let arguments = (ins NN_FloatTensor:$grad_output,
                       DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `->` type($grad_input)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNCONVPOOLOPS
