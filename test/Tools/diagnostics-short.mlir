// Without torch: an error on a function names it at its location and prints
// neither the function after the message (--mlir-print-op-on-diagnostic is
// off by default) nor its signature line when that is longer than 300
// characters; an op's short line is quoted.
// RUN: not remat-opt %s --remat-autodiff=loss=hinge 2>&1 | FileCheck %s --check-prefix=FUNCTION
// FUNCTION: diagnostics-short.mlir:[[@LINE+9]]:1: error: function @wide: unknown loss 'hinge' (none or cross-entropy){{$}}
// FUNCTION-NOT: {{.}}
// RUN: not remat-opt %s --budget=1 2>&1 | FileCheck %s --check-prefix=OP
// OP: diagnostics-short.mlir:[[@LINE+8]]:8: error: cannot fit the step in the budget of 1 bytes: solver '{{[a-z]+}}' needs {{[0-9]+}} bytes at its peak
// OP-SAME: the step peaks at 'nn.sum' op "loss"
// OP-NEXT: {{^}}  %l = nn.sum
// OP-NEXT: {{^ +\^$}}
// OP-NOT: {{.}}

func.func @wide(%x: tensor<4xf32> {remat.name = "x", remat.role = #remat.role<input>}, %w0: tensor<4xf32> {remat.name = "w0", remat.role = #remat.role<weight>}, %w1: tensor<4xf32> {remat.name = "w1", remat.role = #remat.role<weight>}, %w2: tensor<4xf32> {remat.name = "w2", remat.role = #remat.role<weight>}, %w3: tensor<4xf32> {remat.name = "w3", remat.role = #remat.role<weight>}, %w4: tensor<4xf32> {remat.name = "w4", remat.role = #remat.role<weight>}, %w5: tensor<4xf32> {remat.name = "w5", remat.role = #remat.role<weight>}, %w6: tensor<4xf32> {remat.name = "w6", remat.role = #remat.role<weight>}, %w7: tensor<4xf32> {remat.name = "w7", remat.role = #remat.role<weight>}) -> tensor<f32> {
  %s = nn.mul %x, %w0 {remat.name = "scale", remat.phase = #remat.phase<forward>} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %l = nn.sum %s {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
