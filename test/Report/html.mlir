// The report as one self-contained HTML page: --report=FILE.html (the
// extension picks the format), or the pass's format=json|html, which
// defaults to the extension of its path.
// RUN: remat-opt %s --budget=20KB --solver=heuristic --report=%t.html -o /dev/null
// RUN: FileCheck %s < %t.html
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.pass.html})' -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t.pass.html
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.page.txt format=html})' -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t.page.txt
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json.html format=json})' -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json.html
// An extension other than .html is JSON, as before.
// RUN: remat-opt %s --report=%t.report -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.report
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.x format=pdf})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// Without fit-arena the budget limits the peak alone: the verdict is on the
// peak's row (20 B within a budget of 20 B), none on arguments + arena
// (776 B).
// RUN: remat-opt %S/../Transforms/rematerialize-budget.mlir --budget=100%% --fit-arena=false --report=%t.nofit.html -o /dev/null
// RUN: FileCheck %s --check-prefix=NOFIT < %t.nofit.html

// CHECK:      <!DOCTYPE html>
// CHECK:      <title>remat report: @chain</title>
// CHECK-NEXT: <style>
// CHECK:      <h2>@chain</h2>
// The budget as typed and in its units, the exact bytes on hover.
// CHECK:      <tr><th>Budget</th><td>20KB = <span title="20000 bytes">20 KB</span></td></tr>
// CHECK-NEXT: <tr><th>Peak before rematerialization</th><td><span title="28672 bytes">28.7 KB</span></td></tr>
// CHECK-NEXT: <tr><th>Peak after rematerialization</th><td><span title="16384 bytes">16.4 KB</span> at d.grad</td></tr>
// CHECK:      <tr><th>Arguments + arena</th><td><span title="16384 bytes">16.4 KB</span> <span class="fits">within the budget</span></td></tr>
// CHECK-NEXT: <tr><th>Compute cost before</th><td>{{[0-9.]+}} &#181;s</td></tr>
// CHECK-NEXT: <tr><th>Compute cost after</th><td>{{[0-9.]+}} &#181;s (+{{[0-9.]+}}%)</td></tr>
// CHECK-NEXT: <tr><th>Solver</th><td>heuristic</td></tr>
// CHECK-NEXT: <tr><th>Status</th><td>feasible</td></tr>
// CHECK-NEXT: <tr><th>Lower bound on the cost</th><td>none proven</td></tr>
// NOFIT:      <tr><th>Budget</th><td>100% = <span title="20 bytes">20 B</span></td></tr>
// NOFIT:      <tr><th>Peak after rematerialization (the budget limits it: fit-arena=false)</th><td><span title="20 bytes">20 B</span> at {{[^<]*}} <span class="fits">within the budget</span></td></tr>
// NOFIT:      <tr><th>Arguments + arena</th><td><span title="776 bytes">776 B</span></td></tr>
// NOFIT-NOT:  over the budget

// The timeline, inline.
// CHECK:      <figure>
// CHECK-NEXT: <svg xmlns="http://www.w3.org/2000/svg"
// CHECK:      </svg>
// CHECK-NEXT: </figure>
// CHECK:      <h3>Recomputed</h3>
// CHECK-NEXT: <p>3 values, by 6 recomputing ops
// CHECK:      <tr><td>a</td><td class="num" data-v="3">3</td></tr>
// CHECK-NEXT: <tr><td>b</td><td class="num" data-v="2">2</td></tr>
// CHECK-NEXT: <tr><td>c</td><td class="num" data-v="1">1</td></tr>
// CHECK:      <h3>Ops</h3>
// CHECK:      <table class="ops"><thead><tr><th class="num">#</th><th>name</th>
// Every op, recomputing ones marked; numbers sort by their data-v.
// CHECK:      <tr><td class="num" data-v="0">0</td><td>a</td><td>nn.relu</td><td>forward</td>
// CHECK:      <tr class="recompute"><td class="num" data-v="6">6</td><td>a.recompute</td>
// CHECK-SAME: <td>a</td></tr>
// CHECK:      <td>a.grad</td>
// CHECK:      <script>
// CHECK:      </html>
// Nothing from the network.
// RUN: not grep -E 'src=|href=|@import|url\(' %t.html

// PLAIN:     <tr><th>Budget</th><td>none (no rematerialization ran)</td></tr>
// PLAIN-NEXT: <tr><th>Peak</th><td><span title="28672 bytes">28 KiB</span> at d.grad</td></tr>
// PLAIN-NOT: Peak before
// PLAIN:     <tr><th>Compute cost</th>
// PLAIN:     <p>Nothing was recomputed.</p>

// JSON:      "function": "chain",

// FORMAT: error: remat-report: unknown format 'pdf' (expected json or html)

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
