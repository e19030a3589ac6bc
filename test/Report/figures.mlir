// The report's figures after rematerialization. The cost before is the sum
// over the same ops, less the recomputing ones, on the report's own profile
// (its device or measured profile), not the figure the solve recorded on
// its own; a recomputation costs what its original does; each recomputed
// value is listed once, with how many ops recompute it.
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.plain.json device=gtx970m})' -o /dev/null
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=16KiB solver=heuristic},remat-report{path=%t.remat.json device=gtx970m})' -o /dev/null
// RUN: cat %t.plain.json %t.remat.json | FileCheck %s --check-prefix=DEVICE
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=16KiB solver=heuristic},remat-report{path=%t.measured.json measured-profile=%S/../Transforms/Inputs/measured.json})' -o /dev/null
// RUN: FileCheck %s --check-prefix=MEASURED < %t.measured.json

// Without rematerialization, the cost of every op on the gtx970m profile;
// after it, the same figure before.
// DEVICE:      "compute_cost_before": [[COST:[0-9.e+-]+]],
// DEVICE-NEXT: "compute_cost_after": [[COST]],
// DEVICE:      "budget_bytes": 16384,
// DEVICE-NEXT: "budget": "16KiB",
// DEVICE:      "compute_cost_before": [[COST]],
// DEVICE-NOT:  "compute_cost_after": [[COST]],
// DEVICE:      "solver": "heuristic",
// DEVICE:      "recomputed": [
// DEVICE-NEXT:   "a",
// DEVICE-NEXT:   "b",
// DEVICE-NEXT:   "c"
// DEVICE-NEXT: ],
// DEVICE-NEXT: "recompute_counts": {
// DEVICE-NEXT:   "a": 3,
// DEVICE-NEXT:   "b": 2,
// DEVICE-NEXT:   "c": 1
// DEVICE-NEXT: },

// measured.json: nn.relu 0.5 s, "b" 2 s. Before: a, c, d 0.5 s, b 2 s, and
// five estimated ops, 43.3 us together (5 us launch each, and below the
// h200's saturation each resource takes as long as its saturating work:
// the four relu_backward 4.13 us for their FLOPs, the fill, which computes
// nothing, 1.8 us for its bytes); after:
// three copies of a (0.5 s), two of b (2 s, its own time), one of c (0.5 s)
// more.
// MEASURED: "compute_cost_before": 3.500043{{[0-9]+}},
// MEASURED: "compute_cost_after": 9.500043{{[0-9]+}},
// MEASURED: "name": "b.recompute",
// MEASURED: "est_seconds": 2,
// MEASURED: "recompute_of": "b"

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
