// A function without ops peaks at no op: an unmet budget is said at the
// function (its arguments alone miss it), and a budget its arguments meet is
// met with nothing to schedule.
// RUN: not remat-opt %s --budget=8 2>&1 | FileCheck %s --check-prefix=UNMET
// RUN: remat-opt %s --budget=100% | FileCheck %s --check-prefix=MET
// UNMET: rematerialize-no-ops.mlir:[[@LINE+3]]:1: error: function @f: cannot fit the step in the budget of 8 bytes: solver 'none' needs 16 bytes at its peak (arguments + arena 16); the smallest peak any solver reached is 16 bytes, and no schedule can peak below 16 bytes
// MET: remat.memory_plan = #remat.memory_plan<arena_bytes = 0
// MET-SAME: solver = "none", status = "optimal"
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
