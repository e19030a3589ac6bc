// Functions the report cannot cost are diagnosed where the problem is.
// RUN: remat-opt %s -split-input-file --remat-report -verify-diagnostics -o /dev/null

func.func @mixed_units(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : tensor<16xf32>
  // expected-error @+1 {{'remat.graph_node' op has a cost in graph units but earlier ops of the function are in seconds units}}
  %g = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<4xi8>
  return %a : tensor<16xf32>
}

// -----

// expected-error @+1 {{remat-report found no function with a body}}
module {
  func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
}
