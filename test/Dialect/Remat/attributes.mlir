// The remat.* attributes the remat dialect accepts, on ops, function
// arguments and results, survive a round trip.
// RUN: remat-opt %s | FileCheck %s
// RUN: remat-opt %s --mlir-print-op-generic | remat-opt | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK-SAME: remat.name = "x", remat.role = #remat.role<input>
// CHECK-SAME: remat.name = "seed", remat.role = #remat.role<seed>
// CHECK-SAME: remat.name = "y"
// CHECK-SAME: remat.weights = "model.mlir.weights"
func.func @step(%x: tensor<4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                %seed: tensor<i64> {remat.name = "seed", remat.role = #remat.role<seed>})
    -> (tensor<4xf32> {remat.name = "y"}) attributes {remat.weights = "model.mlir.weights"} {
  // CHECK: nn.relu {{.*}}remat.name = "relu", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<recompute>
  %0 = nn.relu %x {remat.name = "relu", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<recompute>} : tensor<4xf32>
  // CHECK: nn.relu {{.*}}remat.name = "relu.1", remat.phase = #remat.phase<forward>, remat.recompute_of = "relu"
  %1 = nn.relu %x {remat.name = "relu.1", remat.phase = #remat.phase<forward>, remat.recompute_of = "relu"} : tensor<4xf32>
  // CHECK: nn.dropout {{.*}}remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<keep>
  %2 = nn.dropout %1, %seed, 0.5 {remat.name = "drop", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<keep>} : tensor<4xf32>, tensor<i64> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// remat.updates: the updating op itself may read the old value (nn.adam
// reads the weight it writes), and ops may read the new value (the Adam ops
// read the incremented step, which lives in the step's buffer).
// CHECK-LABEL: func.func @updates
// CHECK-SAME: -> (tensor<4xf32> {remat.name = "w.new", remat.updates = "w"}, tensor<4xf32> {remat.updates = "w.exp_avg"}, tensor<4xf32> {remat.updates = "w.exp_avg_sq"}, tensor<f32> {remat.updates = "step"})
func.func @updates(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                   %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>},
                   %m: tensor<4xf32> {remat.name = "w.exp_avg", remat.role = #remat.role<opt_state>},
                   %v: tensor<4xf32> {remat.name = "w.exp_avg_sq", remat.role = #remat.role<opt_state>},
                   %step: tensor<f32> {remat.name = "step", remat.role = #remat.role<step>})
    -> (tensor<4xf32> {remat.name = "w.new", remat.updates = "w"}, tensor<4xf32> {remat.updates = "w.exp_avg"},
        tensor<4xf32> {remat.updates = "w.exp_avg_sq"}, tensor<f32> {remat.updates = "step"}) {
  %t = nn.add_scalar %step, 1.0 {remat.name = "step.increment", remat.phase = #remat.phase<update>} : tensor<f32>
  %nw, %nm, %nv = nn.adam %w, %g, %m, %v, %t {remat.name = "w.adam", remat.phase = #remat.phase<update>} : tensor<4xf32>, tensor<f32>
  return %nw, %nm, %nv, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// The memory plan: the arena on the function, each op's place in it. A
// graph node's value is a byte count, aligned to one byte; a value in an
// argument's buffer is at -1; a view has its owner's offset.
// CHECK-LABEL: func.func @planned
// CHECK-SAME: remat.memory_plan = #remat.memory_plan<arena_bytes = 1034, alignment = 256>
func.func @planned(%x: tensor<4x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                   %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>}) -> tensor<16xf32>
    attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 1034, alignment = 256>} {
  // CHECK: nn.batch_norm {{.*}}remat.placement = #remat.placement<[0, 256, 512]>
  %y, %m, %s = nn.batch_norm %x, %w, %w {remat.placement = #remat.placement<[0, 256, 512]>} : tensor<4x4xf32>, tensor<4xf32>
  // CHECK: nn.reshape {{.*}}remat.placement = #remat.placement<[-1]>
  %f = nn.reshape %x {remat.placement = #remat.placement<[-1]>} : tensor<4x4xf32> -> tensor<16xf32>
  // CHECK: nn.relu {{.*}}remat.placement = #remat.placement<[768], workspace = 512>
  %r = nn.relu %f {remat.placement = #remat.placement<[768], workspace = 512>} : tensor<16xf32>
  // CHECK: remat.graph_node() {{.*}}remat.placement = #remat.placement<[1024]>
  %g = remat.graph_node() {cost = 1.0 : f64, remat.placement = #remat.placement<[1024]>} : () -> tensor<10xi8>
  return %r : tensor<16xf32>
}

// remat.graph_node prints its cost among the other attributes in name order,
// as the whole dictionary would (the printer merges them by hand).
// CHECK-LABEL: func.func @graph_node_attributes
// CHECK: remat.graph_node(%{{.*}}) {alpha = 2 : i64, cost = 3.000000e+00 : f64, remat.name = "n", zeta = 1 : i64} : (tensor<4xi8>) -> tensor<8xi8>
// CHECK: remat.graph_node() {cost = 0.000000e+00 : f64} : () -> tensor<8xi8>
func.func @graph_node_attributes(%a: tensor<4xi8>) -> (tensor<8xi8>, tensor<8xi8>) {
  %0 = remat.graph_node(%a) {zeta = 1 : i64, remat.name = "n", alpha = 2 : i64, cost = 3.0 : f64} : (tensor<4xi8>) -> tensor<8xi8>
  %1 = remat.graph_node() {cost = 0.0 : f64} : () -> tensor<8xi8>
  return %0, %1 : tensor<8xi8>, tensor<8xi8>
}
