// The remat.* attributes the remat dialect accepts, on ops, function
// arguments and results, survive a round trip.
// RUN: remat-opt %s | FileCheck %s
// RUN: remat-opt %s --mlir-print-op-generic | remat-opt | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK-SAME: remat.name = "x", remat.role = "input"
// CHECK-SAME: remat.name = "seed", remat.role = "seed"
// CHECK-SAME: remat.name = "y"
// CHECK-SAME: remat.weights = "model.mlir.weights"
func.func @step(%x: tensor<4xf32> {remat.name = "x", remat.role = "input"},
                %seed: tensor<i64> {remat.name = "seed", remat.role = "seed"})
    -> (tensor<4xf32> {remat.name = "y"}) attributes {remat.weights = "model.mlir.weights"} {
  // CHECK: nn.relu {{.*}}remat.name = "relu", remat.phase = "forward", remat.policy = "recompute"
  %0 = nn.relu %x {remat.name = "relu", remat.phase = "forward", remat.policy = "recompute"} : tensor<4xf32>
  // CHECK: nn.relu {{.*}}remat.name = "relu.1", remat.phase = "forward", remat.recompute_of = "relu"
  %1 = nn.relu %x {remat.name = "relu.1", remat.phase = "forward", remat.recompute_of = "relu"} : tensor<4xf32>
  // CHECK: nn.dropout {{.*}}remat.phase = "forward", remat.policy = "keep"
  %2 = nn.dropout %1, %seed, 0.5 {remat.name = "drop", remat.phase = "forward", remat.policy = "keep"} : tensor<4xf32>, tensor<i64> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
