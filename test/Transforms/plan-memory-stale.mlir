// A pass that changes a planned body drops the plan rather than leave one
// that no longer holds: rematerialization clones ops (and would copy their
// placements), autodiff adds the backward. Planning again records a plan of
// the new body.
// RUN: remat-opt %s --remat-autodiff --remat-plan-memory --remat-rematerialize=budget=24KiB | FileCheck %s --check-prefix=DROPPED
// RUN: remat-opt %s --remat-autodiff --remat-plan-memory --remat-rematerialize=budget=24KiB --remat-plan-memory | FileCheck %s --check-prefix=REPLANNED
// RUN: remat-opt %s --remat-plan-memory --remat-autodiff | FileCheck %s --check-prefix=DIFFERENTIATED

// DROPPED-NOT: remat.memory_plan
// DROPPED: remat.recompute_of = "a"
// DROPPED-NOT: remat.placement

// The plan of the rematerialized body: the arena shrank from 20484 bytes.
// REPLANNED: remat.memory_plan = #remat.memory_plan<arena_bytes = 16384, alignment = 256>
// REPLANNED: remat.name = "a.recompute", remat.placement = #remat.placement<[{{[0-9]+}}]>, remat.recompute_of = "a"

// DIFFERENTIATED-NOT: remat.memory_plan
// DIFFERENTIATED: remat.name = "d.grad"
// DIFFERENTIATED-NOT: remat.placement
func.func @chain(%x: tensor<1024xf32> {remat.name = "x", remat.role = #remat.role<input>},
                  %w: tensor<1024xf32> {remat.name = "w", remat.role = #remat.role<weight>}) -> tensor<f32> {
  %a = nn.mul %x, %w {remat.name = "a"} : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  %b = nn.relu %a {remat.name = "b"} : tensor<1024xf32>
  %c = nn.relu %b {remat.name = "c"} : tensor<1024xf32>
  %d = nn.relu %c {remat.name = "d"} : tensor<1024xf32>
  %l = nn.sum %d {dims = array<i64: 0>, remat.name = "loss"} : tensor<1024xf32> -> tensor<f32>
  return %l : tensor<f32>
}
