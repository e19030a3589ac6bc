// A table field that the op's definition cannot honour is an error at build
// time, at the op's definition.
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DATTRIBUTE %s 2>&1 | FileCheck %s --check-prefix=ATTRIBUTE
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DNO_NAME %s 2>&1 | FileCheck %s --check-prefix=NO_NAME
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DUNUSED_NAME %s 2>&1 | FileCheck %s --check-prefix=UNUSED_NAME
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DPLACEHOLDER %s 2>&1 | FileCheck %s --check-prefix=PLACEHOLDER
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DBRACE %s 2>&1 | FileCheck %s --check-prefix=BRACE
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DFLOPS %s 2>&1 | FileCheck %s --check-prefix=FLOPS
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DTWO_RESULTS %s 2>&1 | FileCheck %s --check-prefix=TWO_RESULTS
// RUN: not remat-tblgen -gen-nn-op-table %tblgen_includes -DCUDA_ATTRIBUTE %s 2>&1 | FileCheck %s --check-prefix=CUDA_ATTRIBUTE

include "remat/Dialect/NN/IR/NNBase.td"

#ifdef ATTRIBUTE
// ATTRIBUTE: nn-op-table-errors.td:[[@LINE+1]]:5: error: an ATen call by name needs one result, a fixed number of operands and no attributes
def NN_ScaleOp : NN_ScalarOp<"scale"> {
  let atenName = "mul";
  let atenOutKernel = 1;
}
#endif

#ifdef NO_NAME
// NO_NAME: nn-op-table-errors.td:[[@LINE+1]]:5: error: atenImport and atenOutKernel need an atenName
def NN_ExpOp : NN_UnaryOp<"exp"> {
  let atenImport = 1;
}
#endif

#ifdef UNUSED_NAME
// UNUSED_NAME: nn-op-table-errors.td:[[@LINE+1]]:5: error: atenName is unused without atenImport or atenOutKernel
def NN_ExpOp : NN_UnaryOp<"exp"> {
  let atenName = "exp";
}
#endif

#ifdef PLACEHOLDER
// PLACEHOLDER: nn-op-table-errors.td:[[@LINE+1]]:5: error: cudaExpression names an operand the op does not have
def NN_ExpOp : NN_UnaryOp<"exp"> {
  let cudaExpression = "expf({1})";
}
#endif

#ifdef BRACE
// BRACE: nn-op-table-errors.td:[[@LINE+1]]:5: error: cudaExpression: '{' must start an operand placeholder {N} or an escaped '{{[{]}}{'
def NN_ExpOp : NN_UnaryOp<"exp"> {
  let cudaExpression = "([&] { return expf({0}); }())";
}
#endif

#ifdef FLOPS
// FLOPS: nn-op-table-errors.td:[[@LINE+1]]:5: error: flopsPerElement must be >= 0
def NN_ExpOp : NN_UnaryOp<"exp"> {
  let flopsPerElement = -3;
}
#endif

#ifdef TWO_RESULTS
// TWO_RESULTS: nn-op-table-errors.td:[[@LINE+1]]:5: error: flopsPerElement needs exactly one result
def NN_SplitOp : NN_Op<"split"> {
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$a, NN_FloatTensor:$b);
  let flopsPerElement = 1;
}
#endif

#ifdef CUDA_ATTRIBUTE
// CUDA_ATTRIBUTE: nn-op-table-errors.td:[[@LINE+1]]:5: error: cudaExpression needs one result, a fixed number of operands and no attributes
def NN_ScaleOp : NN_ScalarOp<"scale"> {
  let cudaExpression = "({0} * 2.0f)";
}
#endif
