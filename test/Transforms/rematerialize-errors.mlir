// An unmet budget is an error at the op where the step peaks (naming it and
// quoting its line, never the function), with the smallest peak reached and
// the lower bound; without strict it is a warning and the smallest peak is
// applied.
// Bad solver names and missing budgets are errors too.
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=12KiB})' -verify-diagnostics -o /dev/null
// RUN: not remat-opt %s --budget=12KiB 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=12KiB strict=false})' 2>&1 | FileCheck %s --check-prefix=LENIENT
// The smallest peak comes from the solve; a solver other than auto names itself.
// RUN: not remat-opt %s --budget=12KiB --solver=heuristic 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=20KiB solver=greedy})' 2>&1 | FileCheck %s --check-prefix=SOLVER
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize)' 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-rematerialize{budget=20KiB device=tpu})' 2>&1 | FileCheck %s --check-prefix=DEVICE

// STRICT: rematerialize-errors.mlir:{{[0-9]+}}:9: error: cannot fit the step in the budget of 12288 bytes: solver '{{.*}}' needs 16384 bytes at its peak (arguments + arena 16384); the step peaks at 'nn.relu_backward' op "b.grad"; the smallest peak any solver reached is 16384 bytes, and no schedule can peak below 16384 bytes (arguments plus the largest single-op working set)
// STRICT-NEXT: {{^}}  %gb = nn.relu_backward
// STRICT-NEXT: {{^}}        ^
// STRICT-NOT: func.func
// NAMED: error: cannot fit the step in the budget of 12288 bytes: solver 'heuristic' needs 16384 bytes at its peak (arguments + arena 16384); the step peaks at 'nn.relu_backward' op "b.grad"; the smallest peak solver 'heuristic' reached is 16384 bytes, and no schedule can peak below 16384 bytes
// LENIENT: warning: cannot fit the step in the budget of 12288 bytes
// LENIENT: remat.recompute_of
// SOLVER: for the --solver option: unknown solver 'greedy': expected none, segments=K, sqrt, marks, block-checkpoints, chain, blocks, heuristic, search, exact or auto
// BUDGET: error: function @chain: rematerialization needs a budget (the 'budget' option, e.g. budget=2.5GB or 80%)
// DEVICE: error: unknown device profile 'tpu'

func.func @chain(%x: tensor<1024xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<1024xf32> {
  %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %c = nn.relu %b {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  // expected-error @+1 {{cannot fit the step in the budget of 12288 bytes}}
  %gb = nn.relu_backward %c, %b {remat.name = "b.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %ga = nn.relu_backward %gb, %a {remat.name = "a.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  return %ga : tensor<1024xf32>
}
