// Rematerialization refuses byte counts that leave the int64 range, at the
// op where the sum overflows, whatever the budget: the reproducers
// (`--budget=1B` on a 4e22-byte tensor; three 6.2e18-byte values at
// `--budget=7000000000000000000B`) used to be accepted with wrapped sums.
// RUN: remat-opt %s -split-input-file --budget=1B -verify-diagnostics -o /dev/null
// RUN: remat-opt %s -split-input-file --budget=7000000000000000000B -verify-diagnostics -o /dev/null

func.func @huge_result(%x: tensor<1xf32>) -> tensor<100000000000x100000000000xf32> {
  // expected-error @+1 {{'nn.broadcast_to' op result #0 of type 'tensor<100000000000x100000000000xf32>' has more bytes than the int64 range holds (2^63 - 1)}}
  %b = nn.broadcast_to %x : tensor<1xf32> -> tensor<100000000000x100000000000xf32>
  return %b : tensor<100000000000x100000000000xf32>
}

// -----

// expected-error @+1 {{value of type 'tensor<100000000000x100000000000xf32>' has more bytes than the int64 range holds}}
func.func @huge_argument(%x: tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32> {
  return %x : tensor<100000000000x100000000000xf32>
}

// -----

func.func @three_live() -> (tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>) {
  %a = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  // expected-error @+1 {{'remat.graph_node' op runs with more bytes live than the int64 range holds}}
  %b = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  %c = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  return %a, %b, %c : tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>
}

// -----

// Never live together, but the solvers sum the step's values: their total
// must fit, and the error names the op where it stops fitting.
func.func @three_apart() -> tensor<1xi8> {
  %a = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  // expected-error @+1 {{'remat.graph_node' op brings the step's bytes (arguments, every value and workspace so far) beyond the int64 range, which remat cannot plan}}
  %b = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  %c = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<1xi8>
  return %c : tensor<1xi8>
}

// -----

func.func @padding() -> (tensor<2305843009213693920xf32>, tensor<f32>) {
  // expected-error @+1 {{'nn.full' op brings the step's bytes (arguments, every value and workspace so far) beyond the int64 range}}
  %big = nn.full 1.0 : tensor<2305843009213693920xf32>
  %small = nn.full 2.0 : tensor<f32>
  return %big, %small : tensor<2305843009213693920xf32>, tensor<f32>
}
