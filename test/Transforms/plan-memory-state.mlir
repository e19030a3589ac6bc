// The planner follows the memory model's sharing: an updated result lives in
// its argument's buffer (offset -1: not in the arena), a view of an arena
// value has its source's offset, and a view of an argument is in the
// argument's buffer.
// RUN: remat-opt %s -split-input-file --remat-plan-memory | FileCheck %s

// CHECK-LABEL: func.func @state_and_views
// g (64 bytes at 0, its view shares them) and the loss (4 bytes at 256).
// CHECK-SAME: remat.memory_plan = #remat.memory_plan<arena_bytes = 260
func.func @state_and_views(%w: tensor<16xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                           %x: tensor<4x4xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> (tensor<f32> {remat.name = "loss"}, tensor<16xf32> {remat.name = "w.new", remat.updates = "w"}) {
  // CHECK: nn.reshape {{.*}}remat.name = "x.flat", remat.placement = #remat.placement<[-1]>
  %xf = nn.reshape %x {remat.name = "x.flat"} : tensor<4x4xf32> -> tensor<16xf32>
  // CHECK: nn.mul {{.*}}remat.name = "g", remat.placement = #remat.placement<[0]>
  %g = nn.mul %xf, %w {remat.name = "g"} : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  // CHECK: nn.reshape {{.*}}remat.name = "g.view", remat.placement = #remat.placement<[0]>
  %gv = nn.reshape %g {remat.name = "g.view"} : tensor<16xf32> -> tensor<4x4xf32>
  // CHECK: nn.sum {{.*}}remat.name = "loss", remat.placement = #remat.placement<[256]>
  %l = nn.sum %gv {remat.name = "loss", dims = array<i64: 0, 1>} : tensor<4x4xf32> -> tensor<f32>
  // CHECK: nn.sgd {{.*}}remat.name = "w.sgd", remat.placement = #remat.placement<[-1]>
  %nw = nn.sgd %w, %g {remat.name = "w.sgd", lr = 0.1 : f64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %l, %nw : tensor<f32>, tensor<16xf32>
}

// -----

// Rematerialization keeps the update after every read of the old weight,
// recomputations included: under a budget that forces %a out while b and c
// (1 KB each) are live, its recomputation (which reads w) comes before w's
// update.
// RUN: remat-opt %s -split-input-file --remat-rematerialize=budget=2600B --remat-plan-memory | FileCheck %s --check-prefix=REMAT
// REMAT-LABEL: func.func @recompute_before_update
// REMAT: nn.mul {{.*}}remat.name = "a"
// REMAT: nn.mul {{.*}}remat.name = "a.recompute", remat.phase = #remat.phase<forward>, remat.placement = #remat.placement<[{{[0-9]+}}]>, remat.recompute_of = "a"
// REMAT: nn.add
// REMAT: nn.sgd {{.*}}remat.name = "w.sgd", remat.phase = #remat.phase<update>, remat.placement = #remat.placement<[-1]>
func.func @recompute_before_update(
    %w: tensor<64xf32> {remat.name = "w", remat.role = #remat.role<weight>},
    %x: tensor<64xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> (tensor<64xf32> {remat.name = "out"}, tensor<64xf32> {remat.name = "w.new", remat.updates = "w"}) {
  %a = nn.mul %x, %w {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %b = nn.broadcast_to %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<64xf32> -> tensor<4x64xf32>
  %c = nn.relu %b {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<4x64xf32>
  %d = nn.sum %c {remat.name = "d", remat.phase = #remat.phase<forward>, dims = array<i64: 0>} : tensor<4x64xf32> -> tensor<64xf32>
  %e = nn.add %d, %a {remat.name = "e", remat.phase = #remat.phase<backward>} : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %nw = nn.sgd %w, %e {remat.name = "w.sgd", remat.phase = #remat.phase<update>, lr = 0.1 : f64} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %e, %nw : tensor<64xf32>, tensor<64xf32>
}

// The report says what is updated in place (the file holds the last
// function's report).
// RUN: remat-opt %s -split-input-file --report=%t.json -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// REPORT: "function": "recompute_before_update",
// REPORT: "argument_bytes": 512,
// REPORT-NEXT: "updated_in_place_bytes": 256,
// REPORT-NEXT: "updated_in_place": [
// REPORT-NEXT: "w"
// REPORT-NEXT: ],
