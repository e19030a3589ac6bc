// The timeline draws one function: a module of several is an error, and no
// file is written.
// RUN: rm -f %t.json %t.svg
// RUN: not remat-opt %s --report=%t.json --timeline=%t.svg -o /dev/null 2>&1 | FileCheck %s
// RUN: not ls %t.svg
// RUN: not ls %t.json
// CHECK: error: remat-report draws one timeline; the module has 2 functions

func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : tensor<4xf32>
  return %a : tensor<4xf32>
}
