// Each solver at several budgets on a four-layer chain (4 KiB per value;
// no rematerialization peaks at 28 KiB, the largest single-op working set is
// 16 KiB). Recomputed ops are clones placed just before their backward use,
// named <name>.recompute and carrying remat.recompute_of.
// RUN: remat-opt %s --budget=28KiB | FileCheck %s --check-prefix=FITS
// RUN: remat-opt %s --budget=28KiB | FileCheck %s --check-prefix=AUTOFITS
// RUN: remat-opt %s --budget=24KiB --solver=heuristic | FileCheck %s --check-prefix=H24
// RUN: remat-opt %s --budget=20KiB --solver=heuristic | FileCheck %s --check-prefix=H20
// RUN: remat-opt %s --budget=16KiB --solver=heuristic | FileCheck %s --check-prefix=H16
// RUN: remat-opt %s --budget=20KiB | FileCheck %s --check-prefix=AUTO20
// RUN: remat-opt %s --budget=20KiB --solver=chain | FileCheck %s --check-prefix=AUTO20
// RUN: remat-opt %s --budget=24KiB --solver=sqrt | FileCheck %s --check-prefix=SQRT
// RUN: remat-opt %s --budget=24KiB --solver=segments=2 | FileCheck %s --check-prefix=SQRT
// RUN: remat-opt %s --budget=100% --solver=none | FileCheck %s --check-prefix=FITS
// The pass itself, in a pipeline string, gives the same result.
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=20KiB solver=heuristic})' | FileCheck %s --check-prefix=H20
// Same input, same output: byte-identical across runs.
// RUN: remat-opt %s --budget=16KiB > %t.first.mlir
// RUN: remat-opt %s --budget=16KiB > %t.second.mlir
// RUN: cmp %t.first.mlir %t.second.mlir

// Within the budget as given: nothing recomputed, the order unchanged; auto
// reports it optimal (every op computed once: no schedule costs less).
// FITS-NOT: remat.recompute_of
// FITS: remat.solve = #remat.solve<budget_bytes = {{[0-9]+}}, {{.*}}solver = "{{none|auto}}"{{.*}}status = "{{feasible|optimal}}"
// AUTOFITS: solver = "none", status = "optimal"{{.*}}lower_bound_cost =

// H24-COUNT-1: remat.recompute_of = "a"
// H24-NOT: remat.recompute_of

// Two recomputations of one layer each: c just before its backward, a just
// before its own.
// H20: solver = "heuristic", status = "feasible"
// H20: %[[A:.*]] = nn.relu %arg0 {remat.name = "a"
// H20: %[[B:.*]] = nn.relu %[[A]] {remat.name = "b"
// H20: nn.relu_backward %{{.*}}, %{{.*}} {remat.name = "d.grad"
// H20-NEXT: %[[C2:.*]] = nn.relu %[[B]] {remat.name = "c.recompute", {{.*}}remat.phase = #remat.phase<forward>, {{.*}}remat.recompute_of = "c"}
// H20-NEXT: nn.relu_backward %{{.*}}, %[[C2]] {remat.name = "c.grad"
// H20-NEXT: nn.relu_backward %{{.*}}, %[[B]] {remat.name = "b.grad"
// H20-NEXT: %[[A2:.*]] = nn.relu %arg0 {remat.name = "a.recompute", {{.*}}remat.phase = #remat.phase<forward>, {{.*}}remat.recompute_of = "a"}
// H20-NEXT: nn.relu_backward %{{.*}}, %[[A2]] {remat.name = "a.grad"

// auto takes the chain solver's schedule, as cheap as the heuristic's (two
// relus again) and proven optimal over checkpoint choices: it keeps c and
// recomputes a and b from x before b's backward.
// AUTO20: solver = "chain", status = "optimal"
// AUTO20: nn.relu_backward %{{.*}}, %{{.*}} {remat.name = "c.grad"
// AUTO20-NEXT: %[[A3:.*]] = nn.relu %arg0 {remat.name = "a.recompute", {{.*}}remat.recompute_of = "a"}
// AUTO20-NEXT: %[[B3:.*]] = nn.relu %[[A3]] {remat.name = "b.recompute", {{.*}}remat.recompute_of = "b"}
// AUTO20-NEXT: nn.relu_backward %{{.*}}, %[[B3]] {remat.name = "b.grad"

// At the lower bound every layer but the last is recomputed, some twice.
// H16-DAG: remat.recompute_of = "c"
// H16-DAG: remat.name = "b.recompute2"
// H16-DAG: remat.name = "a.recompute3"

// sqrt on four forward layers: two segments; the first segment's inside is
// recomputed before its backward.
// SQRT: remat.recompute_of = "a"
// SQRT-NOT: remat.recompute_of = "c"

func.func @chain(%x: tensor<1024xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<1024xf32> {
  %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %c = nn.relu %b {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %d = nn.relu %c {remat.name = "d", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %gd = nn.full 1.0 {remat.name = "seed", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %gc = nn.relu_backward %gd, %d {remat.name = "d.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %gb = nn.relu_backward %gc, %c {remat.name = "c.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %ga = nn.relu_backward %gb, %b {remat.name = "b.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %gx = nn.relu_backward %ga, %a {remat.name = "a.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  return %gx : tensor<1024xf32>
}
