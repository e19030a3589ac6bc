// Every verifier error of the nn dialect, one case each.
// RUN: remat-opt %s -split-input-file -verify-diagnostics

func.func @dynamic_shape(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{must be statically shaped tensor of floating-point values}}
  %0 = nn.relu %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @integer_activation(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{must be statically shaped tensor of floating-point values}}
  %0 = nn.relu %x : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @gelu_approximate(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects 'approximate' to be "none" or "tanh", got "erf"}}
  %0 = nn.gelu %x {approximate = "erf"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @hardtanh_bounds(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects 'min_val' <= 'max_val', got 6 and 0}}
  %0 = nn.hardtanh %x {min_val = 6.0 : f64, max_val = 0.0 : f64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @hardtanh_backward_bounds(%g: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects 'min_val' <= 'max_val', got 1 and -1}}
  %0 = nn.hardtanh_backward %g, %y {min_val = 1.0 : f64, max_val = -1.0 : f64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @hardswish_type(%x: tensor<8xf32>) -> tensor<8xf16> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "nn.hardswish"(%x) : (tensor<8xf32>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @gelu_backward_approximate(%g: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects 'approximate' to be "none" or "tanh", got "fast"}}
  %0 = nn.gelu_backward %g, %x {approximate = "fast"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @relu_backward_types(%g: tensor<8xf32>, %y: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "nn.relu_backward"(%g, %y) : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @add_incompatible(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{cannot broadcast 'tensor<4x3xf32>' with 'tensor<4x2xf32>'}}
  %0 = nn.add %a, %b : tensor<4x3xf32>, tensor<4x2xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @mul_result_shape(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{expects a result of shape 4x3, got 'tensor<4x1xf32>'}}
  %0 = nn.mul %a, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @sub_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{expects lhs and rhs to have the same element type, got 'tensor<4xf32>' and 'tensor<4xf16>'}}
  %0 = nn.sub %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @div_result_element_type(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{expects lhs and result to have the same element type}}
  %0 = nn.div %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @div_by_zero(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects a non-zero divisor}}
  %0 = nn.div_scalar %a, 0.0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_probability(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{expects 'p' in [0, 1), got 1}}
  %0 = nn.dropout %x, %seed, 1.0 : tensor<4xf32>, tensor<i64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_result(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<8xf32> {
  // expected-error @+1 {{expects the result type to equal the input type, got 'tensor<8xf32>' and 'tensor<4xf32>'}}
  %0 = nn.dropout_backward %x, %seed, 0.5 : tensor<4xf32>, tensor<i64> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dropout_seed(%x: tensor<4xf32>, %seed: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{must be 0D tensor of 64-bit signless integer values}}
  %0 = nn.dropout %x, %seed, 0.5 : tensor<4xf32>, tensor<2xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bernoulli_probability(%seed: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'nn.bernoulli' op expects 'p' in [0, 1], got 1.5}}
  %0 = nn.bernoulli %seed, 1.5 : tensor<i64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bernoulli_result(%seed: tensor<i64>) -> tensor<4xi64> {
  // expected-error @+1 {{'nn.bernoulli' op result #0 must be statically shaped tensor of floating-point values}}
  %0 = nn.bernoulli %seed, 0.5 : tensor<i64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @convert_shape(%x: tensor<2x3xf32>) -> tensor<3x2xbf16> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = nn.convert %x : tensor<2x3xf32> -> tensor<3x2xbf16>
  return %0 : tensor<3x2xbf16>
}

// -----

func.func @convert_integer(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of floating-point values}}
  %0 = nn.convert %x : tensor<2x3xf32> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @broadcast_to(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{cannot broadcast 'tensor<2x3xf32>' to 'tensor<4x3xf32>'}}
  %0 = nn.broadcast_to %x : tensor<2x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @broadcast_to_element_type(%x: tensor<3xf32>) -> tensor<4x3xf64> {
  // expected-error @+1 {{expects input and result to have the same element type}}
  %0 = nn.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

func.func @linear_input_rank(%x: tensor<f32>, %w: tensor<4x1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects an input of rank at least 1, got 'tensor<f32>'}}
  %0 = nn.linear %x, %w : (tensor<f32>, tensor<4x1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects a weight of rank 2, got 'tensor<8xf32>'}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_weight_shape(%x: tensor<2x8xf32>, %w: tensor<4x6xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects a weight of shape 4x8, got 'tensor<4x6xf32>'}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x6xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_bias_shape(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects a bias of shape 4, got 'tensor<8xf32>'}}
  %0 = nn.linear %x, %w, %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_result_shape(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{expects a result of shape 2x4, got 'tensor<2x8xf32>'}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @linear_element_type(%x: tensor<2x8xf32>, %w: tensor<4x8xbf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects input and weight to have the same element type}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xbf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_backward_input(%g: tensor<2x4xf32>, %w: tensor<4x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects a result of shape 2x8, got 'tensor<2x4xf32>'}}
  %0 = nn.linear_backward_input %g, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_backward_input_weight(%g: tensor<2x4xf32>, %w: tensor<3x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{expects a weight of shape 4x8, got 'tensor<3x8xf32>'}}
  %0 = nn.linear_backward_input %g, %w : (tensor<2x4xf32>, tensor<3x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @linear_backward_weight_input(%g: tensor<2x4xf32>, %x: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{expects an input of shape 2x8, got 'tensor<3x8xf32>'}}
  %0 = nn.linear_backward_weight %g, %x : (tensor<2x4xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @linear_backward_weight_result(%g: tensor<2x4xf32>, %x: tensor<2x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{expects a weight of shape 4x8, got 'tensor<8x4xf32>'}}
  %0 = nn.linear_backward_weight %g, %x : (tensor<2x4xf32>, tensor<2x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @linear_backward_bias(%g: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects a result of shape 4, got 'tensor<2xf32>'}}
  %0 = nn.linear_backward_bias %g : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{expects a lhs of rank at least 2, got 'tensor<4xf32>'}}
  %0 = nn.matmul %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{expects lhs and rhs to have the same batch dimensions, got 'tensor<2x3x4xf32>' and 'tensor<3x4x5xf32>'}}
  %0 = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) -> tensor<3x6xf32> {
  // expected-error @+1 {{expects the contracted dimensions to match, got 'tensor<3x4xf32>' and 'tensor<5x6xf32>'}}
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

func.func @matmul_result(%a: tensor<3x4xf32>, %b: tensor<4x6xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{expects a result of shape 3x6, got 'tensor<3x4xf32>'}}
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @matmul_backward_lhs(%g: tensor<3x6xf32>, %b: tensor<4x5xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{expects grad_output and rhs to have the same last dimension}}
  %0 = nn.matmul_backward_lhs %g, %b : (tensor<3x6xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @matmul_backward_rhs(%g: tensor<3x6xf32>, %a: tensor<2x4xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{expects grad_output and lhs to have the same row count}}
  %0 = nn.matmul_backward_rhs %g, %a : (tensor<3x6xf32>, tensor<2x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @embedding_padding(%w: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{expects 'padding_idx' to be -1 or in [0, 10), got 10}}
  %0 = nn.embedding %w, %i {padding_idx = 10} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @embedding_rows(%w: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x5xf32> {
  // expected-error @+1 {{expects rows of shape 3x4, got 'tensor<3x5xf32>'}}
  %0 = nn.embedding %w, %i : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @embedding_backward(%g: tensor<3x4xf32>, %i: tensor<3xi64>) -> tensor<10xf32> {
  // expected-error @+1 {{expects a weight of rank 2, got 'tensor<10xf32>'}}
  %0 = nn.embedding_backward %g, %i : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @embedding_float_indices(%w: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{must be statically shaped tensor of signless integer values}}
  %0 = nn.embedding %w, %i : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects an NCHW input of rank 4, got 'tensor<3x8x8xf32>'}}
  %0 = nn.conv2d %x, %w : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects an OIHW weight of rank 4, got 'tensor<4x3x3xf32>'}}
  %0 = nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects input channels (3) and output channels (4) to be divisible by 'groups' (2)}}
  %0 = nn.conv2d %x, %w {groups = 2} : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_groups_positive(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects every value of 'groups' to be positive}}
  %0 = nn.conv2d %x, %w {groups = 0} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_weight_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects a weight of shape 4x3x3x3, got 'tensor<4x2x3x3xf32>'}}
  %0 = nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects every value of 'stride' to be positive}}
  %0 = nn.conv2d %x, %w {stride = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects every value of 'padding' to be non-negative}}
  %0 = nn.conv2d %x, %w {padding = array<i64: -1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects every value of 'dilation' to be positive}}
  %0 = nn.conv2d %x, %w {dilation = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_pair(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'stride' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = nn.conv2d %x, %w {stride = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_window(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+1 {{window of effective size 3 does not fit the padded input of size 2 along H}}
  %0 = nn.conv2d %x, %w : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}

// -----

func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{expects a result of shape 1x4x6x6, got 'tensor<1x4x8x8xf32>'}}
  %0 = nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @conv3d_input_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x4x6x6x6xf32> {
  // expected-error @+1 {{expects an NCDHW input of rank 5, got 'tensor<1x3x8x8xf32>'}}
  %0 = nn.conv3d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return %0 : tensor<1x4x6x6x6xf32>
}

// -----

func.func @conv3d_weight_rank(%x: tensor<1x3x8x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6x6xf32> {
  // expected-error @+1 {{expects an OIDHW weight of rank 5, got 'tensor<4x3x3x3xf32>'}}
  %0 = nn.conv3d %x, %w : (tensor<1x3x8x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return %0 : tensor<1x4x6x6x6xf32>
}

// -----

func.func @conv3d_triple(%x: tensor<1x3x8x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x4x6x6x6xf32> {
  // expected-error @+1 {{'stride' failed to satisfy constraint: i64 dense array attribute with exactly 3 elements}}
  %0 = nn.conv3d %x, %w {stride = array<i64: 1, 1>} : (tensor<1x3x8x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return %0 : tensor<1x4x6x6x6xf32>
}

// -----

func.func @conv3d_window(%x: tensor<1x3x2x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x4x1x6x6xf32> {
  // expected-error @+1 {{window of effective size 3 does not fit the padded input of size 2 along D}}
  %0 = nn.conv3d %x, %w : (tensor<1x3x2x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x1x6x6xf32>
  return %0 : tensor<1x4x1x6x6xf32>
}

// -----

func.func @conv3d_backward_input_result(%g: tensor<1x4x3x6x6xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x3x9x8x8xf32> {
  // expected-error @+1 {{expects a grad_output of shape 1x4x5x6x6, got 'tensor<1x4x3x6x6xf32>'}}
  %0 = nn.conv3d_backward_input %g, %w {stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 0, 0>} : (tensor<1x4x3x6x6xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x3x9x8x8xf32>
  return %0 : tensor<1x3x9x8x8xf32>
}

// -----

func.func @conv3d_backward_bias_rank(%g: tensor<1x4x6x6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects an NCDHW grad_output of rank 5, got 'tensor<1x4x6x6xf32>'}}
  %0 = nn.conv3d_backward_bias %g : (tensor<1x4x6x6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects a bias of shape 4, got 'tensor<3xf32>'}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_element_type(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expects input and weight to have the same element type}}
  %0 = nn.conv2d %x, %w : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_backward_input(%g: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x9x9xf32> {
  // expected-error @+1 {{expects a grad_output of shape 1x4x7x7, got 'tensor<1x4x6x6xf32>'}}
  %0 = nn.conv2d_backward_input %g, %w : (tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x9x9xf32>
  return %0 : tensor<1x3x9x9xf32>
}

// -----

func.func @conv_backward_weight(%g: tensor<1x4x6x6xf32>, %x: tensor<1x3x8x8xf32>) -> tensor<4x3x5x5xf32> {
  // expected-error @+1 {{expects a grad_output of shape 1x4x4x4, got 'tensor<1x4x6x6xf32>'}}
  %0 = nn.conv2d_backward_weight %g, %x : (tensor<1x4x6x6xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x5x5xf32>
  return %0 : tensor<4x3x5x5xf32>
}

// -----

func.func @conv_backward_bias_rank(%g: tensor<4x6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects an NCHW grad_output of rank 4, got 'tensor<4x6xf32>'}}
  %0 = nn.conv2d_backward_bias %g : (tensor<4x6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv_backward_bias(%g: tensor<1x4x6x6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{expects a result of shape 4, got 'tensor<6xf32>'}}
  %0 = nn.conv2d_backward_bias %g : (tensor<1x4x6x6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @max_pool_kernel(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>) {
  // expected-error @+1 {{expects every value of 'kernel_size' to be positive}}
  %0, %1 = nn.max_pool2d %x {kernel_size = array<i64: 0, 2>, stride = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>
  return %0, %1 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>
}

// -----

func.func @max_pool_padding(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>) {
  // expected-error @+1 {{expects 'padding' to be at most half the effective kernel size, got 2 for a window of 3}}
  %0, %1 = nn.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>
  return %0, %1 : tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>
}

// -----

func.func @max_pool3d_padding(%x: tensor<1x3x8x8x8xf32>) -> (tensor<1x3x5x4x4xf32>, tensor<1x3x5x4x4xi64>) {
  // expected-error @+1 {{expects 'padding' to be at most half the effective kernel size, got 2 for a window of 3}}
  %0, %1 = nn.max_pool3d %x {kernel_size = array<i64: 3, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 2, 0, 0>} : tensor<1x3x8x8x8xf32> -> tensor<1x3x5x4x4xf32>, tensor<1x3x5x4x4xi64>
  return %0, %1 : tensor<1x3x5x4x4xf32>, tensor<1x3x5x4x4xi64>
}

// -----

func.func @avg_pool3d_rank(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4x4xf32> {
  // expected-error @+1 {{expects an NCDHW input of rank 5, got 'tensor<1x3x8x8xf32>'}}
  %0 = nn.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4x4xf32>
  return %0 : tensor<1x3x4x4x4xf32>
}

// -----

func.func @upsample_nearest_channels(%x: tensor<2x3x4x4xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{expects a result of shape 2x3x8x8, got 'tensor<2x4x8x8xf32>'}}
  %0 = nn.upsample_nearest2d %x : tensor<2x3x4x4xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

func.func @max_pool_result(%x: tensor<1x3x9x9xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>) {
  // expected-error @+1 {{expects a result of shape 1x3x4x4, got 'tensor<1x3x5x5xf32>'}}
  %0, %1 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x3x9x9xf32> -> tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>
  return %0, %1 : tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>
}

// -----

func.func @max_pool_indices(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x2x2xi64>) {
  // expected-error @+1 {{expects indices of shape 1x3x4x4, got 'tensor<1x3x2x2xi64>'}}
  %0, %1 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>, tensor<1x3x2x2xi64>
  return %0, %1 : tensor<1x3x4x4xf32>, tensor<1x3x2x2xi64>
}

// -----

func.func @max_pool_backward(%g: tensor<1x3x4x4xf32>, %i: tensor<1x3x4x4xi64>) -> tensor<1x3x10x10xf32> {
  // expected-error @+1 {{expects a grad_output of shape 1x3x5x5, got 'tensor<1x3x4x4xf32>'}}
  %0 = nn.max_pool2d_backward %g, %i {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>) -> tensor<1x3x10x10xf32>
  return %0 : tensor<1x3x10x10xf32>
}

// -----

func.func @max_pool_backward_indices(%g: tensor<1x3x4x4xf32>, %i: tensor<1x3x4x2xi64>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{expects indices of shape 1x3x4x4, got 'tensor<1x3x4x2xi64>'}}
  %0 = nn.max_pool2d_backward %g, %i {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<1x3x4x2xi64>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @avg_pool_padding(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32> {
  // expected-error @+1 {{expects 'padding' to be at most half the effective kernel size, got 2 for a window of 2}}
  %0 = nn.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

func.func @avg_pool_backward(%g: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf16> {
  // expected-error @+1 {{expects input and grad_output to have the same element type}}
  %0 = nn.avg_pool2d_backward %g {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf16>
  return %0 : tensor<1x3x8x8xf16>
}

// -----

func.func @adaptive_pool_channels(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{expects a result of shape 1x3x1x1, got 'tensor<1x4x1x1xf32>'}}
  %0 = nn.adaptive_avg_pool2d %x : tensor<1x3x8x8xf32> -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

func.func @adaptive_pool_backward_rank(%g: tensor<1x3xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{expects an NCHW grad_output of rank 4, got 'tensor<1x3xf32>'}}
  %0 = nn.adaptive_avg_pool2d_backward %g : tensor<1x3xf32> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @upsample_rank(%x: tensor<1x3x8x8xf32>) -> tensor<3x16x16xf32> {
  // expected-error @+1 {{expects an NCHW result of rank 4, got 'tensor<3x16x16xf32>'}}
  %0 = nn.upsample_bilinear2d %x : tensor<1x3x8x8xf32> -> tensor<3x16x16xf32>
  return %0 : tensor<3x16x16xf32>
}

// -----

func.func @upsample_backward_batch(%g: tensor<2x3x16x16xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{expects a result of shape 2x3x8x8, got 'tensor<1x3x8x8xf32>'}}
  %0 = nn.upsample_bilinear2d_backward %g : tensor<2x3x16x16xf32> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @batch_norm_input_rank(%x: tensor<16xf32>, %p: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expects an input of rank at least 2, got 'tensor<16xf32>'}}
  %y, %m, %s = nn.batch_norm %x, %p, %p : tensor<16xf32>, tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

func.func @batch_norm_channels(%x: tensor<4x16x8x8xf32>, %p: tensor<8xf32>) -> tensor<4x16x8x8xf32> {
  // expected-error @+1 {{expects per-channel parameters of shape 16, got 'tensor<8xf32>'}}
  %y, %m, %s = nn.batch_norm %x, %p, %p : tensor<4x16x8x8xf32>, tensor<8xf32>
  return %y : tensor<4x16x8x8xf32>
}

// -----

func.func @batch_norm_eps(%x: tensor<4x16xf32>, %p: tensor<16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{expects a positive 'eps'}}
  %y, %m, %s = nn.batch_norm %x, %p, %p {eps = 0.0 : f64} : tensor<4x16xf32>, tensor<16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// PyTorch refuses to train batch norm on one value per channel (batch 1 of
// 1x1 maps): the variance is 0 and the unbiased one 0/0.
func.func @batch_norm_one_value_per_channel(%x: tensor<1x16x1x1xf32>, %p: tensor<16xf32>) -> tensor<1x16x1x1xf32> {
  // expected-error @+1 {{expects more than 1 value per channel to normalize in training, got input 'tensor<1x16x1x1xf32>' (PyTorch: "Expected more than 1 value per channel when training")}}
  %y, %m, %s = nn.batch_norm %x, %p, %p : tensor<1x16x1x1xf32>, tensor<16xf32>
  return %y : tensor<1x16x1x1xf32>
}

// -----

func.func @batch_norm_1d_batch_one(%x: tensor<1x16xf32>, %p: tensor<16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{expects more than 1 value per channel}}
  %y, %m, %s = nn.batch_norm %x, %p, %p : tensor<1x16xf32>, tensor<16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @batch_norm_types(%x: tensor<4x16xf32>, %w: tensor<16xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{all of {weight, bias, save_mean, save_invstd} have same type}}
  %y, %m, %s = "nn.batch_norm"(%x, %w, %b) : (tensor<4x16xf32>, tensor<16xf32>, tensor<8xf32>) -> (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return %y : tensor<4x16xf32>
}

// -----

func.func @batch_norm_update_stats_input_rank(%x: tensor<16xf32>, %p: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expects an input of rank at least 2, got 'tensor<16xf32>'}}
  %m, %v = nn.batch_norm_update_stats %x, %p, %p : tensor<16xf32>, tensor<16xf32>
  return %m : tensor<16xf32>
}

// -----

func.func @batch_norm_update_stats_channels(%x: tensor<4x16x8x8xf32>, %p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects per-channel parameters of shape 16, got 'tensor<8xf32>'}}
  %m, %v = nn.batch_norm_update_stats %x, %p, %p : tensor<4x16x8x8xf32>, tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

func.func @batch_norm_update_stats_element_type(%x: tensor<4x16xf32>, %p: tensor<16xf64>) -> tensor<16xf64> {
  // expected-error @+1 {{expects input and running_mean to have the same element type, got 'tensor<4x16xf32>' and 'tensor<16xf64>'}}
  %m, %v = nn.batch_norm_update_stats %x, %p, %p : tensor<4x16xf32>, tensor<16xf64>
  return %m : tensor<16xf64>
}

// -----

func.func @batch_norm_update_stats_momentum(%x: tensor<4x16xf32>, %p: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expects 'momentum' in [0, 1], got 1.5}}
  %m, %v = nn.batch_norm_update_stats %x, %p, %p {momentum = 1.5 : f64} : tensor<4x16xf32>, tensor<16xf32>
  return %m : tensor<16xf32>
}

// -----

func.func @batch_norm_update_stats_types(%x: tensor<4x16xf32>, %m: tensor<16xf32>, %v: tensor<8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{all of {running_mean, running_var, new_running_mean, new_running_var} have same type}}
  %nm, %nv = "nn.batch_norm_update_stats"(%x, %m, %v) : (tensor<4x16xf32>, tensor<16xf32>, tensor<8xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  return %nm : tensor<16xf32>
}

// -----

func.func @batch_norm_backward(%g: tensor<4x16xf32>, %p: tensor<4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{expects per-channel parameters of shape 16, got 'tensor<4xf32>'}}
  %dx, %dw, %db = nn.batch_norm_backward %g, %g, %p, %p, %p : tensor<4x16xf32>, tensor<4xf32>
  return %dx : tensor<4x16xf32>
}

// -----

func.func @layer_norm_weight(%x: tensor<2x5x16xf32>, %w: tensor<5xf32>) -> tensor<2x5x16xf32> {
  // expected-error @+1 {{expects the weight's shape to equal the input's trailing dimensions, got 'tensor<5xf32>' for 'tensor<2x5x16xf32>'}}
  %y, %m, %r = nn.layer_norm %x, %w, %w : tensor<2x5x16xf32>, tensor<5xf32> -> tensor<2x5x1xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

func.func @layer_norm_stats(%x: tensor<2x5x16xf32>, %w: tensor<16xf32>) -> tensor<2x5x16xf32> {
  // expected-error @+1 {{expects mean and rstd of shape 2x5x1, got 'tensor<2x5xf32>'}}
  %y, %m, %r = nn.layer_norm %x, %w, %w : tensor<2x5x16xf32>, tensor<16xf32> -> tensor<2x5xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

func.func @layer_norm_weight_rank(%x: tensor<2x5x16xf32>, %w: tensor<f32>) -> tensor<2x5x16xf32> {
  // expected-error @+1 {{expects a weight of rank at least 1, got 'tensor<f32>'}}
  %y, %m, %r = nn.layer_norm %x, %w, %w : tensor<2x5x16xf32>, tensor<f32> -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

func.func @layer_norm_eps(%x: tensor<2x16xf32>, %w: tensor<16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{expects a positive 'eps'}}
  %y, %m, %r = nn.layer_norm %x, %w, %w {eps = -1.0 : f64} : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x1xf32>
  return %y : tensor<2x16xf32>
}

// -----

func.func @layer_norm_backward(%g: tensor<2x16xf32>, %s: tensor<2x1xf32>, %w: tensor<2xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{expects the weight's shape to equal the input's trailing dimensions}}
  %dx, %dw, %db = nn.layer_norm_backward %g, %g, %s, %s, %w : tensor<2x16xf32>, tensor<2x1xf32>, tensor<2xf32>
  return %dx : tensor<2x16xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{expects as many elements in the result as in the input, got 'tensor<7xf32>' for 'tensor<2x3xf32>'}}
  %0 = nn.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{expects input and result to have the same element type}}
  %0 = nn.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

func.func @flatten_dims(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{expects 'start_dim' in [-3, 3), got 3}}
  %0 = nn.flatten %x {start_dim = 3} : tensor<2x3x4xf32> -> tensor<24xf32>
  return %0 : tensor<24xf32>
}

// -----

func.func @flatten_end_dim(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{expects 'end_dim' in [-3, 3), got -4}}
  %0 = nn.flatten %x {end_dim = -4} : tensor<2x3x4xf32> -> tensor<24xf32>
  return %0 : tensor<24xf32>
}

// -----

func.func @flatten_order(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{expects 'start_dim' not after 'end_dim'}}
  %0 = nn.flatten %x {start_dim = 2, end_dim = 1} : tensor<2x3x4xf32> -> tensor<24xf32>
  return %0 : tensor<24xf32>
}

// -----

func.func @flatten_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  // expected-error @+1 {{expects an input of rank at least 1, got 'tensor<f32>'}}
  %0 = nn.flatten %x : tensor<f32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @flatten_result(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{expects a result of shape 2x12, got 'tensor<6x4xf32>'}}
  %0 = nn.flatten %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @transpose_dim(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{expects 'dim1' in [-2, 2), got 2}}
  %0 = nn.transpose %x {dim0 = 0, dim1 = 2} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects a result of shape 3x2, got 'tensor<2x3xf32>'}}
  %0 = nn.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @permute_repeated(%x: tensor<2x3x4xf32>) -> tensor<2x2x4xf32> {
  // expected-error @+1 {{expects 'dims' to be a permutation of the 3 input dimensions}}
  %0 = nn.permute %x {dims = array<i64: 0, 0, 2>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>
}

// -----

func.func @permute_result(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{expects a result of shape 4x2x3, got 'tensor<2x3x4xf32>'}}
  %0 = nn.permute %x {dims = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @concat_empty() -> tensor<2xf32> {
  // expected-error @+1 {{expects at least one input}}
  %0 = nn.concat {dim = 0} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_dim(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{expects 'dim' in [-2, 2), got 5}}
  %0 = nn.concat %a, %a {dim = 5} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_inputs(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{expects inputs that differ only along 'dim' of shape 2x3, got 'tensor<4x3xf32>'}}
  %0 = nn.concat %a, %b {dim = 1} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x6xf32> {
  // expected-error @+1 {{expects inputs and inputs to have the same element type}}
  %0 = nn.concat %a, %b {dim = 1} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{expects a result of shape 2x7, got 'tensor<2x6xf32>'}}
  %0 = nn.concat %a, %b {dim = -1} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_step(%x: tensor<10xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{expects a positive 'step', got 0}}
  %0 = nn.slice %x {dim = 0, start = 0, end = 10, step = 0} : tensor<10xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @slice_window(%x: tensor<10xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{expects 0 <= start <= end <= 10, got start 8 and end 13}}
  %0 = nn.slice %x {dim = 0, start = 8, end = 13} : tensor<10xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @slice_result(%x: tensor<10xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{expects a slice of shape 4, got 'tensor<5xf32>'}}
  %0 = nn.slice %x {dim = 0, start = 1, end = 9, step = 2} : tensor<10xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @slice_backward(%g: tensor<4xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{expects a slice of shape 3, got 'tensor<4xf32>'}}
  %0 = nn.slice_backward %g {dim = 0, start = 0, end = 3} : tensor<4xf32> -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @sum_no_dims(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{expects at least one dimension in 'dims'}}
  %0 = nn.sum %x {dims = array<i64>} : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @sum_repeated(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects distinct dimensions in 'dims', got -1 twice}}
  %0 = nn.sum %x {dims = array<i64: 1, -1>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sum_dim_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects 'dims' in [-2, 2), got 2}}
  %0 = nn.sum %x {dims = array<i64: 2>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @mean_keepdim(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects a result of shape 2x1, got 'tensor<2xf32>'}}
  %0 = nn.mean %x {dims = array<i64: 1>, keepdim = true} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @softmax_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects 'dim' in [-2, 2), got 2}}
  %0 = nn.softmax %x {dim = 2} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @log_softmax_backward_dim(%g: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects 'dim' in [-2, 2), got -3}}
  %0 = nn.log_softmax_backward %g, %g {dim = -3} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @cross_entropy_logits(%l: tensor<8xf32>, %t: tensor<8xi64>) -> tensor<f32> {
  // expected-error @+1 {{expects logits of rank 2 or more ([N, C, d1, ...]), got 'tensor<8xf32>'}}
  %0 = nn.cross_entropy %l, %t : (tensor<8xf32>, tensor<8xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_labels(%l: tensor<8x10xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+1 {{expects labels of shape 8, got 'tensor<4xi64>'}}
  %0 = nn.cross_entropy %l, %t : (tensor<8x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_pixel_labels(%l: tensor<2x10x4x4xf32>, %t: tensor<2x4xi64>) -> tensor<f32> {
  // expected-error @+1 {{expects labels of shape 2x4x4, got 'tensor<2x4xi64>'}}
  %0 = nn.cross_entropy %l, %t : (tensor<2x10x4x4xf32>, tensor<2x4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_loss(%l: tensor<8x10xf32>, %t: tensor<8xi64>) -> tensor<8xf32> {
  // expected-error @+1 {{expects a loss of rank 0, got 'tensor<8xf32>'}}
  %0 = nn.cross_entropy %l, %t : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @cross_entropy_backward(%g: tensor<f32>, %l: tensor<8x10xf32>, %t: tensor<8xi64>) -> tensor<8x5xf32> {
  // expected-error @+1 {{expects the result type to equal the logits type, got 'tensor<8x5xf32>' and 'tensor<8x10xf32>'}}
  %0 = nn.cross_entropy_backward %g, %l, %t : (tensor<f32>, tensor<8x10xf32>, tensor<8xi64>) -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

func.func @cross_entropy_backward_grad(%g: tensor<f16>, %l: tensor<8x10xf32>, %t: tensor<8xi64>) -> tensor<8x10xf32> {
  // expected-error @+1 {{expects logits and grad_loss to have the same element type}}
  %0 = nn.cross_entropy_backward %g, %l, %t : (tensor<f16>, tensor<8x10xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @sgd_types(%p: tensor<8xf32>, %g: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects param, grad and new_param of one type}}
  %0 = nn.sgd %p, %g {lr = 0.1 : f64} : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_lr(%p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects a non-negative 'lr', got -1.000000e-01}}
  %0 = nn.sgd %p, %p {lr = -0.1 : f64} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_missing_buffer(%p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects a momentum_buffer operand exactly when 'momentum' is not 0}}
  %0 = nn.sgd %p, %p {lr = 0.1 : f64, momentum = 0.9 : f64} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_buffer_type(%p: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects a momentum_buffer operand and a new_momentum_buffer result of the param's type}}
  %0, %1 = nn.sgd %p, %p, %b {lr = 0.1 : f64, momentum = 0.9 : f64} : (tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>)
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_extra_result(%p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects no new_momentum_buffer result without momentum}}
  %0, %1 = nn.sgd %p, %p {lr = 0.1 : f64} : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_nesterov(%p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects no 'dampening' with 'nesterov'}}
  %0, %1 = nn.sgd %p, %p, %p {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.1 : f64, nesterov = true} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_requires_lr(%p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{requires attribute 'lr'}}
  %0 = nn.sgd %p, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @adam_beta(%p: tensor<8xf32>, %t: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects 'beta2' in [0, 1), got 1}}
  %0, %1, %2 = nn.adam %p, %p, %p, %p, %t {beta2 = 1.0 : f64} : tensor<8xf32>, tensor<f32>
  return %0 : tensor<8xf32>
}

// -----

func.func @adam_eps(%p: tensor<8xf32>, %t: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{expects a non-negative 'eps', got -1}}
  %0, %1, %2 = nn.adam %p, %p, %p, %p, %t {eps = -1.0 : f64} : tensor<8xf32>, tensor<f32>
  return %0 : tensor<8xf32>
}

// -----

func.func @adam_step(%p: tensor<8xf32>, %t: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{must be 0D tensor of floating-point values}}
  %0, %1, %2 = nn.adam %p, %p, %p, %p, %t : tensor<8xf32>, tensor<1xf32>
  return %0 : tensor<8xf32>
}

// -----

// Bytes of a value are element count x element size; a result whose bytes do
// not fit in int64 is an error at its op.
func.func @bytes_beyond_int64(%x: tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32> {
  // expected-error @+1 {{'nn.relu' op result #0 of type 'tensor<100000000000x100000000000xf32>' has more bytes than the int64 range holds (2^63 - 1)}}
  %r = nn.relu %x : tensor<100000000000x100000000000xf32>
  return %r : tensor<100000000000x100000000000xf32>
}

// -----

func.func @attention_rank(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  // expected-error @+1 {{expects a query of rank 4}}
  %o, %l = nn.attention %q, %k, %k {scale = 0.25 : f64} : (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x8xf32>)
  return %o : tensor<4x8x16xf32>
}

// -----

func.func @attention_batch(%q: tensor<2x4x8x16xf32>, %k: tensor<3x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects the query and the key to have the same batch size}}
  %o, %l = nn.attention %q, %k, %k {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<3x4x8x16xf32>, tensor<3x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects the query and the key to have the same head dimension}}
  %o, %l = nn.attention %q, %k, %k {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_groups(%q: tensor<2x4x8x16xf32>, %k: tensor<2x3x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects the query's heads to be a multiple of the key's (grouped-query attention), got 4 and 3}}
  %o, %l = nn.attention %q, %k, %k {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x3x8x16xf32>, tensor<2x3x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_scale(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects a positive, finite 'scale', got 0}}
  %o, %l = nn.attention %q, %q, %q {scale = 0.0 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_mask_shape(%q: tensor<2x4x8x16xf32>, %m: tensor<8x7xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects a mask that broadcasts to the scores' shape 2x4x8x8, got 'tensor<8x7xf32>'}}
  %o, %l = nn.attention %q, %q, %q, %m {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<8x7xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_mask_type(%q: tensor<2x4x8x16xf32>, %m: tensor<8x8xf64>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects query and mask to have the same element type}}
  %o, %l = nn.attention %q, %q, %q, %m {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<8x8xf64>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_logsumexp(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects a log-sum-exp of shape 2x4x8}}
  %o, %l = nn.attention %q, %q, %q {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x16xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_backward_logsumexp_type(%q: tensor<2x4x8x16xf32>, %l: tensor<2x4x8xf64>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects an f32 log-sum-exp, got 'tensor<2x4x8xf64>'}}
  %dq, %dk, %dv = nn.attention_backward %q, %q, %q, %q, %q, %l {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf64>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
  return %dq : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_dropout_range(%q: tensor<2x4x8x16xf32>, %s: tensor<i64>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects 'dropout_p' in [0, 1), got 1}}
  %o, %l = nn.attention %q, %q, %q seed %s {dropout_p = 1.0 : f64, scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<i64>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_dropout_seed(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects a seed exactly when 'dropout_p' is above 0, got dropout_p = 0.1 and no seed}}
  %o, %l = nn.attention %q, %q, %q {dropout_p = 0.1 : f64, scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

func.func @attention_backward_seed(%q: tensor<2x4x8x16xf32>, %l: tensor<2x4x8xf32>, %s: tensor<i64>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{expects a seed exactly when 'dropout_p' is above 0, got dropout_p = 0 and a seed}}
  %dq, %dk, %dv = nn.attention_backward %q, %q, %q, %q, %q, %l seed %s {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<i64>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
  return %dq : tensor<2x4x8x16xf32>
}
