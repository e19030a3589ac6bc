//===- NNConvPoolOps.td - convolution, pooling, upsampling ---*- tablegen -*-===//
//
// Convolutions and max and average pooling over NCHW images and NCDHW
// volumes; 2-D adaptive average pooling and bilinear and nearest-neighbour
// upsampling; with their backward ops. Backward ops take the input's shape from their result type.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNCONVPOOLOPS
#define REMAT_DIALECT_NN_IR_NNCONVPOOLOPS

include "remat/Dialect/NN/IR/NNBase.td"

/// A convolution of `count` spatial dimensions (mnemonic suffix `dims`, "2d";
/// `title`, "2-D") and its backward ops: `layout` names the input's
/// dimensions ("NCHW"), `weightLayout` the weight's ("OIHW"), `spatial` the
/// spatial ones ("H, W"); `ones` and `zeros` are the default geometry.
multiclass NN_ConvFamily<string dims, string title, int count, string layout,
                         string weightLayout, string spatial, string ones,
                         string zeros> {
  defvar mnemonic = "conv" # dims;
  defvar Geometry = (ins DefaultValuedAttr<NN_Spatial<count>, ones>:$stride,
                         DefaultValuedAttr<NN_Spatial<count>, zeros>:$padding,
                         DefaultValuedAttr<NN_Spatial<count>, ones>:$dilation,
                         DefaultValuedAttr<I64Attr, "1">:$groups);

  def Op : NN_Op<mnemonic> {
    let summary = title # " convolution, " # layout # " input, " #
                  weightLayout # " weight, optional bias";
    let description = [{
      Output size per spatial dimension:
      floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1.
      The weight is [O, C / groups, kernel...]; C and O are divisible by
      groups.
    }];
    let arguments = !con((ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                              Optional<NN_FloatTensor>:$bias), Geometry);
    let results = (outs NN_FloatTensor:$result);
    let assemblyFormat = [{
      $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
    }];
    let hasVerifier = 1;
  }

  def BackwardInputOp : NN_Op<mnemonic # "_backward_input"> {
    let summary = "gradient of a " # mnemonic #
                  "'s input from grad_output and the weight";
    let description = [{
      Also the transposed convolution (ConvTranspose, without its bias):
      the weight is then [C_in, C_out / groups, kernel...] and `grad_output`
      the transposed convolution's input. The result's spatial size is any
      whose convolution gives `grad_output`'s (the output padding, below the
      stride, is in the result type).
    }];
    let arguments = !con((ins NN_FloatTensor:$grad_output,
                              NN_FloatTensor:$weight), Geometry);
    let results = (outs NN_FloatTensor:$grad_input);
    let assemblyFormat = [{
      $grad_output `,` $weight attr-dict `:` functional-type(operands, results)
    }];
    let hasVerifier = 1;
  }

  def BackwardWeightOp : NN_Op<mnemonic # "_backward_weight"> {
    let summary = "gradient of a " # mnemonic #
                  "'s weight from grad_output and the input";
    let arguments = !con((ins NN_FloatTensor:$grad_output,
                              NN_FloatTensor:$input), Geometry);
    let results = (outs NN_FloatTensor:$grad_weight);
    let assemblyFormat = [{
      $grad_output `,` $input attr-dict `:` functional-type(operands, results)
    }];
    let hasVerifier = 1;
  }

  def BackwardBiasOp : NN_Op<mnemonic # "_backward_bias"> {
    let summary = "gradient of a " # mnemonic #
                  "'s bias: grad_output summed over N, " # spatial;
    let arguments = (ins NN_FloatTensor:$grad_output);
    let results = (outs NN_FloatTensor:$grad_bias);
    let assemblyFormat = [{
      $grad_output attr-dict `:` functional-type(operands, results)
    }];
    let hasVerifier = 1;
  }
}

defm NN_Conv2d : NN_ConvFamily<"2d", "2-D", 2, "NCHW", "OIHW", "H, W",
                               "{1, 1}", "{0, 0}">;
defm NN_Conv3d : NN_ConvFamily<"3d", "3-D", 3, "NCDHW", "OIDHW", "D, H, W",
                               "{1, 1, 1}", "{0, 0, 0}">;

/// Max pooling over `count` spatial dimensions (mnemonic suffix `dims`, "2d";
/// `title`, "2-D") and its backward op; `ones` and `zeros` are the default
/// geometry.
multiclass NN_MaxPoolFamily<string dims, string title, int count,
                            string ones, string zeros> {
  defvar mnemonic = "max_pool" # dims;
  defvar Geometry = (ins NN_Spatial<count>:$kernel_size,
                         NN_Spatial<count>:$stride,
                         DefaultValuedAttr<NN_Spatial<count>, zeros>:$padding,
                         DefaultValuedAttr<NN_Spatial<count>, ones>:$dilation,
                         DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);

  def Op : NN_Op<mnemonic> {
    let summary = title # " max pooling with the argmax indices "
                  "(aten::" # mnemonic # "_with_indices)";
    let description = [{
      Output size per spatial dimension: as for the convolution, rounded up
      instead of down when `ceil_mode` is set, except that a last window
      starting in the right padding is dropped (ATen's rule). Padding is at
      most half the kernel. `indices` holds, per output element, the flat
      index (row-major over the spatial dimensions) of the maximum in its
      input plane.
    }];
    let arguments = !con((ins NN_FloatTensor:$input), Geometry);
    let results = (outs NN_FloatTensor:$result, NN_IndexTensor:$indices);
    let assemblyFormat = [{
      $input attr-dict `:` type($input) `->` type($result) `,` type($indices)
    }];
    let hasVerifier = 1;
  }

  def BackwardOp : NN_Op<mnemonic # "_backward"> {
    let summary = "scatters grad_output to the argmax positions of " #
                  mnemonic;
    let arguments = !con((ins NN_FloatTensor:$grad_output,
                              NN_IndexTensor:$indices), Geometry);
    let results = (outs NN_FloatTensor:$grad_input);
    let assemblyFormat = [{
      $grad_output `,` $indices attr-dict `:` functional-type(operands, results)
    }];
    let hasVerifier = 1;
  }
}

/// Average pooling over `count` spatial dimensions and its backward op.
multiclass NN_AvgPoolFamily<string dims, string title, int count,
                            string zeros> {
  defvar mnemonic = "avg_pool" # dims;
  defvar Geometry = (ins NN_Spatial<count>:$kernel_size,
                         NN_Spatial<count>:$stride,
                         DefaultValuedAttr<NN_Spatial<count>, zeros>:$padding,
                         DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                         DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);

  def Op : NN_Op<mnemonic> {
    let summary = title # " average pooling (aten::" # mnemonic # ")";
    let arguments = !con((ins NN_FloatTensor:$input), Geometry);
    let results = (outs NN_FloatTensor:$result);
    let assemblyFormat = [{
      $input attr-dict `:` type($input) `->` type($result)
    }];
    let hasVerifier = 1;
  }

  def BackwardOp : NN_Op<mnemonic # "_backward"> {
    let summary = "spreads grad_output evenly over each " # mnemonic #
                  " window";
    let arguments = !con((ins NN_FloatTensor:$grad_output), Geometry);
    let results = (outs NN_FloatTensor:$grad_input);
    let assemblyFormat = [{
      $grad_output attr-dict `:` type($grad_output) `->` type($grad_input)
    }];
    let hasVerifier = 1;
  }
}

defm NN_MaxPool2d : NN_MaxPoolFamily<"2d", "2-D", 2, "{1, 1}", "{0, 0}">;
defm NN_MaxPool3d : NN_MaxPoolFamily<"3d", "3-D", 3, "{1, 1, 1}", "{0, 0, 0}">;
defm NN_AvgPool2d : NN_AvgPoolFamily<"2d", "2-D", 2, "{0, 0}">;
defm NN_AvgPool3d : NN_AvgPoolFamily<"3d", "3-D", 3, "{0, 0, 0}">;

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

def NN_UpsampleNearest2dOp : NN_Op<"upsample_nearest2d"> {
  let summary = "nearest-neighbour resize to the result's H x W (aten::upsample_nearest2d)";
  let description = [{
    Output index i along a dimension of input size `in` and result size
    `out` reads input index min(floor(i * (in / out)), in - 1), the scale
    in float, as ATen's `nearest` mode (not `nearest-exact`).
  }];
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_UpsampleNearest2dBackwardOp : NN_Op<"upsample_nearest2d_backward"> {
  let summary = "gradient of upsample_nearest2d: each input element sums the outputs that read it";
  let arguments = (ins NN_FloatTensor:$grad_output);
  let results = (outs NN_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `->` type($grad_input)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_NN_IR_NNCONVPOOLOPS
