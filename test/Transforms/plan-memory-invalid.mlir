// The planner refuses what it cannot measure, with the analysis' diagnostics.
// RUN: remat-opt %s --remat-plan-memory -verify-diagnostics -o /dev/null

func.func @dynamic(%x: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{value of type 'tensor<?xf32>' has no static size}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}
