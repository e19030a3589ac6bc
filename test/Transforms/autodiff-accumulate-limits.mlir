// remat-autodiff's bounds on accumulation-steps=K: the step holds a copy of
// the micro-step per accumulation step (at most 1024), and K x the
// micro-batch must be a dimension (an int64_t). A huge K is an error, not an
// abort.
// RUN: not remat-opt %s --split-input-file --remat-autodiff="accumulation-steps=1025" 2>&1 | FileCheck %s --check-prefix=MORE
// RUN: not remat-opt %s --split-input-file --remat-autodiff="accumulation-steps=1000000000000" 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: remat-opt %s --split-input-file --remat-autodiff="accumulation-steps=8" --verify-diagnostics

// MORE: error: function @small: accumulation-steps=1025 is more than 1024, the most this pass builds (the step holds a copy of the micro-step per accumulation step)
// HUGE: error: function @small: accumulation-steps=1000000000000 is more than 1024, the most this pass builds

// Within the bounds (K=8) it builds without a diagnostic.
func.func @small(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                 %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %p = nn.mul %x, %w {remat.name = "scale", remat.phase = #remat.phase<forward>} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = nn.mean %p {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// 8 x 2^60 rows do not fit an int64_t (the input need not be read).
// expected-error @+1 {{function @overflow: accumulation-steps=8: argument 'x' would have 8 x 1152921504606846976 rows, more than an int64_t holds}}
func.func @overflow(%x: tensor<1152921504606846976xf32> {remat.name = "x", remat.role = #remat.role<input>},
                    %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %l = nn.sum %w {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
