// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy" | FileCheck %s

// The gradient of a concatenation slices the result's gradient along the
// concatenated dim, counted from the end when negative (dim = -1 here is 1).

// CHECK-LABEL: func.func @two_heads
// CHECK: nn.slice %{{.*}} {dim = 1 : i64, end = 3 : i64, remat.name = "cat.grad", {{.*}}start = 0 : i64{{.*}}} : tensor<2x6xf32> -> tensor<2x3xf32>
// CHECK: nn.slice %{{.*}} {dim = 1 : i64, end = 6 : i64, remat.name = "cat.grad{{.*}}", {{.*}}start = 3 : i64{{.*}}} : tensor<2x6xf32> -> tensor<2x3xf32>
func.func @two_heads(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                     %a: tensor<3x4xf32> {remat.name = "a", remat.role = #remat.role<weight>},
                     %b: tensor<3x4xf32> {remat.name = "b", remat.role = #remat.role<weight>})
    -> tensor<2x6xf32> {
  %ya = nn.linear %x, %a {remat.name = "head_a", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %yb = nn.linear %x, %b {remat.name = "head_b", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %y = nn.concat %ya, %yb {dim = -1, remat.name = "cat", remat.phase = #remat.phase<forward>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}
