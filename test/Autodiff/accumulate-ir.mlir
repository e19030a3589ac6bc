// remat-autodiff with accumulation-steps=K: the function is the forward at
// the micro-batch (here 2 rows); the step takes K x 2 rows of each input and
// label and runs K micro-steps in sequence: micro-step i slices rows
// [2i, 2i+2) (nn.slice), runs forward, loss / K (nn.div_scalar) and
// backward; batch norm's running statistics pass from micro-step to
// micro-step; dropout draws from a seed argument of its own per micro-step;
// the gradients are summed in micro-step order right after each is complete
// (<weight>.grad_accumulate) and the loss result is the sum of the scaled
// losses; the optimizer runs once, each update after the last micro-step's
// gradient (interleaved) or after everything (end). Micro-step 0 keeps the
// forward's op names, micro-step i > 0 prefixes them with micro<i>.
// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=sgd lr=0.1 accumulation-steps=2" | FileCheck %s
// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=adam accumulation-steps=3 update-placement=end" | FileCheck %s --check-prefix=END
// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy accumulation-steps=2" | FileCheck %s --check-prefix=GRADS
// accumulation-steps=1 is the plain step.
// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=sgd accumulation-steps=1" -o %t.1.mlir
// RUN: remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=sgd" -o %t.plain.mlir
// RUN: diff %t.1.mlir %t.plain.mlir

// CHECK-LABEL: func.func @net
// CHECK-SAME: %arg0: tensor<4x3xf32> {remat.name = "x", remat.role = #remat.role<input>}
// CHECK-SAME: %arg7: tensor<i64> {remat.name = "drop.seed", remat.role = #remat.role<seed>}
// CHECK-SAME: %arg8: tensor<4xi64> {remat.name = "labels", remat.role = #remat.role<label>}
// CHECK-SAME: %arg9: tensor<i64> {remat.name = "micro1.drop.seed", remat.role = #remat.role<seed>}
// CHECK-SAME: -> (tensor<f32> {remat.name = "loss"}, tensor<3xf32> {remat.name = "bn.running_mean.new", remat.updates = "bn.running_mean"}, tensor<3xf32> {remat.name = "bn.running_var.new", remat.updates = "bn.running_var"}, tensor<3x3xf32> {remat.name = "w.new", remat.updates = "w"}
// Micro-step 0.
// CHECK: %[[X0:.*]] = nn.slice %arg0 {dim = 0 : i64, end = 2 : i64, remat.name = "x.slice", remat.phase = #remat.phase<forward>, start = 0 : i64} : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK: %[[L0:.*]] = nn.slice %arg8 {dim = 0 : i64, end = 2 : i64, remat.name = "labels.slice", remat.phase = #remat.phase<forward>, start = 0 : i64} : tensor<4xi64> -> tensor<2xi64>
// CHECK: nn.linear %[[X0]], %arg1 {remat.name = "fc"
// CHECK: %[[RM0:.*]], %[[RV0:.*]] = nn.batch_norm_update_stats %{{.*}}, %arg5, %arg6 {remat.name = "bn.update_stats"
// CHECK: nn.dropout %{{.*}}, %arg7, {{.*}}remat.name = "drop"
// CHECK: nn.cross_entropy %{{.*}}, %[[L0]] {remat.name = "loss"
// CHECK: %[[LOSS0:.*]] = nn.div_scalar %{{.*}}, 2.000000e+00 {remat.name = "loss.scaled", remat.phase = #remat.phase<forward>}
// CHECK: nn.div_scalar %{{.*}}, 2.000000e+00 {remat.name = "loss.scaled.grad", remat.phase = #remat.phase<backward>}
// CHECK: %{{.*}}, %[[DGAMMA0:.*]], %[[DBETA0:.*]] = nn.batch_norm_backward {{.*}}remat.name = "bn.grad"
// CHECK: %[[DW0:.*]] = nn.linear_backward_weight {{.*}}remat.name = "fc.grad_weight"
// A weight no gradient reaches: zeros once, updated once.
// CHECK: %[[ZERO:.*]] = nn.full 0.000000e+00 {remat.name = "unused.grad_zero"
// CHECK-NEXT: nn.sgd %arg4, %[[ZERO]] {{.*}}remat.name = "unused.sgd"
// Micro-step 1: its own rows, seed and running statistics from micro-step 0.
// CHECK: nn.slice %arg0 {dim = 0 : i64, end = 4 : i64, remat.name = "micro1.x.slice", remat.phase = #remat.phase<forward>, start = 2 : i64}
// CHECK: nn.slice %arg8 {dim = 0 : i64, end = 4 : i64, remat.name = "micro1.labels.slice", remat.phase = #remat.phase<forward>, start = 2 : i64}
// CHECK: nn.linear {{.*}}remat.name = "micro1.fc"
// CHECK: %[[RM1:.*]], %[[RV1:.*]] = nn.batch_norm_update_stats %{{.*}}, %[[RM0]], %[[RV0]] {remat.micro_origin = "bn.update_stats", remat.micro_step = 1 : i64, remat.name = "micro1.bn.update_stats"
// CHECK: nn.dropout %{{.*}}, %arg9, {{.*}}remat.name = "micro1.drop"
// CHECK: %[[LOSS1:.*]] = nn.div_scalar %{{.*}}, 2.000000e+00 {remat.micro_origin = "loss.scaled", remat.micro_step = 1 : i64, remat.name = "micro1.loss.scaled"
// CHECK-NEXT: %[[LOSS:.*]] = nn.add %[[LOSS0]], %[[LOSS1]] {remat.name = "micro1.loss.sum", remat.phase = #remat.phase<forward>}
// CHECK-NOT: grad_zero
// CHECK: %{{.*}}, %[[DGAMMA1:.*]], %[[DBETA1:.*]] = nn.batch_norm_backward {{.*}}remat.name = "micro1.bn.grad"
// CHECK-DAG: %[[SUMBETA:.*]] = nn.add %[[DBETA0]], %[[DBETA1]] {remat.name = "micro1.beta.grad_accumulate", remat.phase = #remat.phase<backward>}
// CHECK-DAG: nn.sgd %arg3, %[[SUMBETA]] {{.*}}remat.name = "beta.sgd", remat.phase = #remat.phase<update>
// CHECK-DAG: %[[SUMGAMMA:.*]] = nn.add %[[DGAMMA0]], %[[DGAMMA1]] {remat.name = "micro1.gamma.grad_accumulate", remat.phase = #remat.phase<backward>}
// CHECK-DAG: nn.sgd %arg2, %[[SUMGAMMA]] {{.*}}remat.name = "gamma.sgd"
// CHECK: %[[DW1:.*]] = nn.linear_backward_weight {{.*}}remat.name = "micro1.fc.grad_weight"
// CHECK-NEXT: %[[SUMW:.*]] = nn.add %[[DW0]], %[[DW1]] {remat.name = "micro1.w.grad_accumulate", remat.phase = #remat.phase<backward>}
// CHECK-NEXT: nn.sgd %arg1, %[[SUMW]] {{.*}}remat.name = "w.sgd"
// CHECK-NEXT: return %[[LOSS]], %[[RM1]], %[[RV1]],

// Adam over three micro-steps, the updates at the end: one step argument,
// one increment, the sums chained g0 + g1, then + g2.
// END-LABEL: func.func @net
// END-SAME: %arg0: tensor<6x3xf32> {remat.name = "x", remat.role = #remat.role<input>}
// END-SAME: %arg8: tensor<6xi64> {remat.name = "labels", remat.role = #remat.role<label>}
// END-SAME: %arg9: tensor<i64> {remat.name = "micro1.drop.seed", remat.role = #remat.role<seed>}
// END-SAME: %arg10: tensor<i64> {remat.name = "micro2.drop.seed", remat.role = #remat.role<seed>}
// END-SAME: %arg11: tensor<f32> {remat.name = "step", remat.role = #remat.role<step>}
// END: %[[W1:.*]] = nn.add {{.*}}remat.name = "micro1.w.grad_accumulate"
// END-NOT: nn.adam
// END: nn.slice %arg0 {dim = 0 : i64, end = 6 : i64, remat.name = "micro2.x.slice", remat.phase = #remat.phase<forward>, start = 4 : i64}
// END: nn.div_scalar %{{.*}}, 3.000000e+00 {remat.micro_origin = "loss.scaled", remat.micro_step = 2 : i64, remat.name = "micro2.loss.scaled"
// END-NEXT: nn.add {{.*}}remat.name = "micro2.loss.sum"
// END-NOT: nn.adam
// END: nn.linear_backward_weight {{.*}}remat.name = "micro2.fc.grad_weight"
// END-NEXT: %[[W2:.*]] = nn.add %[[W1]], %{{.*}} {remat.name = "micro2.w.grad_accumulate"
// END-NEXT: nn.add_scalar %arg11, 1.000000e+00 {remat.name = "step.increment"
// END-NEXT: nn.adam %arg1, %[[W2]], {{.*}}remat.name = "w.adam"
// END-COUNT-3: nn.adam
// END-NEXT: return

// Without an optimizer the summed gradients are the results.
// GRADS-LABEL: func.func @net
// GRADS-SAME: tensor<3x3xf32> {remat.name = "w.grad"}, tensor<3xf32> {remat.name = "gamma.grad"}, tensor<3xf32> {remat.name = "beta.grad"}, tensor<3xf32> {remat.name = "unused.grad"})
// GRADS: %[[SUMW:.*]] = nn.add {{.*}}remat.name = "micro1.w.grad_accumulate"
// GRADS: return %{{.*}}, %{{.*}}, %{{.*}}, %[[SUMW]],

func.func @net(%x: tensor<2x3xf32> {remat.name = "x", remat.role = #remat.role<input>},
               %w: tensor<3x3xf32> {remat.name = "w", remat.role = #remat.role<weight>},
               %gamma: tensor<3xf32> {remat.name = "gamma", remat.role = #remat.role<weight>},
               %beta: tensor<3xf32> {remat.name = "beta", remat.role = #remat.role<weight>},
               %unused: tensor<3xf32> {remat.name = "unused", remat.role = #remat.role<weight>},
               %mean: tensor<3xf32> {remat.name = "bn.running_mean", remat.role = #remat.role<buffer>},
               %var: tensor<3xf32> {remat.name = "bn.running_var", remat.role = #remat.role<buffer>},
               %seed: tensor<i64> {remat.name = "drop.seed", remat.role = #remat.role<seed>})
    -> (tensor<2x3xf32> {remat.name = "output"}, tensor<3xf32> {remat.name = "bn.running_mean.new", remat.updates = "bn.running_mean"}, tensor<3xf32> {remat.name = "bn.running_var.new", remat.updates = "bn.running_var"}) {
  %h = nn.linear %x, %w {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %y:3 = nn.batch_norm %h, %gamma, %beta {remat.name = "bn", remat.phase = #remat.phase<forward>} : tensor<2x3xf32>, tensor<3xf32>
  %s:2 = nn.batch_norm_update_stats %h, %mean, %var {remat.name = "bn.update_stats", remat.phase = #remat.phase<forward>} : tensor<2x3xf32>, tensor<3xf32>
  %d = nn.dropout %y#0, %seed, 0.5 {remat.name = "drop", remat.phase = #remat.phase<forward>} : tensor<2x3xf32>, tensor<i64> -> tensor<2x3xf32>
  return %d, %s#0, %s#1 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
}
