// Live bytes at every op and the peak, by the memory model (docs/design.md), checked
// against numbers computed by hand.
// RUN: remat-opt %s -split-input-file --test-print-peak-memory -o /dev/null 2>&1 | FileCheck %s

// Arguments (64 bytes) live throughout; %a is live from step 0 to its last
// use at step 2; %b only at step 1 and 2; the result %c from step 2 to the
// end. Step 2 holds x, a, b, c: 4 x 64.
// CHECK-LABEL: peak-memory @chain: arguments 64 bytes, 3 steps
// CHECK-NEXT: step 0 nn.relu "a": live 128, workspace 0
// CHECK-NEXT: step 1 nn.relu "b": live 192, workspace 0
// CHECK-NEXT: step 2 nn.add "c": live 256, workspace 0
// CHECK-NEXT: peak 256 bytes at step 2 nn.add "c": arguments 64, results 64, activations 128, workspace 0
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x {remat.name = "a"} : tensor<16xf32>
  %b = nn.relu %a {remat.name = "b"} : tensor<16xf32>
  %c = nn.add %a, %b {remat.name = "c"} : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %c : tensor<16xf32>
}

// -----

// A value freed after its last use makes room: %a (400 bytes) dies at step 1,
// so step 2 holds only x, b and c. A result defined early stays to the end.
// CHECK-LABEL: peak-memory @frees_and_results: arguments 40 bytes, 3 steps
// CHECK-NEXT: step 0 nn.broadcast_to "a": live 440, workspace 0
// CHECK-NEXT: step 1 nn.sum "b": live 480, workspace 0
// CHECK-NEXT: step 2 nn.mul_scalar "c": live 120, workspace 0
// CHECK-NEXT: peak 480 bytes at step 1 nn.sum "b": arguments 40, results 40, activations 400, workspace 0
func.func @frees_and_results(%x: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>) {
  %a = nn.broadcast_to %x {remat.name = "a"} : tensor<10xf32> -> tensor<10x10xf32>
  %b = nn.sum %a {remat.name = "b", dims = array<i64: 0>} : tensor<10x10xf32> -> tensor<10xf32>
  %c = nn.mul_scalar %b, 2.0 {remat.name = "c"} : tensor<10xf32>
  return %b, %c : tensor<10xf32>, tensor<10xf32>
}

// -----

// Every result of an op is its own value: batch norm's three results are
// all live while it runs (the 4x8 output: 128 bytes; two [8] results: 32
// bytes each), and the unused ones die right after it. Arguments: the 4x8
// input (128) and two [8] parameters (64).
// CHECK-LABEL: peak-memory @multiple_results: arguments 192 bytes, 2 steps
// CHECK-NEXT: step 0 nn.batch_norm "bn": live 384, workspace 0
// CHECK-NEXT: step 1 nn.relu "relu": live 256, workspace 0
// CHECK-NEXT: peak 384 bytes at step 0 nn.batch_norm "bn": arguments 192, results 0, activations 192, workspace 0
func.func @multiple_results(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y, %mean, %invstd = nn.batch_norm %x, %w, %b {remat.name = "bn"} : tensor<4x8xf32>, tensor<8xf32>
  %r = nn.relu %mean {remat.name = "relu"} : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Upstream ops through their external cost models; an unnamed op is called by
// its kind and position. 4x4 f32 = 64 bytes; the constant and the empty
// tensor are live until the matmul reads them, so the last step holds only
// the argument, the product and the sum.
// CHECK-LABEL: peak-memory @upstream: arguments 64 bytes, 4 steps
// CHECK-NEXT: step 0 arith.constant: live 128, workspace 0
// CHECK-NEXT: step 1 tensor.empty: live 192, workspace 0
// CHECK-NEXT: step 2 linalg.matmul: live 256, workspace 0
// CHECK-NEXT: step 3 arith.addf: live 192, workspace 0
// CHECK-NEXT: peak 256 bytes at step 2 linalg.matmul: arguments 64, results 0, activations 192, workspace 0
func.func @upstream(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant dense<1.0> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %m = linalg.matmul ins(%x, %c : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = arith.addf %m, %x : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// An empty body holds only the arguments.
// CHECK-LABEL: peak-memory @identity: arguments 24 bytes, 0 steps
// CHECK-NEXT: peak 24 bytes
func.func @identity(%x: tensor<6xf32>) -> tensor<6xf32> {
  return %x : tensor<6xf32>
}
