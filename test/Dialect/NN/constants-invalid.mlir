// A constant an nn op carries (nn.full's value, a scalar op's scalar, an
// optimizer's hyperparameters) must fit the op's element type: one that
// overflows it is a verifier error, never an overflow at run time.
// RUN: remat-opt %s -split-input-file -verify-diagnostics

func.func @full_overflows_f32() -> tensor<f32> {
  // expected-error @+1 {{'nn.full' op has 'value' = 1e+300, which overflows its element type 'f32'}}
  %0 = nn.full 1.0e300 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @full_overflows_f16() -> tensor<2xf16> {
  // expected-error @+1 {{'nn.full' op has 'value' = -70000, which overflows its element type 'f16'}}
  %0 = nn.full -7.0e4 : tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

func.func @scalar_overflows(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'nn.mul_scalar' op has 'scalar' = 1e+39, which overflows its element type 'f32'}}
  %0 = nn.mul_scalar %x, 1.0e39 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @lr_overflows(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'nn.sgd' op has 'lr' = 1e+300, which overflows its element type 'f32'}}
  %0 = nn.sgd %w, %g {lr = 1.0e300 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// What the element type holds verifies: the largest finite values,
// infinities, and any double in f64.
func.func @fits(%x: tensor<4xf16>) -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<4xf16>) {
  %0 = nn.full 3.4e38 : tensor<f32>
  %1 = nn.full 0x7FF0000000000000 : tensor<f32>
  %2 = nn.full 1.0e300 : tensor<f64>
  %3 = nn.add_scalar %x, 6.55e4 : tensor<4xf16>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<4xf16>
}
