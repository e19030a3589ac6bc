// Round trip of every nn op: custom form, re-parsed output, and the generic
// form re-parsed into the custom form all print the same.
// RUN: remat-opt %s | FileCheck %s
// RUN: remat-opt %s | remat-opt | FileCheck %s
// RUN: remat-opt %s --mlir-print-op-generic | remat-opt | FileCheck %s

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[R:.*]] = nn.relu %{{.*}} : tensor<2x8xf32>
  %r = nn.relu %x : tensor<2x8xf32>
  // CHECK: nn.relu_backward %{{.*}}, %[[R]] : tensor<2x8xf32>
  %dr = nn.relu_backward %g, %r : tensor<2x8xf32>
  // CHECK: nn.gelu %{{.*}} : tensor<2x8xf32>
  %ge = nn.gelu %x : tensor<2x8xf32>
  // CHECK: nn.gelu %{{.*}} {approximate = "tanh"} : tensor<2x8xf32>
  %gt = nn.gelu %x {approximate = "tanh"} : tensor<2x8xf32>
  // CHECK: nn.gelu_backward %{{.*}}, %{{.*}} : tensor<2x8xf32>
  %dge = nn.gelu_backward %g, %x : tensor<2x8xf32>
  // CHECK: nn.sigmoid %{{.*}} : tensor<2x8xf32>
  %s = nn.sigmoid %x : tensor<2x8xf32>
  // CHECK: nn.sigmoid_backward %{{.*}}, %{{.*}} : tensor<2x8xf32>
  %ds = nn.sigmoid_backward %g, %s : tensor<2x8xf32>
  // CHECK: nn.tanh %{{.*}} : tensor<2x8xf32>
  %t = nn.tanh %x : tensor<2x8xf32>
  // CHECK: nn.tanh_backward %{{.*}}, %{{.*}} : tensor<2x8xf32>
  %dt = nn.tanh_backward %g, %t : tensor<2x8xf32>
  return %dt : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @mobile_activations
func.func @mobile_activations(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[H:.*]] = nn.hardtanh %{{.*}} : tensor<2x8xf32>
  %h = nn.hardtanh %x : tensor<2x8xf32>
  // CHECK: nn.hardtanh_backward %{{.*}}, %[[H]] : tensor<2x8xf32>
  %dh = nn.hardtanh_backward %g, %h : tensor<2x8xf32>
  // CHECK: %[[R6:.*]] = nn.hardtanh %{{.*}} {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64} : tensor<2x8xf32>
  %r6 = nn.hardtanh %x {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<2x8xf32>
  // CHECK: nn.hardtanh_backward %{{.*}}, %[[R6]] {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64} : tensor<2x8xf32>
  %dr6 = nn.hardtanh_backward %g, %r6 {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<2x8xf32>
  // CHECK: nn.hardswish %{{.*}} : tensor<2x8xf32>
  %hs = nn.hardswish %x : tensor<2x8xf32>
  // CHECK: nn.hardswish_backward %{{.*}}, %{{.*}} : tensor<2x8xf32>
  %dhs = nn.hardswish_backward %g, %x : tensor<2x8xf32>
  // CHECK: nn.hardsigmoid %{{.*}} : tensor<2x8xf32>
  %hg = nn.hardsigmoid %x : tensor<2x8xf32>
  // CHECK: nn.hardsigmoid_backward %{{.*}}, %{{.*}} : tensor<2x8xf32>
  %dhg = nn.hardsigmoid_backward %g, %x : tensor<2x8xf32>
  // CHECK: nn.silu %{{.*}} : tensor<2x8xf32>
  %si = nn.silu %x : tensor<2x8xf32>
  // CHECK: nn.silu_backward %{{.*}}, %{{.*}} : tensor<2x8xf32>
  %dsi = nn.silu_backward %g, %x : tensor<2x8xf32>
  // CHECK: nn.exp %{{.*}} : tensor<2x8xf32>
  %ex = nn.exp %x : tensor<2x8xf32>
  return %dsi : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @arithmetic
func.func @arithmetic(%a: tensor<4x1x3xf32>, %b: tensor<2x1xf32>, %s: tensor<f32>) -> tensor<4x2x3xf32> {
  // CHECK: nn.add %{{.*}}, %{{.*}} : tensor<4x1x3xf32>, tensor<2x1xf32> -> tensor<4x2x3xf32>
  %0 = nn.add %a, %b : tensor<4x1x3xf32>, tensor<2x1xf32> -> tensor<4x2x3xf32>
  // CHECK: nn.sub %{{.*}}, %{{.*}} : tensor<4x2x3xf32>, tensor<f32> -> tensor<4x2x3xf32>
  %1 = nn.sub %0, %s : tensor<4x2x3xf32>, tensor<f32> -> tensor<4x2x3xf32>
  // CHECK: nn.mul %{{.*}}, %{{.*}} : tensor<4x2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  %2 = nn.mul %1, %0 : tensor<4x2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  // CHECK: nn.div %{{.*}}, %{{.*}} : tensor<4x2x3xf32>, tensor<2x1xf32> -> tensor<4x2x3xf32>
  %3 = nn.div %2, %b : tensor<4x2x3xf32>, tensor<2x1xf32> -> tensor<4x2x3xf32>
  // CHECK: nn.add_scalar %{{.*}}, 1.000000e+00 : tensor<4x2x3xf32>
  %4 = nn.add_scalar %3, 1.0 : tensor<4x2x3xf32>
  // CHECK: nn.sub_scalar %{{.*}}, 2.500000e-01 : tensor<4x2x3xf32>
  %5 = nn.sub_scalar %4, 0.25 : tensor<4x2x3xf32>
  // CHECK: nn.mul_scalar %{{.*}}, -2.000000e+00 : tensor<4x2x3xf32>
  %6 = nn.mul_scalar %5, -2.0 : tensor<4x2x3xf32>
  // CHECK: nn.div_scalar %{{.*}}, 4.000000e+00 : tensor<4x2x3xf32>
  %7 = nn.div_scalar %6, 4.0 : tensor<4x2x3xf32>
  return %7 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @dropout_fill_broadcast
func.func @dropout_fill_broadcast(%x: tensor<4x16xbf16>, %seed: tensor<i64>, %v: tensor<1x16xf32>) -> (tensor<4x16xbf16>, tensor<3x4x16xf32>, tensor<f32>) {
  // CHECK: nn.dropout %{{.*}}, %{{.*}}, 1.000000e-01 : tensor<4x16xbf16>, tensor<i64> -> tensor<4x16xbf16>
  %d = nn.dropout %x, %seed, 0.1 : tensor<4x16xbf16>, tensor<i64> -> tensor<4x16xbf16>
  // CHECK: nn.dropout_backward %{{.*}}, %{{.*}}, 1.000000e-01 : tensor<4x16xbf16>, tensor<i64> -> tensor<4x16xbf16>
  %dd = nn.dropout_backward %d, %seed, 0.1 : tensor<4x16xbf16>, tensor<i64> -> tensor<4x16xbf16>
  // CHECK: nn.full 1.000000e+00 : tensor<f32>
  %one = nn.full 1.0 : tensor<f32>
  // CHECK: nn.convert %{{.*}} : tensor<1x16xf32> -> tensor<1x16xbf16>
  %c = nn.convert %v : tensor<1x16xf32> -> tensor<1x16xbf16>
  // CHECK: nn.broadcast_to %{{.*}} : tensor<1x16xf32> -> tensor<3x4x16xf32>
  %b = nn.broadcast_to %v : tensor<1x16xf32> -> tensor<3x4x16xf32>
  return %dd, %b, %one : tensor<4x16xbf16>, tensor<3x4x16xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @bernoulli
func.func @bernoulli(%seed: tensor<i64>) -> (tensor<2x1x1x1xf32>, tensor<3xbf16>) {
  // CHECK: nn.bernoulli %{{.*}}, 8.000000e-01 : tensor<i64> -> tensor<2x1x1x1xf32>
  %n = nn.bernoulli %seed, 0.8 : tensor<i64> -> tensor<2x1x1x1xf32>
  // CHECK: nn.bernoulli %{{.*}}, 1.000000e+00 : tensor<i64> -> tensor<3xbf16>
  %all = nn.bernoulli %seed, 1.0 : tensor<i64> -> tensor<3xbf16>
  return %n, %all : tensor<2x1x1x1xf32>, tensor<3xbf16>
}

// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<3x5x16xf32>, %w: tensor<10x16xf32>, %bias: tensor<10xf32>, %g: tensor<3x5x10xf32>) -> (tensor<3x5x16xf32>, tensor<10x16xf32>, tensor<10xf32>) {
  // CHECK: nn.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x5x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<3x5x10xf32>
  %y = nn.linear %x, %w, %bias : (tensor<3x5x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<3x5x10xf32>
  // CHECK: nn.linear %{{.*}}, %{{.*}} : (tensor<3x5x16xf32>, tensor<10x16xf32>) -> tensor<3x5x10xf32>
  %y2 = nn.linear %x, %w : (tensor<3x5x16xf32>, tensor<10x16xf32>) -> tensor<3x5x10xf32>
  // CHECK: nn.linear_backward_input %{{.*}}, %{{.*}} : (tensor<3x5x10xf32>, tensor<10x16xf32>) -> tensor<3x5x16xf32>
  %dx = nn.linear_backward_input %g, %w : (tensor<3x5x10xf32>, tensor<10x16xf32>) -> tensor<3x5x16xf32>
  // CHECK: nn.linear_backward_weight %{{.*}}, %{{.*}} : (tensor<3x5x10xf32>, tensor<3x5x16xf32>) -> tensor<10x16xf32>
  %dw = nn.linear_backward_weight %g, %x : (tensor<3x5x10xf32>, tensor<3x5x16xf32>) -> tensor<10x16xf32>
  // CHECK: nn.linear_backward_bias %{{.*}} : (tensor<3x5x10xf32>) -> tensor<10xf32>
  %db = nn.linear_backward_bias %g : (tensor<3x5x10xf32>) -> tensor<10xf32>
  return %dx, %dw, %db : tensor<3x5x16xf32>, tensor<10x16xf32>, tensor<10xf32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %g: tensor<2x3x5xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x5xf32>) {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %c = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK: nn.matmul_backward_lhs %{{.*}}, %{{.*}} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  %da = nn.matmul_backward_lhs %g, %b : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  // CHECK: nn.matmul_backward_rhs %{{.*}}, %{{.*}} : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x4x5xf32>
  %db = nn.matmul_backward_rhs %g, %a : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x4x5xf32>
  return %da, %db : tensor<2x3x4xf32>, tensor<2x4x5xf32>
}

// CHECK-LABEL: func.func @embedding
func.func @embedding(%w: tensor<100x8xf32>, %i: tensor<2x5xi64>, %g: tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<100x8xf32>) {
  // CHECK: nn.embedding %{{.*}}, %{{.*}} {padding_idx = 0 : i64} : (tensor<100x8xf32>, tensor<2x5xi64>) -> tensor<2x5x8xf32>
  %e = nn.embedding %w, %i {padding_idx = 0} : (tensor<100x8xf32>, tensor<2x5xi64>) -> tensor<2x5x8xf32>
  // CHECK: nn.embedding_backward %{{.*}}, %{{.*}} : (tensor<2x5x8xf32>, tensor<2x5xi64>) -> tensor<100x8xf32>
  %dw = nn.embedding_backward %g, %i : (tensor<2x5x8xf32>, tensor<2x5xi64>) -> tensor<100x8xf32>
  return %e, %dw : tensor<2x5x8xf32>, tensor<100x8xf32>
}

// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>, %g: tensor<2x6x5x5xf32>) -> (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) {
  // CHECK: nn.conv2d %{{.*}}, %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x5xf32>
  %y = nn.conv2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x5xf32>
  // CHECK: nn.conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 2, 2>, groups = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x5xf32>
  %y2 = nn.conv2d %x, %w {dilation = array<i64: 2, 2>, groups = 2} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x5xf32>
  // CHECK: nn.conv2d_backward_input %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  %dx = nn.conv2d_backward_input %g, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2} : (tensor<2x6x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  // CHECK: nn.conv2d_backward_weight %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x5x5xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
  %dw = nn.conv2d_backward_weight %g, %x {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2} : (tensor<2x6x5x5xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
  // CHECK: nn.conv2d_backward_bias %{{.*}} : (tensor<2x6x5x5xf32>) -> tensor<6xf32>
  %db = nn.conv2d_backward_bias %g : (tensor<2x6x5x5xf32>) -> tensor<6xf32>
  return %dx, %dw, %db : tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>
}

// CHECK-LABEL: func.func @convolution3d
func.func @convolution3d(%x: tensor<2x4x5x6x7xf32>, %w: tensor<6x2x3x2x3xf32>, %b: tensor<6xf32>, %g: tensor<2x6x3x4x9xf32>) -> (tensor<2x6x3x4x9xf32>, tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>, tensor<6xf32>) {
  // CHECK: nn.conv3d %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0, 2>, stride = array<i64: 2, 1, 1>} : (tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3x4x9xf32>
  %y = nn.conv3d %x, %w, %b {stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 0, 2>, dilation = array<i64: 1, 2, 1>, groups = 2} : (tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3x4x9xf32>
  // CHECK: nn.conv3d_backward_input %{{.*}}, %{{.*}} {{.*}} : (tensor<2x6x3x4x9xf32>, tensor<6x2x3x2x3xf32>) -> tensor<2x4x5x6x7xf32>
  %dx = nn.conv3d_backward_input %g, %w {stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 0, 2>, dilation = array<i64: 1, 2, 1>, groups = 2} : (tensor<2x6x3x4x9xf32>, tensor<6x2x3x2x3xf32>) -> tensor<2x4x5x6x7xf32>
  // CHECK: nn.conv3d_backward_weight %{{.*}}, %{{.*}} {{.*}} : (tensor<2x6x3x4x9xf32>, tensor<2x4x5x6x7xf32>) -> tensor<6x2x3x2x3xf32>
  %dw = nn.conv3d_backward_weight %g, %x {stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 0, 2>, dilation = array<i64: 1, 2, 1>, groups = 2} : (tensor<2x6x3x4x9xf32>, tensor<2x4x5x6x7xf32>) -> tensor<6x2x3x2x3xf32>
  // CHECK: nn.conv3d_backward_bias %{{.*}} : (tensor<2x6x3x4x9xf32>) -> tensor<6xf32>
  %db = nn.conv3d_backward_bias %g : (tensor<2x6x3x4x9xf32>) -> tensor<6xf32>
  return %y, %dx, %dw, %db : tensor<2x6x3x4x9xf32>, tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>, tensor<6xf32>
}

// CHECK-LABEL: func.func @upsample_nearest
func.func @upsample_nearest(%x: tensor<2x3x4x5xf32>, %g: tensor<2x3x8x7xf32>) -> (tensor<2x3x8x7xf32>, tensor<2x3x4x5xf32>) {
  // CHECK: nn.upsample_nearest2d %{{.*}} : tensor<2x3x4x5xf32> -> tensor<2x3x8x7xf32>
  %y = nn.upsample_nearest2d %x : tensor<2x3x4x5xf32> -> tensor<2x3x8x7xf32>
  // CHECK: nn.upsample_nearest2d_backward %{{.*}} : tensor<2x3x8x7xf32> -> tensor<2x3x4x5xf32>
  %dx = nn.upsample_nearest2d_backward %g : tensor<2x3x8x7xf32> -> tensor<2x3x4x5xf32>
  return %y, %dx : tensor<2x3x8x7xf32>, tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func.func @pooling3d
func.func @pooling3d(%x: tensor<2x3x5x9x9xf32>, %g: tensor<2x3x3x5x5xf32>) -> (tensor<2x3x5x9x9xf32>, tensor<2x3x5x9x9xf32>) {
  // CHECK: %{{.*}}, %[[I:.*]] = nn.max_pool3d %{{.*}} {ceil_mode = true, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>} : tensor<2x3x5x9x9xf32> -> tensor<2x3x3x5x5xf32>, tensor<2x3x3x5x5xi64>
  %y, %i = nn.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, ceil_mode = true} : tensor<2x3x5x9x9xf32> -> tensor<2x3x3x5x5xf32>, tensor<2x3x3x5x5xi64>
  // CHECK: nn.max_pool3d_backward %{{.*}}, %[[I]] {ceil_mode = true, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>} : (tensor<2x3x3x5x5xf32>, tensor<2x3x3x5x5xi64>) -> tensor<2x3x5x9x9xf32>
  %dx = nn.max_pool3d_backward %g, %i {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, ceil_mode = true} : (tensor<2x3x3x5x5xf32>, tensor<2x3x3x5x5xi64>) -> tensor<2x3x5x9x9xf32>
  // CHECK: nn.avg_pool3d %{{.*}} {count_include_pad = false, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : tensor<2x3x5x9x9xf32> -> tensor<2x3x3x5x5xf32>
  %a = nn.avg_pool3d %x {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, count_include_pad = false} : tensor<2x3x5x9x9xf32> -> tensor<2x3x3x5x5xf32>
  // CHECK: nn.avg_pool3d_backward %{{.*}} {kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : tensor<2x3x3x5x5xf32> -> tensor<2x3x5x9x9xf32>
  %da = nn.avg_pool3d_backward %g {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>} : tensor<2x3x3x5x5xf32> -> tensor<2x3x5x9x9xf32>
  return %dx, %da : tensor<2x3x5x9x9xf32>, tensor<2x3x5x9x9xf32>
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<2x3x9x9xf32>, %g: tensor<2x3x5x5xf32>, %ga: tensor<2x3x4x4xf32>) -> (tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>) {
  // CHECK: %{{.*}}, %[[I:.*]] = nn.max_pool2d %{{.*}} {ceil_mode = true, kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>
  %y, %i = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, ceil_mode = true} : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>
  // CHECK: nn.max_pool2d_backward %{{.*}}, %[[I]] {ceil_mode = true, kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>) -> tensor<2x3x9x9xf32>
  %dx = nn.max_pool2d_backward %g, %i {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, ceil_mode = true} : (tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>) -> tensor<2x3x9x9xf32>
  // CHECK: nn.max_pool2d %{{.*}} {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<2x3x9x9xf32> -> tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>
  %y2, %i2 = nn.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>} : tensor<2x3x9x9xf32> -> tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>
  // CHECK: nn.avg_pool2d %{{.*}} {count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  %a = nn.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false} : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  // CHECK: nn.avg_pool2d_backward %{{.*}} {count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<2x3x5x5xf32> -> tensor<2x3x9x9xf32>
  %da = nn.avg_pool2d_backward %g {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false} : tensor<2x3x5x5xf32> -> tensor<2x3x9x9xf32>
  // CHECK: nn.adaptive_avg_pool2d %{{.*}} : tensor<2x3x9x9xf32> -> tensor<2x3x4x4xf32>
  %p = nn.adaptive_avg_pool2d %x : tensor<2x3x9x9xf32> -> tensor<2x3x4x4xf32>
  // CHECK: nn.adaptive_avg_pool2d_backward %{{.*}} : tensor<2x3x4x4xf32> -> tensor<2x3x9x9xf32>
  %dp = nn.adaptive_avg_pool2d_backward %ga : tensor<2x3x4x4xf32> -> tensor<2x3x9x9xf32>
  return %dx, %dp : tensor<2x3x9x9xf32>, tensor<2x3x9x9xf32>
}

// CHECK-LABEL: func.func @upsample
func.func @upsample(%x: tensor<1x3x32x32xf32>, %g: tensor<1x3x224x224xf32>) -> tensor<1x3x32x32xf32> {
  // CHECK: nn.upsample_bilinear2d %{{.*}} : tensor<1x3x32x32xf32> -> tensor<1x3x224x224xf32>
  %y = nn.upsample_bilinear2d %x : tensor<1x3x32x32xf32> -> tensor<1x3x224x224xf32>
  // CHECK: nn.upsample_bilinear2d_backward %{{.*}} {align_corners = true} : tensor<1x3x224x224xf32> -> tensor<1x3x32x32xf32>
  %dx = nn.upsample_bilinear2d_backward %g {align_corners = true} : tensor<1x3x224x224xf32> -> tensor<1x3x32x32xf32>
  return %dx : tensor<1x3x32x32xf32>
}

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<4x16x8x8xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>, %rm: tensor<16xf32>, %rv: tensor<16xf32>, %g: tensor<4x16x8x8xf32>) -> (tensor<4x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[Y:.*]], %[[M:.*]], %[[S:.*]] = nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 1.000000e-03 : f64} : tensor<4x16x8x8xf32>, tensor<16xf32>
  %y, %mean, %invstd = nn.batch_norm %x, %w, %b {eps = 1.0e-3 : f64} : tensor<4x16x8x8xf32>, tensor<16xf32>
  // CHECK: nn.batch_norm_update_stats %{{.*}}, %{{.*}}, %{{.*}} {momentum = 2.000000e-01 : f64} : tensor<4x16x8x8xf32>, tensor<16xf32>
  %nrm, %nrv = nn.batch_norm_update_stats %x, %rm, %rv {momentum = 0.2 : f64} : tensor<4x16x8x8xf32>, tensor<16xf32>
  // CHECK: nn.batch_norm_backward %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[S]] : tensor<4x16x8x8xf32>, tensor<16xf32>
  %dx, %dw, %db = nn.batch_norm_backward %g, %x, %w, %mean, %invstd : tensor<4x16x8x8xf32>, tensor<16xf32>
  return %dx, %dw, %db, %nrm, %nrv : tensor<4x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<2x5x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>, %g: tensor<2x5x16xf32>) -> (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x5x16xf32>, tensor<16xf32> -> tensor<2x5x1xf32>
  %y, %mean, %rstd = nn.layer_norm %x, %w, %b : tensor<2x5x16xf32>, tensor<16xf32> -> tensor<2x5x1xf32>
  // CHECK: nn.layer_norm_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<16xf32>
  %dx, %dw, %db = nn.layer_norm_backward %g, %x, %mean, %rstd, %w : tensor<2x5x16xf32>, tensor<2x5x1xf32>, tensor<16xf32>
  return %dx, %dw, %db : tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<2x3x4x5xf32>, %y: tensor<2x3x1x5xf32>) -> (tensor<6x20xf32>, tensor<2x60xf32>, tensor<2x5x4x3xf32>, tensor<5x2x3x4xf32>, tensor<2x3x5x5xf32>) {
  // CHECK: nn.reshape %{{.*}} : tensor<2x3x4x5xf32> -> tensor<6x20xf32>
  %r = nn.reshape %x : tensor<2x3x4x5xf32> -> tensor<6x20xf32>
  // CHECK: nn.flatten %{{.*}} : tensor<2x3x4x5xf32> -> tensor<2x60xf32>
  %f = nn.flatten %x : tensor<2x3x4x5xf32> -> tensor<2x60xf32>
  // CHECK: nn.transpose %{{.*}} {dim0 = 1 : i64, dim1 = -1 : i64} : tensor<2x3x4x5xf32> -> tensor<2x5x4x3xf32>
  %t = nn.transpose %x {dim0 = 1, dim1 = -1} : tensor<2x3x4x5xf32> -> tensor<2x5x4x3xf32>
  // CHECK: nn.permute %{{.*}} {dims = array<i64: 3, 0, 1, 2>} : tensor<2x3x4x5xf32> -> tensor<5x2x3x4xf32>
  %p = nn.permute %x {dims = array<i64: 3, 0, 1, 2>} : tensor<2x3x4x5xf32> -> tensor<5x2x3x4xf32>
  // CHECK: nn.concat %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<2x3x4x5xf32>, tensor<2x3x1x5xf32>) -> tensor<2x3x5x5xf32>
  %c = nn.concat %x, %y {dim = 2} : (tensor<2x3x4x5xf32>, tensor<2x3x1x5xf32>) -> tensor<2x3x5x5xf32>
  return %r, %f, %t, %p, %c : tensor<6x20xf32>, tensor<2x60xf32>, tensor<2x5x4x3xf32>, tensor<5x2x3x4xf32>, tensor<2x3x5x5xf32>
}

// CHECK-LABEL: func.func @slices_and_reductions
func.func @slices_and_reductions(%x: tensor<2x10x4xf32>) -> (tensor<2x10x4xf32>, tensor<2x4xf32>, tensor<1x10x1xf32>) {
  // CHECK: nn.slice %{{.*}} {dim = 1 : i64, end = 9 : i64, start = 1 : i64, step = 3 : i64} : tensor<2x10x4xf32> -> tensor<2x3x4xf32>
  %s = nn.slice %x {dim = 1, start = 1, end = 9, step = 3} : tensor<2x10x4xf32> -> tensor<2x3x4xf32>
  // CHECK: nn.slice_backward %{{.*}} {dim = 1 : i64, end = 9 : i64, start = 1 : i64, step = 3 : i64} : tensor<2x3x4xf32> -> tensor<2x10x4xf32>
  %ds = nn.slice_backward %s {dim = 1, start = 1, end = 9, step = 3} : tensor<2x3x4xf32> -> tensor<2x10x4xf32>
  // CHECK: nn.sum %{{.*}} {dims = array<i64: 1>} : tensor<2x10x4xf32> -> tensor<2x4xf32>
  %sum = nn.sum %x {dims = array<i64: 1>} : tensor<2x10x4xf32> -> tensor<2x4xf32>
  // CHECK: nn.mean %{{.*}} {dims = array<i64: 0, -1>, keepdim = true} : tensor<2x10x4xf32> -> tensor<1x10x1xf32>
  %mean = nn.mean %x {dims = array<i64: 0, -1>, keepdim = true} : tensor<2x10x4xf32> -> tensor<1x10x1xf32>
  return %ds, %sum, %mean : tensor<2x10x4xf32>, tensor<2x4xf32>, tensor<1x10x1xf32>
}

// CHECK-LABEL: func.func @losses
func.func @losses(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>, %g: tensor<8x10xf32>) -> (tensor<f32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>) {
  // CHECK: nn.softmax %{{.*}} {dim = 1 : i64} : tensor<8x10xf32>
  %p = nn.softmax %logits {dim = 1} : tensor<8x10xf32>
  // CHECK: nn.softmax_backward %{{.*}}, %{{.*}} {dim = 1 : i64} : tensor<8x10xf32>
  %dp = nn.softmax_backward %g, %p {dim = 1} : tensor<8x10xf32>
  // CHECK: nn.log_softmax %{{.*}} {dim = -1 : i64} : tensor<8x10xf32>
  %lp = nn.log_softmax %logits {dim = -1} : tensor<8x10xf32>
  // CHECK: nn.log_softmax_backward %{{.*}}, %{{.*}} {dim = -1 : i64} : tensor<8x10xf32>
  %dlp = nn.log_softmax_backward %g, %lp {dim = -1} : tensor<8x10xf32>
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  %loss = nn.cross_entropy %logits, %labels : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  // CHECK: nn.full 1.000000e+00 : tensor<f32>
  %one = nn.full 1.0 : tensor<f32>
  // CHECK: nn.cross_entropy_backward %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = 0 : i64} : (tensor<f32>, tensor<8x10xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  %dl = nn.cross_entropy_backward %one, %logits, %labels {ignore_index = 0} : (tensor<f32>, tensor<8x10xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  return %loss, %dp, %dlp, %dl : tensor<f32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>
}

// CHECK-LABEL: func.func @pixel_cross_entropy
func.func @pixel_cross_entropy(%logits: tensor<2x10x4x4xf32>, %labels: tensor<2x4x4xi64>, %one: tensor<f32>) -> (tensor<f32>, tensor<2x10x4x4xf32>) {
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} : (tensor<2x10x4x4xf32>, tensor<2x4x4xi64>) -> tensor<f32>
  %loss = nn.cross_entropy %logits, %labels : (tensor<2x10x4x4xf32>, tensor<2x4x4xi64>) -> tensor<f32>
  // CHECK: nn.cross_entropy_backward %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x10x4x4xf32>, tensor<2x4x4xi64>) -> tensor<2x10x4x4xf32>
  %dl = nn.cross_entropy_backward %one, %logits, %labels : (tensor<f32>, tensor<2x10x4x4xf32>, tensor<2x4x4xi64>) -> tensor<2x10x4x4xf32>
  return %loss, %dl : tensor<f32>, tensor<2x10x4x4xf32>
}

// CHECK-LABEL: func.func @optimizers
func.func @optimizers(%p: tensor<16xf32>, %g: tensor<16xf32>, %buf: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>, %step: tensor<f32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: nn.sgd %{{.*}}, %{{.*}} {lr = 1.000000e-01 : f64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %p1 = nn.sgd %p, %g {lr = 0.1 : f64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // CHECK: nn.sgd %{{.*}}, %{{.*}}, %{{.*}} {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov = true, weight_decay = 5.000000e-04 : f64} : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  %p2, %buf2 = nn.sgd %p, %g, %buf {lr = 0.1 : f64, momentum = 0.9 : f64, weight_decay = 5.0e-4 : f64, nesterov = true} : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  // CHECK: nn.adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<f32>
  %p3, %m3, %v3 = nn.adam %p, %g, %m, %v, %step : tensor<16xf32>, tensor<f32>
  return %p1, %p2, %buf2, %p3, %m3, %v3 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>, %m: tensor<1x1x8x6xf32>, %g: tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>) {
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = true, scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  %o, %lse = nn.attention %q, %k, %v {is_causal = true, scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<1x1x8x6xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  %o2, %lse2 = nn.attention %q, %k, %v, %m {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<1x1x8x6xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  // CHECK: nn.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<1x1x8x6xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>)
  %dq, %dk, %dv = nn.attention_backward %g, %q, %k, %v, %o2, %lse2, %m {scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<1x1x8x6xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>)
  return %o, %dk : tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>
}

// Dropout on the attention weights: the seed after the mask, in the forward
// and the backward.
// CHECK-LABEL: func.func @attention_dropout
func.func @attention_dropout(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>, %m: tensor<1x1x8x6xf32>, %s: tensor<i64>, %g: tensor<2x4x8x16xf32>) -> tensor<2x2x6x16xf32> {
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} seed %{{.*}} {dropout_p = 1.000000e-01 : f64, scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<1x1x8x6xf32>, tensor<i64>)
  %o, %lse = nn.attention %q, %k, %v, %m seed %s {dropout_p = 0.1 : f64, scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<1x1x8x6xf32>, tensor<i64>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  // CHECK: nn.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} seed %{{.*}} {dropout_p = 1.000000e-01 : f64, is_causal = true, scale = 2.500000e-01 : f64}
  %dq, %dk, %dv = nn.attention_backward %g, %q, %k, %v, %o, %lse seed %s {dropout_p = 0.1 : f64, is_causal = true, scale = 0.25 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<i64>) -> (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>)
  return %dk : tensor<2x2x6x16xf32>
}
