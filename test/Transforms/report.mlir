// The report: memory, costs and ops of the step as JSON, and the timeline.
// RUN: remat-opt %s --report=%t.json --timeline=%t.svg -o /dev/null
// RUN: FileCheck %s < %t.json
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
// The pass form, on the gtx970m profile, after planning: same memory figures,
// the planned offsets, and times from that device's table.
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-plan-memory,remat-report{path=%t.970m.json device=gtx970m})' -o /dev/null
// RUN: FileCheck %s --check-prefix=GTX < %t.970m.json
// A measured profile overrides the estimate, by op name before op kind.
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.measured.json measured-profile=%S/Inputs/measured.json})' -o /dev/null
// RUN: FileCheck %s --check-prefix=MEASURED < %t.measured.json
// A measured profile may also replace the device's saturation: with none,
// every op runs at peak (h200: 128 bytes / 4.8 TB/s + 5 us).
// RUN: echo '{"remat.saturation_flops": 0, "remat.saturation_bytes": 0}' > %t.peak-profile.json
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.peak.json measured-profile=%t.peak-profile.json})' -o /dev/null
// RUN: FileCheck %s --check-prefix=PEAK < %t.peak.json
// PEAK: "name": "a",
// PEAK: "est_seconds": 5.0000266666666{{[0-9]+}}e-06,

// CHECK:      "function": "step",
// CHECK-NEXT: "budget_bytes": null,
// CHECK-NEXT: "budget": null,
// CHECK-NEXT: "argument_bytes": 64,
// CHECK-NEXT: "updated_in_place_bytes": 0,
// CHECK-NEXT: "updated_in_place": [],
// CHECK-NEXT: "arena_bytes": 576,
// CHECK-NEXT: "peak_bytes_before": 256,
// CHECK-NEXT: "peak_bytes_after": 256,
// CHECK-NEXT: "peak_breakdown": {
// CHECK-NEXT:   "arguments": 64,
// CHECK-NEXT:   "results": 64,
// CHECK-NEXT:   "activations": 128,
// CHECK-NEXT:   "workspace": 0
// CHECK-NEXT: },
// CHECK-NEXT: "cost_unit": "seconds",
// CHECK:      "solver": "none",
// CHECK-NEXT: "status": "none",
// CHECK-NEXT: "lower_bound_cost": null,
// CHECK-NEXT: "solve_seconds": 0,
// CHECK-NEXT: "timed_out": false,
// CHECK-NEXT: "kept": [
// CHECK-NEXT:   "a",
// CHECK-NEXT:   "b"
// CHECK-NEXT: ],
// CHECK-NEXT: "recomputed": [],
// CHECK-NEXT: "recompute_counts": {},
// CHECK-NEXT: "ops": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "name": "a",
// CHECK-NEXT:     "kind": "nn.relu",
// CHECK-NEXT:     "phase": "forward",
// CHECK-NEXT:     "flops": 16,
// h200: 16 FLOPs are far below the 276,824,064 that occupy the device, so
// they take as long as those at 67 TFLOPS (4.1317 us), longer than the 128
// bytes do below their own saturation (8,650,752 at 4.8 TB/s, 1.80224 us);
// + 5 us launch.
// CHECK-NEXT:     "est_seconds": 9.1317024477611{{[0-9]+}}e-06,
// CHECK:          "workspace_bytes": 0,
// CHECK-NEXT:     "bytes": [
// CHECK-NEXT:       64
// CHECK-NEXT:     ],
// CHECK-NEXT:     "offset": [
// CHECK-NEXT:       0
// CHECK-NEXT:     ]
// CHECK:          "name": "c",
// CHECK-NEXT:     "kind": "nn.add",
// CHECK-NEXT:     "phase": "backward",

// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: Live bytes of @step</text>
// SVG: peak 256 B, arguments 64 B, arena 576 B, 3 ops</text>
// SVG: <polyline fill="none" stroke="#1f77b4"
// SVG: peak 256 B at c
// SVG: <title>0: nn.relu a (forward): live 128 B</title>
// SVG: <title>2: nn.add c (backward): live 256 B</title>
// SVG: </svg>

// gtx970m: the saturating 20,971,520 FLOPs / 2.66 TFLOPS (7.8840 us; the
// saturating bytes take 5.4613 us) + 10 us.
// GTX:      "arena_bytes": 576,
// GTX:      "est_seconds": 1.7884030075187{{[0-9]+}}e-05,

// MEASURED:      "name": "a",
// MEASURED:      "est_seconds": 0.5,
// MEASURED:      "name": "b",
// MEASURED:      "est_seconds": 2,
// MEASURED:      "name": "c",
// MEASURED:      "est_seconds": 9.1317024477611

func.func @step(%x: tensor<16xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<16xf32> {
  %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<16xf32>
  %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<16xf32>
  %c = nn.add %a, %b {remat.name = "c", remat.phase = #remat.phase<backward>} : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %c : tensor<16xf32>
}
