func.func @step(%x: tensor<4x2x3xf32> {remat.name = "x", remat.role = #remat.role<input>},
                %labels: tensor<4xi64> {remat.name = "labels", remat.role = #remat.role<label>},
                %w: tensor<3x6xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                %b: tensor<3xf32> {remat.name = "b", remat.role = #remat.role<weight>},
                %buf: tensor<3x6xf32> {remat.name = "w.momentum_buffer", remat.role = #remat.role<opt_state>},
                %p: tensor<3x3xf32> {remat.name = "p", remat.role = #remat.role<buffer>},
                %t: tensor<f32> {remat.name = "step", remat.role = #remat.role<step>})
    -> (tensor<f32> {remat.name = "loss"},
        tensor<3x6xf32> {remat.name = "w.new", remat.updates = "w"},
        tensor<3x6xf32> {remat.name = "w.momentum_buffer.new", remat.updates = "w.momentum_buffer"},
        tensor<3xf32> {remat.name = "b.new", remat.updates = "b"},
        tensor<3x3xf32> {remat.name = "p.new", remat.updates = "p"},
        tensor<f32> {remat.name = "step.new", remat.updates = "step"}) {
  %t1 = nn.add_scalar %t, 1.0 {remat.name = "step.increment"} : tensor<f32>
  %f = nn.flatten %x {remat.name = "flat"} : tensor<4x2x3xf32> -> tensor<4x6xf32>
  %l = nn.linear %f, %w, %b {remat.name = "fc"} : (tensor<4x6xf32>, tensor<3x6xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %r = nn.reshape %l {remat.name = "wide"} : tensor<4x3xf32> -> tensor<2x6xf32>
  %r2 = nn.reshape %r {remat.name = "logits"} : tensor<2x6xf32> -> tensor<4x3xf32>
  %loss = nn.cross_entropy %r2, %labels {remat.name = "loss"} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  %seed = nn.full 1.0 {remat.name = "loss.grad_seed"} : tensor<f32>
  %g = nn.cross_entropy_backward %seed, %r2, %labels {remat.name = "loss.grad"} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %gw = nn.linear_backward_weight %g, %f {remat.name = "fc.grad_weight"} : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %gb = nn.linear_backward_bias %g {remat.name = "fc.grad_bias"} : (tensor<4x3xf32>) -> tensor<3xf32>
  %nw, %nbuf = nn.sgd %w, %gw, %buf {lr = 0.1 : f64, momentum = 0.9 : f64, remat.name = "w.sgd"} : (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>)
  %sb = nn.mul_scalar %gb, 0.1 {remat.name = "b.scaled"} : tensor<3xf32>
  %nb = nn.sub %b, %sb {remat.name = "b.update"} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %np = nn.linear %p, %p {remat.name = "p.square"} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %loss, %nw, %nbuf, %nb, %np, %t1 : tensor<f32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<f32>
}
