// Errors of remat-autodiff's gradient accumulation (accumulation-steps=K).
// RUN: remat-opt %s --split-input-file --remat-autodiff="accumulation-steps=2" --verify-diagnostics
// RUN: not remat-opt %s --split-input-file --remat-autodiff="accumulation-steps=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not remat-opt %s --split-input-file --remat-autodiff="accumulation-steps=-3" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// ZERO: error: function @no_input: accumulation-steps must be at least 1, not 0
// NEGATIVE: error: function @no_input: accumulation-steps must be at least 1, not -3

// Nothing to slice: no argument with role input or label.
// expected-error @+1 {{function @no_input: accumulation-steps=2 needs an argument with role 'input' or 'label' to slice into micro-batches}}
func.func @no_input(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %l = nn.sum %w {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An input without a batch dimension.
// expected-error @+1 {{function @scalar_input: accumulation-steps=2: argument 'x' of role 'input' has type 'tensor<f32>'; slicing it into micro-batches needs a static tensor with a batch dimension}}
func.func @scalar_input(%x: tensor<f32> {remat.name = "x", remat.role = #remat.role<input>},
                        %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %p = nn.mul %w, %x {remat.name = "scale", remat.phase = #remat.phase<forward>} : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %l = nn.sum %p {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Two inputs whose first dimensions differ: which is the micro-batch?
// expected-error @+1 {{function @rows: accumulation-steps=2: inputs 'x' and 'y' have 2 and 3 rows; every input needs the micro-batch as its first dimension}}
func.func @rows(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                %y: tensor<3x4xf32> {remat.name = "y", remat.role = #remat.role<input>},
                %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %p = nn.mul %x, %w {remat.name = "scale", remat.phase = #remat.phase<forward>} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = nn.mean %p {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An argument without a role: sliced or kept whole is unknown (it was once
// kept whole, so that every micro-step read the same rows).
// expected-error @+1 {{function @no_role: accumulation-steps=2: argument 'x' has no remat.role, so whether to slice it into micro-batches ('input', 'label') or keep it whole ('weight', 'buffer', ...) is unknown; give it a role}}
func.func @no_role(%x: tensor<4x8xf32> {remat.name = "x"},
                   %y: tensor<4x8xf32> {remat.name = "y", remat.role = #remat.role<input>},
                   %w: tensor<3x8xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %s = nn.add %x, %y {remat.name = "s", remat.phase = #remat.phase<forward>} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %l = nn.sum %s {dims = array<i64: 0, 1>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
