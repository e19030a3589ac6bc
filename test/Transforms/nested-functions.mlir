// Every pass plans every function with a body wherever it is nested: a
// function inside a nested module is rematerialized and planned like a
// top-level one, and the report covers both.
// RUN: remat-opt %s --budget=20KiB --solver=heuristic | FileCheck %s
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-pipeline{budget=20KiB solver=heuristic})' | FileCheck %s
// RUN: remat-opt %s --budget=20KiB --solver=heuristic --report=%t.json -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// CHECK-LABEL: func.func @top
// CHECK-SAME: remat.memory_plan
// CHECK: remat.recompute_of = "a"
// CHECK-LABEL: module @inner
// CHECK-LABEL: func.func @nested
// CHECK-SAME: remat.memory_plan
// CHECK: remat.recompute_of = "a"
// REPORT: "function": "top"
// REPORT: "function": "nested"

func.func @top(%x: tensor<1024xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<1024xf32> {
  %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %c = nn.relu %b {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %d = nn.relu %c {remat.name = "d", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
  %gd = nn.relu_backward %d, %d {remat.name = "d.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %gc = nn.relu_backward %gd, %c {remat.name = "c.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %gb = nn.relu_backward %gc, %b {remat.name = "b.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  %ga = nn.relu_backward %gb, %a {remat.name = "a.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
  return %ga : tensor<1024xf32>
}

module @inner {
  func.func @nested(%x: tensor<1024xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<1024xf32> {
    %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
    %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
    %c = nn.relu %b {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
    %d = nn.relu %c {remat.name = "d", remat.phase = #remat.phase<forward>} : tensor<1024xf32>
    %gd = nn.relu_backward %d, %d {remat.name = "d.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
    %gc = nn.relu_backward %gd, %c {remat.name = "c.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
    %gb = nn.relu_backward %gc, %b {remat.name = "b.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
    %ga = nn.relu_backward %gb, %a {remat.name = "a.grad", remat.phase = #remat.phase<backward>} : tensor<1024xf32>
    return %ga : tensor<1024xf32>
  }
}
