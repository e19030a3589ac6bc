// A forward function for test/Target/Cuda/emulated.test that reaches the nn
// ops and lowering paths the fixtures and example models do not: grouped,
// strided and dilated convolutions (and their input gradients), sigmoid,
// tanh, hardswish, hardsigmoid, silu, hardtanh (on values that reach every
// piece), exp, mul, div and sub with broadcasting, the scalar forms, average pooling
// (count_include_pad = false), max pooling in ceil mode, concat, slice with a
// step, bilinear upsampling with and without align_corners, nearest
// upsampling (ratios that are not whole, and a doubled width), transpose,
// dropout, stochastic depth's Bernoulli noise (its own seed), log-softmax
// along a middle dim (the column kernels), mean over dims (the block
// reduction), softmax and linear; negative dims on slice, transpose and
// log-softmax. (Not concat: autodiff's concat rule takes no
// negative dim yet.) The test builds the training step with --remat-autodiff
// (cross entropy, SGD with momentum and weight decay), so that every
// backward op runs too, and plans it in 90% of its peak.
func.func @ops(%input: tensor<2x3x9x9xf32> {remat.name = "x", remat.role = #remat.role<input>},
               %labels: tensor<2xi64> {remat.name = "labels", remat.role = #remat.role<label>},
               %seed: tensor<i64> {remat.name = "seed", remat.role = #remat.role<seed>},
               %depth_seed: tensor<i64> {remat.name = "depth.seed", remat.role = #remat.role<seed>},
               %w0: tensor<4x3x1x1xf32> {remat.name = "conv0.weight", remat.role = #remat.role<weight>},
               %w1: tensor<6x2x3x3xf32> {remat.name = "conv1.weight", remat.role = #remat.role<weight>},
               %b1: tensor<6xf32> {remat.name = "conv1.bias", remat.role = #remat.role<weight>},
               %w2: tensor<6x2x3x3xf32> {remat.name = "conv2.weight", remat.role = #remat.role<weight>},
               %scale: tensor<6x1x1xf32> {remat.name = "scale", remat.role = #remat.role<weight>},
               %fcw: tensor<10x6xf32> {remat.name = "fc.weight", remat.role = #remat.role<weight>},
               %fcb: tensor<10xf32> {remat.name = "fc.bias", remat.role = #remat.role<weight>})
    -> (tensor<2x10xf32> {remat.name = "logits"}) {
  %x = nn.conv2d %input, %w0 {remat.name = "conv0"} : (tensor<2x3x9x9xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x9x9xf32>
  %c1 = nn.conv2d %x, %w1, %b1 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2, remat.name = "conv1"} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x5xf32>
  %c2 = nn.conv2d %x, %w2 {dilation = array<i64: 2, 2>, groups = 2, remat.name = "conv2"} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x5xf32>
  %s = nn.sigmoid %c1 {remat.name = "sigmoid"} : tensor<2x6x5x5xf32>
  %t = nn.tanh %c2 {remat.name = "tanh"} : tensor<2x6x5x5xf32>
  %m = nn.mul %s, %t {remat.name = "mul"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %den = nn.add_scalar %s, 1.0 {remat.name = "den"} : tensor<2x6x5x5xf32>
  %q = nn.div %m, %den {remat.name = "div"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %sc = nn.mul %q, %scale {remat.name = "scale"} : tensor<2x6x5x5xf32>, tensor<6x1x1xf32> -> tensor<2x6x5x5xf32>
  %d = nn.sub %sc, %c1 {remat.name = "sub"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %dm = nn.mul_scalar %d, 2.0 {remat.name = "mul_scalar"} : tensor<2x6x5x5xf32>
  %ds = nn.sub_scalar %dm, 0.25 {remat.name = "sub_scalar"} : tensor<2x6x5x5xf32>
  %wide = nn.mul_scalar %ds, 4.0 {remat.name = "wide"} : tensor<2x6x5x5xf32>
  %hs = nn.hardswish %wide {remat.name = "hardswish"} : tensor<2x6x5x5xf32>
  %hg = nn.hardsigmoid %wide {remat.name = "hardsigmoid"} : tensor<2x6x5x5xf32>
  %si = nn.silu %wide {remat.name = "silu"} : tensor<2x6x5x5xf32>
  %ht = nn.hardtanh %wide {min_val = -0.5 : f64, max_val = 6.0 : f64, remat.name = "hardtanh"} : tensor<2x6x5x5xf32>
  %act1 = nn.mul %hs, %hg {remat.name = "act1"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %act2 = nn.mul %si, %ht {remat.name = "act2"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %ex = nn.exp %ds {remat.name = "exp"} : tensor<2x6x5x5xf32>
  %act3 = nn.add %act1, %ex {remat.name = "act3"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %act = nn.add %act3, %act2 {remat.name = "act"} : tensor<2x6x5x5xf32>, tensor<2x6x5x5xf32> -> tensor<2x6x5x5xf32>
  %a = nn.avg_pool2d %act {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false, remat.name = "avg_pool"} : tensor<2x6x5x5xf32> -> tensor<2x6x3x3xf32>
  %mp, %idx = nn.max_pool2d %act {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, ceil_mode = true, remat.name = "max_pool"} : tensor<2x6x5x5xf32> -> tensor<2x6x3x3xf32>, tensor<2x6x3x3xi64>
  %cat = nn.concat %a, %mp {dim = 1, remat.name = "concat"} : (tensor<2x6x3x3xf32>, tensor<2x6x3x3xf32>) -> tensor<2x12x3x3xf32>
  %sl = nn.slice %cat {dim = -3, start = 1, end = 12, step = 2, remat.name = "slice"} : tensor<2x12x3x3xf32> -> tensor<2x6x3x3xf32>
  %up = nn.upsample_bilinear2d %sl {remat.name = "upsample"} : tensor<2x6x3x3xf32> -> tensor<2x6x8x8xf32>
  %near = nn.upsample_nearest2d %sl {remat.name = "upsample_nearest"} : tensor<2x6x3x3xf32> -> tensor<2x6x8x8xf32>
  %near2 = nn.upsample_nearest2d %near {remat.name = "upsample_nearest_double"} : tensor<2x6x8x8xf32> -> tensor<2x6x8x16xf32>
  %near3 = nn.slice %near2 {dim = 3, start = 0, end = 16, step = 2, remat.name = "upsample_nearest_slice"} : tensor<2x6x8x16xf32> -> tensor<2x6x8x8xf32>
  %ups = nn.add %up, %near3 {remat.name = "upsample_sum"} : tensor<2x6x8x8xf32>, tensor<2x6x8x8xf32> -> tensor<2x6x8x8xf32>
  %up2 = nn.upsample_bilinear2d %ups {align_corners = true, remat.name = "upsample_aligned"} : tensor<2x6x8x8xf32> -> tensor<2x6x11x13xf32>
  %tr = nn.transpose %up2 {dim0 = -1, dim1 = -2, remat.name = "transpose"} : tensor<2x6x11x13xf32> -> tensor<2x6x13x11xf32>
  %drop = nn.dropout %tr, %seed, 0.3 {remat.name = "dropout"} : tensor<2x6x13x11xf32>, tensor<i64> -> tensor<2x6x13x11xf32>
  %noise = nn.bernoulli %depth_seed, 0.7 {remat.name = "depth.bernoulli"} : tensor<i64> -> tensor<2x6x1x1xf32>
  %scaled = nn.div_scalar %noise, 0.7 {remat.name = "depth.div_scalar"} : tensor<2x6x1x1xf32>
  %depth = nn.mul %drop, %scaled {remat.name = "depth.mul"} : tensor<2x6x13x11xf32>, tensor<2x6x1x1xf32> -> tensor<2x6x13x11xf32>
  %ls = nn.log_softmax %depth {dim = -3, remat.name = "log_softmax"} : tensor<2x6x13x11xf32>
  %mean = nn.mean %ls {dims = array<i64: 2, 3>, remat.name = "mean"} : tensor<2x6x13x11xf32> -> tensor<2x6xf32>
  %sm = nn.softmax %mean {dim = 1, remat.name = "softmax"} : tensor<2x6xf32>
  %fc = nn.linear %sm, %fcw, %fcb {remat.name = "fc"} : (tensor<2x6xf32>, tensor<10x6xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %fc : tensor<2x10xf32>
}
