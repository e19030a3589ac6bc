// RUN: remat-opt %s --split-input-file --remat-autodiff --verify-diagnostics

// Without loss=cross-entropy the first result must be the loss.
// expected-error @+1 {{returns no scalar loss: its first result is 'tensor<2x3xf32>'; return a 0-d float tensor, or pass loss=cross-entropy for logits}}
func.func @logits(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                  %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<2x3xf32> {
  %y = nn.linear %x, %w {remat.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// An op between the weights and the loss that has no gradient rule is named.
func.func @no_rule(%x: tensor<4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                   %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  // expected-error @+1 {{'arith.addf' op "sum" has no gradient rule, and it lies between the weights and the loss}}
  %s = arith.addf %x, %w {remat.name = "sum"} : tensor<4xf32>
  %l = nn.sum %s {dims = array<i64: 0>, remat.name = "loss"} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Ops off the path from the weights to the loss need no rule.
func.func @off_path(%x: tensor<4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                    %w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> (tensor<f32>, tensor<4xf32>) {
  %s = arith.addf %x, %x {remat.name = "side"} : tensor<4xf32>
  %p = nn.mul %w, %x {remat.name = "scale"} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %l = nn.sum %p {dims = array<i64: 0>, remat.name = "loss"} : tensor<4xf32> -> tensor<f32>
  return %l, %s : tensor<f32>, tensor<4xf32>
}

// -----

// A weight that cannot be differentiated.
// expected-error @+1 {{argument 'table' has role 'weight' but type 'tensor<4xi64>', which cannot be differentiated}}
func.func @int_weight(%x: tensor<4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                      %t: tensor<4xi64> {remat.name = "table", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %l = nn.sum %x {dims = array<i64: 0>, remat.name = "loss"} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{has no argument with role 'weight' to differentiate}}
func.func @no_weights(%x: tensor<4xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> tensor<f32> {
  %l = nn.sum %x {dims = array<i64: 0>, remat.name = "loss"} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{returns nothing; remat-autodiff needs the loss (or, with loss=cross-entropy, the logits) as the first result}}
func.func @no_results(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>}) {
  return
}

// -----

// A training step is not differentiated twice.
func.func @twice(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  %l = nn.sum %w {dims = array<i64: 0>, remat.name = "loss", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<f32>
  // expected-error @+1 {{is already in the 'backward' phase; remat-autodiff takes a forward function}}
  %g = nn.full 1.0 {remat.name = "seed", remat.phase = #remat.phase<backward>} : tensor<f32>
  return %l : tensor<f32>
}

// -----

// Gradients through batch norm's statistics are not taken.
func.func @through_stats(%x: tensor<4x3xf32> {remat.name = "x", remat.role = #remat.role<input>},
                         %gamma: tensor<3xf32> {remat.name = "gamma", remat.role = #remat.role<weight>},
                         %beta: tensor<3xf32> {remat.name = "beta", remat.role = #remat.role<weight>})
    -> tensor<f32> {
  // expected-error @+1 {{the loss depends on result 1, which the gradient rule does not differentiate (only result 0 is)}}
  %y:3 = nn.batch_norm %x, %gamma, %beta {remat.name = "bn"} : tensor<4x3xf32>, tensor<3xf32>
  %l = nn.sum %y#1 {dims = array<i64: 0>, remat.name = "loss"} : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
