//===- NNBase.td - the nn dialect: base definitions ----------*- tablegen -*-===//
//
// The nn dialect describes a training step as value-semantics ops on ranked,
// statically shaped tensors, mirroring ATen: forward ops, their backward ops,
// losses and optimizer updates. Every op is pure, verifies its shapes and
// attributes, and implements the cost op interface.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_NN_IR_NNBASE
#define REMAT_DIALECT_NN_IR_NNBASE

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "remat/Interfaces/CostOpInterface.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::mlir::nn";
  let summary = "Training-step ops mirroring ATen, forward and backward";
  let description = [{
    Ops on ranked, statically shaped tensors with value semantics: every op is
    a pure function of its operands, so the order of ops in a function is its
    execution schedule and every result is its own buffer. Layouts follow
    ATen: images are NCHW, convolution weights OIHW, linear weights
    [out, in]. Backward ops take only what they need numerically; shapes they
    need beyond that come from their result types.

    Broadcasting (add, sub, mul, div): NumPy rules, as in ATen. Shapes are
    aligned at their trailing dimensions; two dimensions are compatible when
    equal or when one of them is 1; a missing leading dimension counts as 1.
    The result has, per dimension, the larger of the two sizes.

    Randomness comes only from explicit seed operands (`tensor<i64>`), so that
    recomputing an op reproduces its results.
  }];
  let useDefaultAttributePrinterParser = 0;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NN_FloatTensor : StaticShapeTensorOf<[AnyFloat]>;
def NN_IndexTensor : StaticShapeTensorOf<[AnySignlessInteger]>;
def NN_FloatOrIndexTensor : StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>;
def NN_Seed : 0DTensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Attribute constraints
//===----------------------------------------------------------------------===//

/// `count` integers, one per spatial dimension (depth, height, width).
class NN_Spatial<int count>
    : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<count>]>;
/// Two integers, one per spatial dimension of an image (height, width).
def NN_Pair : NN_Spatial<2>;
class NN_DefaultPair<string h, string w>
    : DefaultValuedAttr<NN_Pair, "{" # h # ", " # w # "}">;

//===----------------------------------------------------------------------===//
// Base op classes
//===----------------------------------------------------------------------===//

/// Every float attribute of an nn op fits its first result's element type
/// (NNTraits.h).
def NN_ScalarAttributesFit : NativeOpTrait<"ScalarAttributesFitElementType"> {
  let cppNamespace = "::mlir::nn";
}

/// Every nn op is pure, implements the cost interface and carries only
/// constants its element type holds; each op has a FLOP count (and
/// overrides other interface methods where the defaults are wrong for it).
///
/// The op table: remat-tblgen -gen-nn-op-table generates from these fields
/// what an op needs beyond its class, so that an element-wise op is its
/// definition, its gradient rule and at most one kernel expression.
class NN_Op<string mnemonic, list<Trait> traits = [],
            list<string> costMethods = []>
    : Op<NN_Dialect, mnemonic,
         !listconcat([Pure, NN_ScalarAttributesFit,
                      DeclareOpInterfaceMethods<CostOpInterface,
                                !listconcat(["getFlopCount"], costMethods)>],
                     traits)> {
  // FLOPs per element of the result: getFlopCount is this times the
  // result's element count. -1: the op defines getFlopCount itself.
  int flopsPerElement = -1;
  // The ATen operator the op is one to one (without "aten::"): its tensor
  // operands in order, no attributes. With atenImport the TorchScript
  // importer maps aten::<atenName> nodes to the op; with atenOutKernel the
  // CPU executor runs at::<atenName>_out(result, operands...).
  string atenName = "";
  bit atenImport = 0;
  bit atenOutKernel = 0;
  // The CUDA (float) expression of a result element over the operands'
  // elements {0}, {1}, ... (llvm::formatv placeholders, "{{" for a brace).
  // Empty: the CUDA emitter spells the expression itself, or has none.
  string cudaExpression = "";
}

/// An element-wise unary op: `nn.relu %x : tensor<...>`.
class NN_UnaryOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

/// The backward of an element-wise unary op: the gradient of its input from
/// the gradient of its output and one saved tensor (its input or result).
class NN_UnaryBackwardOp<string mnemonic, string saved,
                         list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let arguments = (ins NN_FloatTensor:$grad_output,
                       NN_FloatTensor:$saved);
  let results = (outs NN_FloatTensor:$grad_input);
  let description = "`saved` is the forward op's " # saved # ".";
  let assemblyFormat = [{
    $grad_output `,` $saved attr-dict `:` type($grad_input)
  }];
}

/// An element-wise binary op with broadcasting.
class NN_BroadcastBinaryOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, traits> {
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

/// An element-wise op between a tensor and a constant scalar.
class NN_ScalarOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$scalar);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` type($result)";
}

#endif // REMAT_DIALECT_NN_IR_NNBASE
