// A recomputed nn.bernoulli (stochastic depth's noise) reads the same seed
// operand, so it redraws the same sample: the rematerialized step's results
// are the unplanned step's, bit for bit.
// RUN: remat-opt %s --budget=100% --solver=marks -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: remat-run %t.mlir --reference %s 2>/dev/null | FileCheck %s --check-prefix=SAME

// CHECK: nn.bernoulli %[[SEED:arg1]], 8.000000e-01 {remat.name = "depth.bernoulli",
// CHECK: %[[N2:.*]] = nn.bernoulli %[[SEED]], 8.000000e-01 {remat.name = "depth.bernoulli.recompute", {{.*}}remat.recompute_of = "depth.bernoulli"
// CHECK: %[[S2:.*]] = nn.div_scalar %[[N2]], 8.000000e-01 {remat.name = "depth.div_scalar.recompute"
// CHECK: nn.mul %{{.*}}, %[[S2]] {remat.name = "depth.grad"
// SAME: reference: 1 of 1 results bit-identical

func.func @depth(%x: tensor<8x256xf32> {remat.name = "x", remat.role = #remat.role<input>},
                 %seed: tensor<i64> {remat.name = "depth.seed", remat.role = #remat.role<seed>})
    -> tensor<8x256xf32> {
  %n = nn.bernoulli %seed, 0.8 {remat.name = "depth.bernoulli", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<recompute>} : tensor<i64> -> tensor<8x1xf32>
  %s = nn.div_scalar %n, 0.8 {remat.name = "depth.div_scalar", remat.phase = #remat.phase<forward>, remat.policy = #remat.policy<recompute>} : tensor<8x1xf32>
  %y = nn.mul %x, %s {remat.name = "depth.mul", remat.phase = #remat.phase<forward>} : tensor<8x256xf32>, tensor<8x1xf32> -> tensor<8x256xf32>
  %r = nn.relu %y {remat.name = "relu", remat.phase = #remat.phase<forward>} : tensor<8x256xf32>
  %r2 = nn.relu %r {remat.name = "relu2", remat.phase = #remat.phase<forward>} : tensor<8x256xf32>
  %g = nn.full 1.0 {remat.name = "seed.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %g2 = nn.relu_backward %g, %r2 {remat.name = "relu2.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %g1 = nn.relu_backward %g2, %r {remat.name = "relu.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>
  %gx = nn.mul %g1, %s {remat.name = "depth.grad", remat.phase = #remat.phase<backward>} : tensor<8x256xf32>, tensor<8x1xf32> -> tensor<8x256xf32>
  return %gx : tensor<8x256xf32>
}
