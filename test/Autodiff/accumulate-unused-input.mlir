// An input the forward never reads is not sliced: its argument takes K x m
// rows like every input, but no micro-step copies a slice of it.
// RUN: remat-opt %s --remat-autodiff="accumulation-steps=2" | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK-SAME: %arg0: tensor<4x4xf32> {remat.name = "x", remat.role = #remat.role<input>}, %arg1: tensor<4x4xf32> {remat.name = "z", remat.role = #remat.role<input>}
// CHECK: nn.slice %arg0 {{.*}}remat.name = "x.slice"
// CHECK: nn.slice %arg0 {{.*}}remat.name = "micro1.x.slice"
// CHECK-NOT: nn.slice
// CHECK: return
func.func @f(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
             %z: tensor<2x4xf32> {remat.name = "z", remat.role = #remat.role<input>},
             %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>}) -> tensor<f32> {
  %p = nn.mul %x, %w {remat.name = "scale", remat.phase = #remat.phase<forward>} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = nn.mean %p {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
