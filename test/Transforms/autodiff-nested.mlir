// remat-autodiff differentiates every function with a body wherever it is
// nested: a forward function inside a nested module becomes a training step
// like a top-level one.
// RUN: remat-opt %s --remat-autodiff | FileCheck %s

// CHECK-LABEL: func.func @top
// CHECK-SAME: tensor<3x4xf32> {remat.name = "w.grad"}
// CHECK: nn.linear_backward_weight
// CHECK-LABEL: module @inner
// CHECK-LABEL: func.func @nested
// CHECK-SAME: tensor<3x4xf32> {remat.name = "w.grad"}
// CHECK: nn.linear_backward_weight

func.func @top(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
               %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
               %b: tensor<3xf32> {remat.name = "b", remat.role = #remat.role<weight>})
    -> (tensor<f32> {remat.name = "loss"}) {
  %y = nn.linear %x, %w, %b {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %l = nn.mean %y {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

module @inner {
  func.func @nested(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                    %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                    %b: tensor<3xf32> {remat.name = "b", remat.role = #remat.role<weight>})
      -> (tensor<f32> {remat.name = "loss"}) {
    %y = nn.linear %x, %w, %b {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %l = nn.mean %y {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x3xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}
