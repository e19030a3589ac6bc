// RUN: remat-opt %s --split-input-file --remat-autodiff | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=sgd lr=0.1 momentum=0.9" | FileCheck %s --check-prefix=SGD
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=adam" | FileCheck %s --check-prefix=ADAM

// A scalar loss from a linear layer and a ReLU: the backward runs in
// reverse, one rule per op, and the gradients of the weights are results.
// The input gets no gradient: nothing asks for it.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3x4xf32> {remat.name = "w.grad"}, tensor<3xf32> {remat.name = "b.grad"})
// CHECK: %[[Y:.*]] = nn.linear %arg0, %arg1, %arg2 {remat.name = "fc", remat.phase = #remat.phase<forward>}
// CHECK: %[[R:.*]] = nn.relu %[[Y]] {remat.name = "act", remat.phase = #remat.phase<forward>}
// CHECK: %[[L:.*]] = nn.mean %[[R]]
// CHECK: %[[SEED:.*]] = nn.full 1.000000e+00 {remat.name = "loss.grad_seed", remat.phase = #remat.phase<backward>} : tensor<f32>
// CHECK: %[[K:.*]] = nn.reshape %[[SEED]] {remat.name = "loss.grad.keepdim", remat.phase = #remat.phase<backward>} : tensor<f32> -> tensor<1x1xf32>
// CHECK: %[[B:.*]] = nn.broadcast_to %[[K]] {remat.name = "loss.grad", remat.phase = #remat.phase<backward>} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK: %[[M:.*]] = nn.div_scalar %[[B]], 6.000000e+00 {remat.name = "loss.grad.mean", remat.phase = #remat.phase<backward>}
// CHECK: %[[DR:.*]] = nn.relu_backward %[[M]], %[[R]] {remat.name = "act.grad", remat.phase = #remat.phase<backward>}
// CHECK-NOT: nn.linear_backward_input
// CHECK: %[[DW:.*]] = nn.linear_backward_weight %[[DR]], %arg0 {remat.name = "fc.grad_weight", remat.phase = #remat.phase<backward>}
// CHECK: %[[DB:.*]] = nn.linear_backward_bias %[[DR]] {remat.name = "fc.grad_bias", remat.phase = #remat.phase<backward>}
// CHECK: return %[[L]], %[[DW]], %[[DB]]

// SGD-LABEL: func.func @mlp
// SGD-SAME: %arg3: tensor<3x4xf32> {remat.name = "w.momentum_buffer", remat.role = #remat.role<opt_state>}, %arg4: tensor<3xf32> {remat.name = "b.momentum_buffer", remat.role = #remat.role<opt_state>})
// SGD-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3x4xf32> {remat.name = "w.new", remat.updates = "w"}, tensor<3x4xf32> {remat.name = "w.momentum_buffer.new", remat.updates = "w.momentum_buffer"}, tensor<3xf32> {remat.name = "b.new", remat.updates = "b"}, tensor<3xf32> {remat.name = "b.momentum_buffer.new", remat.updates = "b.momentum_buffer"})
// SGD: nn.sgd %arg1, %{{.*}}, %arg3 {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>}
// SGD: nn.sgd %arg2, %{{.*}}, %arg4 {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, remat.name = "b.sgd", remat.phase = #remat.phase<update>}

// ADAM-LABEL: func.func @mlp
// ADAM-SAME: %arg3: tensor<f32> {remat.name = "step", remat.role = #remat.role<step>}, %arg4: tensor<3x4xf32> {remat.name = "w.exp_avg", remat.role = #remat.role<opt_state>}, %arg5: tensor<3x4xf32> {remat.name = "w.exp_avg_sq", remat.role = #remat.role<opt_state>}
// ADAM-SAME: tensor<f32> {remat.name = "step.new", remat.updates = "step"})
// ADAM: %[[T:.*]] = nn.add_scalar %arg3, 1.000000e+00 {remat.name = "step.increment", remat.phase = #remat.phase<update>}
// ADAM: nn.adam %arg1, %{{.*}}, %arg4, %arg5, %[[T]] {remat.name = "w.adam", remat.phase = #remat.phase<update>}
func.func @mlp(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
               %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
               %b: tensor<3xf32> {remat.name = "b", remat.role = #remat.role<weight>})
    -> (tensor<f32> {remat.name = "loss"}) {
  %y = nn.linear %x, %w, %b {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = nn.relu %y {remat.name = "act", remat.phase = #remat.phase<forward>} : tensor<2x3xf32>
  %l = nn.mean %r {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value used twice sums its gradients; a broadcast operand gets its
// gradient summed back to its shape.

// CHECK-LABEL: func.func @residual
// CHECK: %[[H:.*]] = nn.tanh %arg1 {remat.name = "h", remat.phase = #remat.phase<forward>}
// CHECK: nn.add %[[H]], %arg2 {remat.name = "shift"
// CHECK: nn.mul
// CHECK: %[[DS:.*]] = nn.sum %{{.*}} {dims = array<i64: 0>, keepdim = true, remat.name = "shift.grad.unbroadcast", remat.phase = #remat.phase<backward>} : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: %[[DB:.*]] = nn.reshape %[[DS]] {remat.name = "shift.grad.unbroadcast.2", remat.phase = #remat.phase<backward>} : tensor<1x8xf32> -> tensor<8xf32>
// CHECK: %[[SUM:.*]] = nn.add %{{.*}}, %{{.*}} {remat.name = "h.grad_sum", remat.phase = #remat.phase<backward>}
// CHECK: %[[DW:.*]] = nn.tanh_backward %[[SUM]], %[[H]] {remat.name = "h.grad", remat.phase = #remat.phase<backward>}
// CHECK: return %{{.*}}, %[[DW]], %[[DB]]
func.func @residual(%x: tensor<4x8xf32> {remat.name = "x", remat.role = #remat.role<input>},
                    %w: tensor<4x8xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                    %bias: tensor<8xf32> {remat.name = "bias", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %h = nn.tanh %w {remat.name = "h", remat.phase = #remat.phase<forward>} : tensor<4x8xf32>
  %s = nn.add %h, %bias {remat.name = "shift", remat.phase = #remat.phase<forward>} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %p = nn.mul %s, %h {remat.name = "gate", remat.phase = #remat.phase<forward>} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %l = nn.sum %p {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Cross entropy on logits (loss=cross-entropy would add it; here it is
// written out), batch norm in training mode: its running statistics, updated
// by their own op, stay results after the loss with their remat.updates, and
// are never differentiated.

// CHECK-LABEL: func.func @bn
// CHECK-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3xf32> {remat.name = "bn.running_mean.new", remat.updates = "bn.running_mean"}, tensor<3xf32> {remat.name = "bn.running_var.new", remat.updates = "bn.running_var"}, tensor<3xf32> {remat.name = "gamma.grad"}, tensor<3xf32> {remat.name = "beta.grad"})
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[INVSTD:.*]] = nn.batch_norm
// CHECK: %[[RM:.*]], %[[RV:.*]] = nn.batch_norm_update_stats
// CHECK: %[[DY:.*]] = nn.cross_entropy_backward
// CHECK-NOT: update_stats
// CHECK: %{{.*}}, %[[DG:.*]], %[[DB:.*]] = nn.batch_norm_backward %[[DY]], %arg0, %arg2, %[[MEAN]], %[[INVSTD]] {remat.name = "bn.grad", remat.phase = #remat.phase<backward>}
// CHECK: return %{{.*}}, %[[RM]], %[[RV]], %[[DG]], %[[DB]]
func.func @bn(%x: tensor<4x3xf32> {remat.name = "x", remat.role = #remat.role<input>},
              %labels: tensor<4xi64> {remat.name = "labels", remat.role = #remat.role<label>},
              %gamma: tensor<3xf32> {remat.name = "gamma", remat.role = #remat.role<weight>},
              %beta: tensor<3xf32> {remat.name = "beta", remat.role = #remat.role<weight>},
              %mean: tensor<3xf32> {remat.name = "bn.running_mean", remat.role = #remat.role<buffer>},
              %var: tensor<3xf32> {remat.name = "bn.running_var", remat.role = #remat.role<buffer>})
    -> (tensor<f32>, tensor<3xf32> {remat.name = "bn.running_mean.new", remat.updates = "bn.running_mean"}, tensor<3xf32> {remat.name = "bn.running_var.new", remat.updates = "bn.running_var"}) {
  %y:3 = nn.batch_norm %x, %gamma, %beta {remat.name = "bn", remat.phase = #remat.phase<forward>} : tensor<4x3xf32>, tensor<3xf32>
  %s:2 = nn.batch_norm_update_stats %x, %mean, %var {remat.name = "bn.update_stats", remat.phase = #remat.phase<forward>} : tensor<4x3xf32>, tensor<3xf32>
  %l = nn.cross_entropy %y#0, %labels {remat.name = "ce", remat.phase = #remat.phase<forward>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %l, %s#0, %s#1 : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}
