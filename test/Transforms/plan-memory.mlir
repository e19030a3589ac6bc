// The memory planner places every non-argument value at a static offset in
// one arena; values that are never live at the same time share bytes.
// RUN: remat-opt %s -split-input-file --remat-plan-memory | FileCheck %s

// A chain of four 256-byte values: a dies when c is defined, b when d is, so
// two slots suffice.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: remat.memory_plan = #remat.memory_plan<arena_bytes = 512
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  // CHECK: nn.relu {{.*}}remat.name = "a", remat.placement = #remat.placement<[0]>
  %a = nn.relu %x {remat.name = "a"} : tensor<64xf32>
  // CHECK: nn.relu {{.*}}remat.name = "b", remat.placement = #remat.placement<[256]>
  %b = nn.relu %a {remat.name = "b"} : tensor<64xf32>
  // CHECK: nn.relu {{.*}}remat.name = "c", remat.placement = #remat.placement<[0]>
  %c = nn.relu %b {remat.name = "c"} : tensor<64xf32>
  // CHECK: nn.relu {{.*}}remat.name = "d", remat.placement = #remat.placement<[256]>
  %d = nn.relu %c {remat.name = "d"} : tensor<64xf32>
  return %d : tensor<64xf32>
}

// -----

// Small tensors of real ops are aligned to 256 bytes; each result of a
// multi-result op gets its own offset. The relu's result takes the slot of
// the unused saved mean, dead after the batch norm.
// CHECK-LABEL: func.func @aligned
// CHECK-SAME: remat.memory_plan = #remat.memory_plan<arena_bytes = 520
func.func @aligned(%x: tensor<4x2xf32>, %w: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>) {
  // CHECK: nn.batch_norm {{.*}}remat.placement = #remat.placement<[0, 256, 512]>
  %y, %m, %s = nn.batch_norm %x, %w, %w : tensor<4x2xf32>, tensor<2xf32>
  // CHECK: nn.relu {{.*}}remat.placement = #remat.placement<[256]>
  %r = nn.relu %s : tensor<2xf32>
  return %y, %r : tensor<4x2xf32>, tensor<2xf32>
}

// -----

// Abstract graph values are packed byte-exact (alignment 1): all three are
// live at the last step, largest first.
// CHECK-LABEL: func.func @graph
// CHECK-SAME: remat.memory_plan = #remat.memory_plan<arena_bytes = 18
func.func @graph() -> tensor<3xi8> {
  // CHECK: remat.graph_node() {{.*}}remat.placement = #remat.placement<[0]>
  %0 = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<10xi8>
  // CHECK: remat.graph_node(%{{.*}}) {{.*}}remat.placement = #remat.placement<[10]>
  %1 = remat.graph_node(%0) {cost = 1.0 : f64} : (tensor<10xi8>) -> tensor<5xi8>
  // CHECK: remat.graph_node(%{{.*}}, %{{.*}}) {{.*}}remat.placement = #remat.placement<[15]>
  %2 = remat.graph_node(%0, %1) {cost = 1.0 : f64} : (tensor<10xi8>, tensor<5xi8>) -> tensor<3xi8>
  return %2 : tensor<3xi8>
}

// -----

// A function without ops needs no arena.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: remat.memory_plan = #remat.memory_plan<arena_bytes = 0
func.func @identity(%x: tensor<6xf32>) -> tensor<6xf32> {
  return %x : tensor<6xf32>
}
