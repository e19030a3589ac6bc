// State updated in place and views, by the memory model (docs/design.md): an updated
// result is written into its argument's buffer (no bytes of its own), a view
// shares its source's bytes, and the source lives until the view's last use.
// RUN: remat-opt %s -split-input-file --test-print-peak-memory -o /dev/null 2>&1 | FileCheck %s

// Arguments: w (64 bytes), g (64 bytes). The new weight takes no bytes: every
// step holds the arguments alone.
// CHECK-LABEL: peak-memory @sgd_in_place: arguments 128 bytes, 1 steps
// CHECK-NEXT: step 0 nn.sgd "w.sgd": live 128, workspace 0
// CHECK-NEXT: peak 128 bytes at step 0 nn.sgd "w.sgd": arguments 128, results 0, activations 0, workspace 0
func.func @sgd_in_place(%w: tensor<16xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                        %g: tensor<16xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<16xf32> {remat.name = "w.new", remat.updates = "w"}) {
  %0 = nn.sgd %w, %g {remat.name = "w.sgd", lr = 0.1 : f64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// %a (64 bytes) is reshaped (a view, no bytes) and the view is read at step
// 4: %a lives until then, though %a itself is last read at step 1. Step 4
// holds x, a, b (through the views) and c.
// CHECK-LABEL: peak-memory @view_extends_its_source: arguments 64 bytes, 5 steps
// CHECK-NEXT: step 0 nn.relu "a": live 128, workspace 0
// CHECK-NEXT: step 1 nn.reshape "v": live 128, workspace 0
// CHECK-NEXT: step 2 nn.relu "b": live 192, workspace 0
// CHECK-NEXT: step 3 nn.reshape "r": live 192, workspace 0
// CHECK-NEXT: step 4 nn.add "c": live 256, workspace 0
// CHECK-NEXT: peak 256 bytes at step 4 nn.add "c": arguments 64, results 64, activations 128, workspace 0
func.func @view_extends_its_source(%x: tensor<16xf32>) -> tensor<4x4xf32> {
  %a = nn.relu %x {remat.name = "a"} : tensor<16xf32>
  %v = nn.reshape %a {remat.name = "v"} : tensor<16xf32> -> tensor<4x4xf32>
  %b = nn.relu %x {remat.name = "b"} : tensor<16xf32>
  %r = nn.reshape %b {remat.name = "r"} : tensor<16xf32> -> tensor<4x4xf32>
  %c = nn.add %v, %r {remat.name = "c"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}
