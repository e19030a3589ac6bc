// The op table generator on one op that uses every field, and one that uses
// none: what each section holds.
// RUN: remat-tblgen -gen-nn-op-table %tblgen_includes %s | FileCheck %s

include "remat/Dialect/NN/IR/NNBase.td"

def NN_TestExpOp : NN_UnaryOp<"test_exp"> {
  let flopsPerElement = 7;
  let atenName = "exp";
  let atenImport = 1;
  let atenOutKernel = 1;
  let cudaExpression = "([&] {{ return expf({0}); }())";
}

def NN_TestPlainOp : NN_Op<"test_plain"> {
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs, F64Attr:$a);
  let results = (outs NN_FloatTensor:$result);
}

// CHECK-LABEL: #ifdef GEN_NN_FLOP_COUNTS
// CHECK:       namespace mlir::nn {
// CHECK-NEXT:  int64_t TestExpOp::getFlopCount() {
// CHECK-NEXT:    return 7 * getNumElements(getOperation()->getResult(0).getType());
// CHECK-NOT:   TestPlainOp
// CHECK:       #endif // GEN_NN_FLOP_COUNTS

// CHECK-LABEL: #ifdef GEN_NN_ATEN_KERNELS
// CHECK:         if (::llvm::isa<::mlir::nn::TestExpOp>(op))
// CHECK-NEXT:      return at::exp_out(result, operands[0]);
// CHECK-NEXT:    return std::nullopt;
// CHECK:       #endif // GEN_NN_ATEN_KERNELS

// CHECK-LABEL: #ifdef GEN_NN_ATEN_IMPORTS
// CHECK:       static const AtenOneToOneOp kAtenOneToOneOps[] = {
// CHECK-NEXT:      {"aten::exp", 1,
// CHECK:             return ::mlir::nn::TestExpOp::create(builder, loc, inputs[0]);
// CHECK-NOT:   TestPlainOp
// CHECK:       #endif // GEN_NN_ATEN_IMPORTS

// CHECK-LABEL: #ifdef GEN_NN_CUDA_EXPRESSIONS
// CHECK:         if (::llvm::isa<::mlir::nn::TestExpOp>(op))
// CHECK-NEXT:      return ::llvm::formatv("([&] {{[{]}}{ return expf({0}); }())", operands[0]).str();
// CHECK-NEXT:    return std::nullopt;
// CHECK:       static bool hasTableExpression(::mlir::Operation *op) {
// CHECK-NEXT:    return ::llvm::isa<::mlir::nn::TestExpOp>(op);
// CHECK:       #endif // GEN_NN_CUDA_EXPRESSIONS
