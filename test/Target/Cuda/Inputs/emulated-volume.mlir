// A forward function over volumes (NCDHW) for test/Target/Cuda/emulated.test:
// a strided, padded 3-D convolution with a bias, a grouped and dilated one, a
// transposed 3-D convolution (conv3d_backward_input, with output padding in
// its result type) and its bias added per channel, batch norm over a volume,
// 3-D max pooling (ceil mode, padding, dilation) and average pooling
// (padding not counted).
// The test builds the training step with --remat-autodiff, so that every
// backward op of the conv3d family runs too (input, weight and bias
// gradients, and the transposed convolution's gradients), and the pooling
// gradients.
func.func @volume(%input: tensor<2x2x5x6x7xf32> {remat.name = "x", remat.role = #remat.role<input>},
                  %labels: tensor<2xi64> {remat.name = "labels", remat.role = #remat.role<label>},
                  %w1: tensor<4x2x3x3x3xf32> {remat.name = "conv1.weight", remat.role = #remat.role<weight>},
                  %b1: tensor<4xf32> {remat.name = "conv1.bias", remat.role = #remat.role<weight>},
                  %w2: tensor<4x2x2x3x2xf32> {remat.name = "conv2.weight", remat.role = #remat.role<weight>},
                  %wt: tensor<4x3x3x3x3xf32> {remat.name = "up.weight", remat.role = #remat.role<weight>},
                  %bt: tensor<3x1x1x1xf32> {remat.name = "up.bias", remat.role = #remat.role<weight>},
                  %gamma: tensor<3xf32> {remat.name = "bn.weight", remat.role = #remat.role<weight>},
                  %beta: tensor<3xf32> {remat.name = "bn.bias", remat.role = #remat.role<weight>},
                  %fcw: tensor<5x3xf32> {remat.name = "fc.weight", remat.role = #remat.role<weight>})
    -> (tensor<2x5xf32> {remat.name = "logits"}) {
  %c1 = nn.conv3d %input, %w1, %b1 {stride = array<i64: 2, 1, 2>, padding = array<i64: 1, 1, 0>, remat.name = "conv1"} : (tensor<2x2x5x6x7xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x6x3xf32>
  %r1 = nn.relu %c1 {remat.name = "relu1"} : tensor<2x4x3x6x3xf32>
  %c2 = nn.conv3d %r1, %w2 {dilation = array<i64: 1, 2, 1>, padding = array<i64: 1, 2, 1>, groups = 2, remat.name = "conv2"} : (tensor<2x4x3x6x3xf32>, tensor<4x2x2x3x2xf32>) -> tensor<2x4x4x6x4xf32>
  %t2 = nn.tanh %c2 {remat.name = "tanh2"} : tensor<2x4x4x6x4xf32>
  %up = nn.conv3d_backward_input %t2, %wt {stride = array<i64: 2, 1, 2>, padding = array<i64: 1, 1, 0>, remat.name = "up"} : (tensor<2x4x4x6x4xf32>, tensor<4x3x3x3x3xf32>) -> tensor<2x3x8x6x10xf32>
  %ub = nn.add %up, %bt {remat.name = "up.add"} : tensor<2x3x8x6x10xf32>, tensor<3x1x1x1xf32> -> tensor<2x3x8x6x10xf32>
  %bn:3 = nn.batch_norm %ub, %gamma, %beta {eps = 1.0e-5 : f64, remat.name = "bn"} : tensor<2x3x8x6x10xf32>, tensor<3xf32>
  %s = nn.sigmoid %bn#0 {remat.name = "sigmoid"} : tensor<2x3x8x6x10xf32>
  %mp, %idx = nn.max_pool3d %s {kernel_size = array<i64: 2, 3, 2>, stride = array<i64: 2, 2, 1>, padding = array<i64: 1, 1, 0>, dilation = array<i64: 1, 1, 2>, ceil_mode = true, remat.name = "max_pool"} : tensor<2x3x8x6x10xf32> -> tensor<2x3x5x4x8xf32>, tensor<2x3x5x4x8xi64>
  %ap = nn.avg_pool3d %mp {kernel_size = array<i64: 3, 2, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, ceil_mode = true, count_include_pad = false, remat.name = "avg_pool"} : tensor<2x3x5x4x8xf32> -> tensor<2x3x3x3x5xf32>
  %pooled = nn.mean %ap {dims = array<i64: 2, 3, 4>, remat.name = "pool"} : tensor<2x3x3x3x5xf32> -> tensor<2x3xf32>
  %fc = nn.linear %pooled, %fcw {remat.name = "fc"} : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<2x5xf32>
  return %fc : tensor<2x5xf32>
}
