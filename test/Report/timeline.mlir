// The timeline: bytes in the units the budget was typed in, on round ticks;
// before and after drawn at the same ops (x = the schedule after, each
// column one op), recomputing ops as shaded columns the schedule before does
// not have; a legend of only what is drawn.
// RUN: remat-opt %s --budget=20KB --solver=heuristic --timeline=%t.kb.svg -o /dev/null
// RUN: FileCheck %s --check-prefix=KB < %t.kb.svg
// RUN: remat-opt %s --budget=16KiB --solver=heuristic --timeline=%t.kib.svg -o /dev/null
// RUN: FileCheck %s --check-prefix=KIB < %t.kib.svg
// RUN: remat-opt %s --budget=60%% --solver=heuristic --timeline=%t.percent.svg -o /dev/null
// RUN: FileCheck %s --check-prefix=PERCENT < %t.percent.svg
// No rematerialization: one line, no budget, nothing recomputed.
// RUN: remat-opt %s --timeline=%t.plain.svg -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.svg
// A budget met as given: the line before would hide under the line after,
// so only the budget is added.
// RUN: remat-opt %s --budget=1MiB --timeline=%t.met.svg -o /dev/null
// RUN: FileCheck %s --check-prefix=MET < %t.met.svg
// RUN: FileCheck %s --check-prefix=METTICKS < %t.met.svg

// Typed in KB (10^3 bytes): every figure and tick in KB, ticks every 5 KB.
// KB:      Live bytes of @chain before and after rematerialization
// KB-NEXT: peak 16.4 KB (before 28.7 KB), budget 20 KB, arguments 4.1 KB, arena 12.3 KB, 15 ops (6 recomputing)
// KB-NOT:  KiB
// KB:      >before</text>
// KB:      >after</text>
// KB:      >budget</text>
// KB:      >recomputing op</text>
// KB:      >forward</text>
// KB:      >backward</text>
// KB-NOT:  >update</text>
// The 6 recomputing ops, each a shaded column.
// KB-COUNT-6: <rect class="recomputed"
// KB-NOT:  <rect class="recomputed"
// KB:      class="ytick" {{.*}}>0</text>
// KB-NEXT: <line
// KB-NEXT: class="ytick" {{.*}}>5 KB</text>
// KB:      class="ytick" {{.*}}>35 KB</text>
// KB-NOT:  class="ytick"
// KB:      class="xtick" {{.*}}>0</text>
// KB:      class="xtick" {{.*}}>2</text>
// KB:      op, in the order of the schedule after rematerialization
// KB:      >budget 20 KB</text>
// KB:      >peak 16.4 KB at d.grad</text>
// KB:      >peak before 28.7 KB</text>
// At each x one op: an op of the given order shows its live bytes before
// (c.grad ran at step 6 of 9 before, with 24.6 KB live); a recomputing op
// has none.
// KB:      <title>0: nn.relu a (forward): live 8.19 KB; before 8.19 KB</title>
// KB:      <title>6: nn.relu a.recompute (forward): live 12.3 KB; recomputes a</title>
// KB:      <title>9: nn.relu_backward c.grad (backward): live 16.4 KB; before 24.6 KB</title>
// KB:      <title>14: nn.relu_backward a.grad (backward): live 16.4 KB; before 16.4 KB</title>

// Typed in KiB (2^10 bytes).
// KIB: peak 16 KiB (before 28 KiB), budget 16 KiB,
// KIB: class="ytick" {{.*}}>35 KiB</text>
// KIB: >budget 16 KiB</text>

// A percentage names no unit: binary units, and the budget as typed.
// PERCENT: >budget 60% = {{[0-9.]+}} KiB</text>

// PLAIN:     Live bytes of @chain</text>
// PLAIN-NEXT: peak 28 KiB, arguments 4 KiB, arena 24 KiB, 9 ops</text>
// PLAIN:     >live bytes</text>
// PLAIN-NOT: >before</text>
// PLAIN-NOT: >budget</text>
// PLAIN-NOT: recomput
// PLAIN:     op, in the order of the schedule</text>
// PLAIN:     >peak 28 KiB at d.grad</text>
// PLAIN-NOT: peak before
// PLAIN:     <title>5: nn.relu_backward d.grad (backward): live 28 KiB</title>

// MET:     Live bytes of @chain</text>
// MET-NEXT: peak 28 KiB, budget 1 MiB, arguments 4 KiB, arena 24 KiB, 9 ops, as before rematerialization</text>
// MET:     >live bytes</text>
// MET-NOT: >before</text>
// MET:     >budget</text>
// MET-NOT: recomput
// MET:     >budget 1 MiB</text>
// An axis just above one unit (up to 1.1 MiB): every tick in MiB with one
// decimal, not some in KiB (205 KiB) and some in MiB (1.2 MiB).
// METTICKS:    class="ytick" {{.*}}>0</text>
// METTICKS-NEXT: <line
// METTICKS-NEXT: class="ytick" {{.*}}>0.2 MiB</text>
// METTICKS-NEXT: <line
// METTICKS-NEXT: class="ytick" {{.*}}>0.4 MiB</text>
// METTICKS:    class="ytick" {{.*}}>1.0 MiB</text>
// METTICKS-NEXT: <line
// METTICKS-NEXT: class="ytick" {{.*}}>1.2 MiB</text>
// METTICKS-NOT: class="ytick"

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
