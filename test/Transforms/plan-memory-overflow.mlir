// Byte counts that leave the int64 range are errors at the op (or argument)
// where the sum overflows, never wrapped into a wrong plan.
// RUN: remat-opt %s -split-input-file --remat-plan-memory -verify-diagnostics -o /dev/null

// A value whose own bytes do not fit.
// expected-error @+1 {{value of type 'tensor<100000000000x100000000000xf32>' has more bytes than the int64 range holds}}
func.func @huge_argument(%x: tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32> {
  return %x : tensor<100000000000x100000000000xf32>
}

// -----

// Arguments whose total does not fit.
func.func @arguments(%x: tensor<6200000000000000000xi8>,
                     // expected-error @+1 {{the arguments' bytes exceed the int64 range at this argument}}
                     %y: tensor<6200000000000000000xi8>) -> tensor<6200000000000000000xi8> {
  return %x : tensor<6200000000000000000xi8>
}

// -----

// Three 6.2e18-byte values live at once: the live bytes overflow where the
// second one is defined.
func.func @three() -> (tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>) {
  %a = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  // expected-error @+1 {{'remat.graph_node' op runs with more bytes live than the int64 range holds}}
  %b = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  %c = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  return %a, %b, %c : tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>, tensor<6200000000000000000xi8>
}

// -----

// The live bytes fit (2^63 - 123), but the second tensor's offset, aligned
// to 256 bytes after the first, would end beyond the int64 range.
func.func @padding() -> (tensor<2305843009213693920xf32>, tensor<f32>) {
  %big = nn.full 1.0 : tensor<2305843009213693920xf32>
  // expected-error @+1 {{'nn.full' op cannot be placed in the arena: its offset and bytes exceed the int64 range}}
  %small = nn.full 2.0 : tensor<f32>
  return %big, %small : tensor<2305843009213693920xf32>, tensor<f32>
}

// -----

// Huge values whose lifetimes do not overlap share offset 0: planned.
func.func @disjoint() -> tensor<1xi8> {
  %a = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  %b = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<6200000000000000000xi8>
  %c = remat.graph_node() {cost = 1.0 : f64} : () -> tensor<1xi8>
  return %c : tensor<1xi8>
}
