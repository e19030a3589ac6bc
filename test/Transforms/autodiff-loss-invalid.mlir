// RUN: remat-opt %s --split-input-file --remat-autodiff="loss=cross-entropy" --verify-diagnostics
// RUN: not remat-opt %s --split-input-file --remat-autodiff="loss=hinge" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not remat-opt %s --split-input-file --remat-autodiff="optimizer=lamb" 2>&1 | FileCheck %s --check-prefix=OPTIMIZER
// RUN: not remat-opt %s --split-input-file --remat-autodiff="optimizer=sgd update-placement=early" 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// LOSS: error: function @rank1: unknown loss 'hinge' (none or cross-entropy)
// OPTIMIZER: error: function @rank1: unknown optimizer 'lamb' (none, sgd, adam or adamw)
// PLACEMENT: error: function @rank1: unknown update placement 'early' (interleaved or end)

// loss=cross-entropy takes [N, C] logits (or [N, C, d1, ...]).
// expected-error @+1 {{loss=cross-entropy needs float logits [N, C] (or [N, C, d1, ...], as F.cross_entropy) as the first result, not 'tensor<2xf32>'}}
func.func @rank1(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<weight>})
    -> tensor<2xf32> {
  %y = nn.sum %x {dims = array<i64: 1>, remat.name = "sum"} : tensor<2x4xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// expected-error @+1 {{has several arguments with role 'label'; loss=cross-entropy needs one}}
func.func @two_labels(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                      %a: tensor<2xi64> {remat.name = "a", remat.role = #remat.role<label>},
                      %b: tensor<2xi64> {remat.name = "b", remat.role = #remat.role<label>},
                      %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> tensor<2x3xf32> {
  %y = nn.linear %x, %w {remat.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
