// Recomputation never changes what the step computes: a recomputed dropout
// reads the same seed operand (same mask), and a recomputed batch norm is a
// clone without state: it normalizes with batch statistics only, and the
// running statistics are updated once, by the one nn.batch_norm_update_stats,
// which is never recomputed.
// RUN: remat-opt %s --budget=100% --solver=marks | FileCheck %s

// CHECK: nn.batch_norm {{.*}}remat.name = "bn",
// CHECK: %[[MEAN:.*]], %[[VAR:.*]] = nn.batch_norm_update_stats %arg0, %arg3, %arg4 {{.*}}remat.name = "bn.update_stats",
// CHECK: nn.dropout %{{.*}}, %[[SEED:arg5]], 5.000000e-01 {remat.name = "drop",
// CHECK-NOT: nn.batch_norm_update_stats
// CHECK: %[[Y2:.*]], %[[SAVED_MEAN2:.*]], %[[SAVED_INVSTD2:.*]] = nn.batch_norm {{.*}}remat.name = "bn.recompute", {{.*}}remat.recompute_of = "bn"
// CHECK: %[[D2:.*]] = nn.dropout %[[Y2]], %[[SEED]], 5.000000e-01 {remat.name = "drop.recompute", {{.*}}remat.recompute_of = "drop"
// CHECK: nn.relu_backward %{{.*}}, %[[D2]]
// CHECK: nn.dropout_backward %{{.*}}, %[[SEED]]
// CHECK: nn.batch_norm_backward %{{.*}}, %arg0, %arg1, %[[SAVED_MEAN2]], %[[SAVED_INVSTD2]]
// CHECK-NOT: nn.batch_norm_update_stats
// CHECK: return %{{.*}}, %[[MEAN]], %[[VAR]]

func.func @safety(%x: tensor<8x256xf32> {remat.name = "x", remat.role = #remat.role<input>},
                  %w: tensor<256xf32> {remat.name = "bn.weight", remat.role = #remat.role<weight>},
                  %b: tensor<256xf32> {remat.name = "bn.bias", remat.role = #remat.role<weight>},
                  %m: tensor<256xf32> {remat.name = "bn.running_mean", remat.role = #remat.role<buffer>},
                  %v: tensor<256xf32> {remat.name = "bn.running_var", remat.role = #remat.role<buffer>},
                  %seed: tensor<i64> {remat.name = "seed", remat.role = #remat.role<seed>})
    -> (tensor<8x256xf32>, tensor<256xf32> {remat.updates = "bn.running_mean"}, tensor<256xf32> {remat.updates = "bn.running_var"}) {
  %y, %mean, %invstd = nn.batch_norm %x, %w, %b {remat.name = "bn", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<recompute>} : tensor<8x256xf32>, tensor<256xf32>
  %nm, %nv = nn.batch_norm_update_stats %x, %m, %v {remat.name = "bn.update_stats", remat.phase = #remat.phase<forward>} : tensor<8x256xf32>, tensor<256xf32>
  %d = nn.dropout %y, %seed, 0.5 {remat.name = "drop", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<recompute>} : tensor<8x256xf32>, tensor<i64> -> tensor<8x256xf32>
  %r = nn.relu %d {remat.name = "relu", remat.phase = #remat.phase<forward>} : tensor<8x256xf32>
  %s = nn.relu %r {remat.name = "relu2", remat.phase = #remat.phase<forward>} : tensor<8x256xf32>
  %g = nn.full 1.0 {remat.name = "seed.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %g2 = nn.relu_backward %g, %s {remat.name = "relu2.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %g1 = nn.relu_backward %g2, %r {remat.name = "relu.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %gd = nn.relu_backward %g1, %d {remat.name = "relu.grad2", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %gy = nn.dropout_backward %gd, %seed, 0.5 {remat.name = "drop.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>, tensor<i64> -> tensor<8x256xf32>
  %gx, %gw, %gb = nn.batch_norm_backward %gy, %x, %w, %mean, %invstd {remat.name = "bn.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>, tensor<256xf32>
  return %gx, %nm, %nv : tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32>
}
