// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy" | FileCheck %s

// loss=cross-entropy adds the loss on the logits and, without a label
// argument, a labels argument.

// CHECK-LABEL: func.func @classifier
// CHECK-SAME: %arg2: tensor<2xi64> {remat.name = "labels", remat.role = #remat.role<label>})
// CHECK-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3x4xf32> {remat.name = "w.grad"})
// CHECK: %[[Y:.*]] = nn.linear
// CHECK: %[[L:.*]] = nn.cross_entropy %[[Y]], %arg2 {remat.name = "loss", remat.phase = #remat.phase<forward>}
// CHECK: nn.full 1.000000e+00 {remat.name = "loss.grad_seed", remat.phase = #remat.phase<backward>}
// CHECK: nn.cross_entropy_backward {{.*}} {remat.name = "loss.grad", remat.phase = #remat.phase<backward>}
// CHECK: nn.linear_backward_weight {{.*}} {remat.name = "fc.grad_weight", remat.phase = #remat.phase<backward>}
// CHECK: return %[[L]]
func.func @classifier(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                      %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<2x3xf32> {
  %y = nn.linear %x, %w {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// bf16 logits (a model under torch.autocast): the loss converts them to f32
// first, as autocast computes cross entropy; the gradient converts back, and
// the f32 weight's gradient is the bf16 one converted.

// CHECK-LABEL: func.func @autocast_classifier
// CHECK-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3x4xf32> {remat.name = "w.grad"})
// CHECK: %[[Y:.*]] = nn.linear
// CHECK: %[[WIDE:.*]] = nn.convert %[[Y]] {remat.name = "loss.logits", remat.phase = #remat.phase<forward>} : tensor<2x3xbf16> -> tensor<2x3xf32>
// CHECK: %[[L:.*]] = nn.cross_entropy %[[WIDE]], %arg2 {{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
// CHECK: %[[G:.*]] = nn.cross_entropy_backward {{.*}} -> tensor<2x3xf32>
// CHECK: nn.convert %[[G]] {remat.name = "loss.logits.grad", {{.*}}} : tensor<2x3xf32> -> tensor<2x3xbf16>
// CHECK: %[[GW:.*]] = nn.linear_backward_weight {{.*}} -> tensor<3x4xbf16>
// CHECK: %[[GW32:.*]] = nn.convert %[[GW]] {{.*}} : tensor<3x4xbf16> -> tensor<3x4xf32>
// CHECK: return %[[L]], %[[GW32]]
func.func @autocast_classifier(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                               %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<2x3xbf16> {
  %xb = nn.convert %x {remat.name = "fc.convert", remat.phase = #remat.phase<forward>} : tensor<2x4xf32> -> tensor<2x4xbf16>
  %wb = nn.convert %w {remat.name = "fc.convert.2", remat.phase = #remat.phase<forward>} : tensor<3x4xf32> -> tensor<3x4xbf16>
  %y = nn.linear %xb, %wb {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x4xbf16>, tensor<3x4xbf16>) -> tensor<2x3xbf16>
  return %y : tensor<2x3xbf16>
}
