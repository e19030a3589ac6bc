// What the peak-memory analysis cannot measure is an error with a location.
// RUN: remat-opt %s -split-input-file --test-print-peak-memory -verify-diagnostics -o /dev/null

// expected-error @+1 {{value of type 'tensor<?xf32>' has no static size; remat needs statically shaped tensors of sized element types}}
func.func @dynamic_argument(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{value of type 'tensor<*xf32>' has no static size}}
func.func @unranked_argument(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

// -----

// expected-error @+1 {{value of type 'tensor<4xvector<4xf32>>' has no static size}}
func.func @unsupported_element_type(%x: tensor<4xvector<4xf32>>) -> tensor<4xvector<4xf32>> {
  return %x : tensor<4xvector<4xf32>>
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{value of type 'tensor<?xf32>' has no static size}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

func.func private @callee(tensor<4xf32>) -> tensor<4xf32>

func.func @no_cost_information(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op has no cost information (it implements no CostOpInterface, directly or through an external model), so remat cannot plan it}}
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op has several blocks; remat analyzes single-block bodies}}
func.func @several_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^next
^next:
  return %x : tensor<4xf32>
}
