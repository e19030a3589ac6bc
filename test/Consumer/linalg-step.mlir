// remat on another compiler's IR: a training-like step of linalg and arith
// ops (two layers: matmul + ReLU as arith.maximumf; their backward as
// matmuls reading the forward activations), rematerialized through the
// installed library by a consumer tool.
// REQUIRES: consumer
// RUN: %consumer_tool %s 112KiB | FileCheck %s
// RUN: %consumer_tool %s 1GB | FileCheck %s --check-prefix=FITS

// The step peaks at 120 KiB as given (arguments 40 KiB). With CBC in the
// library, auto's LP bound proves the schedule optimal.
// CHECK: remat.memory_plan = #remat.memory_plan<arena_bytes = {{[0-9]+}}, alignment = 256>, remat.solve = #remat.solve<budget_bytes = 114688,{{.*}}status = "{{feasible|optimal}}"
// CHECK: remat.recompute_of = "{{[a-z0-9]+}}"
// FITS-NOT: remat.recompute_of

func.func @step(%x: tensor<32x64xf32> {remat.name = "x", remat.role = #remat.role<input>},
                %w1: tensor<64x64xf32> {remat.name = "w1", remat.role = #remat.role<weight>},
                %w2: tensor<64x64xf32> {remat.name = "w2", remat.role = #remat.role<weight>})
    -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant {remat.name = "zero", remat.phase = #remat.phase<forward>} dense<0.0> : tensor<32x64xf32>
  %e1 = tensor.empty() {remat.name = "e1", remat.phase = #remat.phase<forward>} : tensor<32x64xf32>
  %m1 = linalg.matmul {remat.name = "m1", remat.phase = #remat.phase<forward>} ins(%x, %w1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%e1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %h1 = arith.maximumf %m1, %zero {remat.name = "h1", remat.phase = #remat.phase<forward>} : tensor<32x64xf32>
  %e2 = tensor.empty() {remat.name = "e2", remat.phase = #remat.phase<forward>} : tensor<32x64xf32>
  %m2 = linalg.matmul {remat.name = "m2", remat.phase = #remat.phase<forward>} ins(%h1, %w2 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %h2 = arith.maximumf %m2, %zero {remat.name = "h2", remat.phase = #remat.phase<forward>} : tensor<32x64xf32>
  // Backward: dW2 = h1^T . dh2 (dh2 = h2 as the loss gradient), dh1 = dh2 . w2^T, dW1 = x^T . dh1.
  %et = tensor.empty() {remat.name = "et", remat.phase = #remat.phase<backward>} : tensor<64x32xf32>
  %h1t = linalg.transpose {remat.name = "h1t", remat.phase = #remat.phase<backward>} ins(%h1 : tensor<32x64xf32>) outs(%et : tensor<64x32xf32>) permutation = [1, 0]
  %ew = tensor.empty() {remat.name = "ew", remat.phase = #remat.phase<backward>} : tensor<64x64xf32>
  %dw2 = linalg.matmul {remat.name = "dw2", remat.phase = #remat.phase<backward>} ins(%h1t, %h2 : tensor<64x32xf32>, tensor<32x64xf32>) outs(%ew : tensor<64x64xf32>) -> tensor<64x64xf32>
  %w2t = linalg.transpose {remat.name = "w2t", remat.phase = #remat.phase<backward>} ins(%w2 : tensor<64x64xf32>) outs(%ew : tensor<64x64xf32>) permutation = [1, 0]
  %dh1 = linalg.matmul {remat.name = "dh1", remat.phase = #remat.phase<backward>} ins(%h2, %w2t : tensor<32x64xf32>, tensor<64x64xf32>) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %xt = linalg.transpose {remat.name = "xt", remat.phase = #remat.phase<backward>} ins(%x : tensor<32x64xf32>) outs(%et : tensor<64x32xf32>) permutation = [1, 0]
  %dw1 = linalg.matmul {remat.name = "dw1", remat.phase = #remat.phase<backward>} ins(%xt, %dh1 : tensor<64x32xf32>, tensor<32x64xf32>) outs(%ew : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %dw1, %dw2 : tensor<64x64xf32>, tensor<64x64xf32>
}
