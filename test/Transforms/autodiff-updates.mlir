// remat-autodiff places each weight's update right after its gradient is
// complete and after the last read of the weight's old value (the default,
// update-placement=interleaved), or after the whole backward
// (update-placement=end). Every result that is the new value of an argument
// carries remat.updates with that argument's name. The remat dialect's
// verifier runs on the output, so no update is followed by a read of its
// weight.
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=sgd lr=0.1" | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=sgd lr=0.1 update-placement=interleaved" | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=sgd lr=0.1 update-placement=end" | FileCheck %s --check-prefix=END
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=sgd lr=0.1 momentum=0.9" | FileCheck %s --check-prefix=MOMENTUM
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=adam" | FileCheck %s --check-prefix=ADAM
// RUN: remat-opt %s --split-input-file --remat-autodiff="optimizer=adam update-placement=end" | FileCheck %s --check-prefix=ADAM-END

// Two linear layers: each update follows its gradient, before the backward
// of the layer below; weights anchored nowhere else keep argument order.

// CHECK-LABEL: func.func @mlp2
// CHECK-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3x4xf32> {remat.name = "w1.new", remat.updates = "w1"}, tensor<3xf32> {remat.name = "b1.new", remat.updates = "b1"}, tensor<5x3xf32> {remat.name = "w2.new", remat.updates = "w2"}, tensor<5xf32> {remat.name = "b2.new", remat.updates = "b2"})
// CHECK: nn.linear_backward_input %{{.*}}, %arg3 {remat.name = "fc2.grad_input"
// CHECK-NEXT: nn.linear_backward_weight {{.*}}remat.name = "fc2.grad_weight"
// CHECK-NEXT: nn.sgd %arg3, {{.*}}remat.name = "w2.sgd", remat.phase = #remat.phase<update>
// CHECK-NEXT: nn.linear_backward_bias {{.*}}remat.name = "fc2.grad_bias"
// CHECK-NEXT: nn.sgd %arg4, {{.*}}remat.name = "b2.sgd", remat.phase = #remat.phase<update>
// CHECK-NEXT: nn.relu_backward {{.*}}remat.name = "act.grad"
// CHECK-NEXT: nn.linear_backward_weight {{.*}}remat.name = "fc1.grad_weight"
// CHECK-NEXT: nn.sgd %arg1, {{.*}}remat.name = "w1.sgd", remat.phase = #remat.phase<update>
// CHECK-NEXT: nn.linear_backward_bias {{.*}}remat.name = "fc1.grad_bias"
// CHECK-NEXT: nn.sgd %arg2, {{.*}}remat.name = "b1.sgd", remat.phase = #remat.phase<update>
// CHECK-NEXT: return

// END-LABEL: func.func @mlp2
// END: nn.linear_backward_weight {{.*}}remat.name = "fc2.grad_weight"
// END-NOT: nn.sgd
// END: nn.linear_backward_bias {{.*}}remat.name = "fc1.grad_bias"
// END-NEXT: nn.sgd %arg1, {{.*}}remat.name = "w1.sgd"
// END-NEXT: nn.sgd %arg2, {{.*}}remat.name = "b1.sgd"
// END-NEXT: nn.sgd %arg3, {{.*}}remat.name = "w2.sgd"
// END-NEXT: nn.sgd %arg4, {{.*}}remat.name = "b2.sgd"
// END-NEXT: return

// MOMENTUM-LABEL: func.func @mlp2
// MOMENTUM-SAME: tensor<3x4xf32> {remat.name = "w1.new", remat.updates = "w1"}, tensor<3x4xf32> {remat.name = "w1.momentum_buffer.new", remat.updates = "w1.momentum_buffer"}
// MOMENTUM-SAME: tensor<5xf32> {remat.name = "b2.new", remat.updates = "b2"}, tensor<5xf32> {remat.name = "b2.momentum_buffer.new", remat.updates = "b2.momentum_buffer"})
// MOMENTUM: nn.linear_backward_weight {{.*}}remat.name = "fc2.grad_weight"
// MOMENTUM-NEXT: nn.sgd %arg3, %{{.*}}, %arg7 {{.*}}remat.name = "w2.sgd"

// Adam: the step increment goes right before the first Adam update (it
// reads the old step; every Adam op reads the new one).

// ADAM-LABEL: func.func @mlp2
// ADAM-SAME: %arg5: tensor<f32> {remat.name = "step", remat.role = #remat.role<step>}
// ADAM-SAME: tensor<3x4xf32> {remat.name = "w1.new", remat.updates = "w1"}, tensor<3x4xf32> {remat.name = "w1.exp_avg.new", remat.updates = "w1.exp_avg"}, tensor<3x4xf32> {remat.name = "w1.exp_avg_sq.new", remat.updates = "w1.exp_avg_sq"}
// ADAM-SAME: tensor<f32> {remat.name = "step.new", remat.updates = "step"})
// ADAM: nn.linear_backward_weight {{.*}}remat.name = "fc2.grad_weight"
// ADAM-NEXT: %[[T:.*]] = nn.add_scalar %arg5, 1.000000e+00 {remat.name = "step.increment", remat.phase = #remat.phase<update>}
// ADAM-NEXT: nn.adam %arg3, %{{.*}}, %{{.*}}, %{{.*}}, %[[T]] {remat.name = "w2.adam", remat.phase = #remat.phase<update>}
// ADAM-NEXT: nn.linear_backward_bias {{.*}}remat.name = "fc2.grad_bias"
// ADAM-NEXT: nn.adam %arg4, %{{.*}}, %{{.*}}, %{{.*}}, %[[T]] {remat.name = "b2.adam"
// ADAM: nn.adam %arg1, {{.*}}remat.name = "w1.adam"
// ADAM: nn.adam %arg2, {{.*}}remat.name = "b1.adam"
// ADAM-NEXT: return %{{.*}}, %{{.*}}, %[[T]] :

// ADAM-END-LABEL: func.func @mlp2
// ADAM-END: nn.linear_backward_bias {{.*}}remat.name = "fc1.grad_bias"
// ADAM-END-NEXT: nn.add_scalar %arg5, 1.000000e+00 {remat.name = "step.increment"
// ADAM-END-NEXT: nn.adam %arg1, {{.*}}remat.name = "w1.adam"

func.func @mlp2(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                %w1: tensor<3x4xf32> {remat.name = "w1", remat.role = #remat.role<weight>},
                %b1: tensor<3xf32> {remat.name = "b1", remat.role = #remat.role<weight>},
                %w2: tensor<5x3xf32> {remat.name = "w2", remat.role = #remat.role<weight>},
                %b2: tensor<5xf32> {remat.name = "b2", remat.role = #remat.role<weight>})
    -> (tensor<f32> {remat.name = "loss"}) {
  %h = nn.linear %x, %w1, %b1 {remat.name = "fc1", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = nn.relu %h {remat.name = "act", remat.phase = #remat.phase<forward>} : tensor<2x3xf32>
  %y = nn.linear %r, %w2, %b2 {remat.name = "fc2", remat.phase = #remat.phase<forward>} : (tensor<2x3xf32>, tensor<5x3xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l = nn.mean %y {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The weight's gradient (gate.grad_lhs) is complete before the backward
// reads the weight again (gate.grad_rhs = grad * w): the update waits for
// that read.

// CHECK-LABEL: func.func @read_after_gradient
// CHECK: nn.mul %{{.*}}, %{{.*}} {remat.name = "gate.grad_lhs"
// CHECK-NEXT: nn.mul %{{.*}}, %arg0 {remat.name = "gate.grad_rhs"
// CHECK-NEXT: nn.sgd %arg0, {{.*}}remat.name = "w.sgd"
// CHECK-NEXT: nn.tanh_backward {{.*}}remat.name = "h.grad"
// CHECK-NEXT: nn.sgd %arg1, {{.*}}remat.name = "v.sgd"
// CHECK-NEXT: return

func.func @read_after_gradient(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                               %v: tensor<4xf32> {remat.name = "v", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %h = nn.tanh %v {remat.name = "h", remat.phase = #remat.phase<forward>} : tensor<4xf32>
  %p = nn.mul %w, %h {remat.name = "gate", remat.phase = #remat.phase<forward>} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %l = nn.sum %p {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A weight used twice: its update waits for the sum of both contributions
// (after the last contribution, first.grad_rhs is v's gradient, which reads
// w: both are before the sum). v's update goes before w's, as soon as its
// gradient is complete.

// CHECK-LABEL: func.func @tied
// CHECK: nn.mul %{{.*}}, %arg0 {remat.name = "first.grad_rhs"
// CHECK-NEXT: nn.sgd %arg1, {{.*}}remat.name = "v.sgd"
// CHECK-NEXT: nn.add {{.*}}remat.name = "w.grad_sum"
// CHECK-NEXT: nn.sgd %arg0, {{.*}}remat.name = "w.sgd"
// CHECK-NEXT: return

// END-LABEL: func.func @tied
// END: nn.add {{.*}}remat.name = "w.grad_sum"
// END-NEXT: nn.sgd %arg0, {{.*}}remat.name = "w.sgd"
// END-NEXT: nn.sgd %arg1, {{.*}}remat.name = "v.sgd"
// END-NEXT: return

func.func @tied(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                %v: tensor<4xf32> {remat.name = "v", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %a = nn.mul %w, %v {remat.name = "first", remat.phase = #remat.phase<forward>} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %t = nn.tanh %a {remat.name = "t", remat.phase = #remat.phase<forward>} : tensor<4xf32>
  %b = nn.mul %t, %w {remat.name = "second", remat.phase = #remat.phase<forward>} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %l = nn.sum %b {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
