// The optimizer's hyperparameters are checked before the update is built:
// each must be finite and fit the element type of every weight it updates.
// RUN: not remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=sgd lr=1e300" 2>&1 | FileCheck %s --check-prefix=LR
// LR: autodiff-hyperparameters.mlir:[[@LINE+12]]:1: error: function @f: optimizer option lr=1e+300 overflows the element type 'f32' of weight 'w'
// RUN: not remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=adam eps=inf" 2>&1 | FileCheck %s --check-prefix=EPS
// EPS: error: function @f: optimizer option eps=inf is not a finite number
// RUN: not remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=sgd momentum=1e39" 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// MOMENTUM: error: function @f: optimizer option momentum=1e+39 overflows the element type 'f32' of weight 'w'
// Values the optimizer ops refuse: negative, a beta of 1 or more.
// RUN: not remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=sgd momentum=-5" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: function @f: optimizer option momentum=-5 must not be negative
// RUN: not remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=adam beta2=1" 2>&1 | FileCheck %s --check-prefix=BETA
// BETA: error: function @f: optimizer option beta2=1 must be below 1
// RUN: not remat-opt %s --remat-autodiff="loss=cross-entropy optimizer=adam lr=nan" 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: function @f: optimizer option lr=nan is not a finite number
func.func @f(%x: tensor<4x8xf32> {remat.name = "x", remat.role = #remat.role<input>},
             %w: tensor<3x8xf32> {remat.name = "w", remat.role = #remat.role<weight>}) -> tensor<4x3xf32> {
  %0 = nn.linear %x, %w {remat.name = "fc"} : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
