// A hand-written training step of a linear layer on a reshaped (viewed)
// input, with sgd: every new weight and optimizer state is marked
// remat.updates (as remat-autodiff's output will be), so remat-run --steps
// carries them from step to step.
func.func @tiny(%arg0: tensor<4x2x3xf32> {remat.name = "x", remat.role = #remat.role<input>}, %arg1: tensor<3x6xf32> {remat.name = "w", remat.role = #remat.role<weight>}, %arg2: tensor<3xf32> {remat.name = "b", remat.role = #remat.role<weight>}, %arg3: tensor<4xi64> {remat.name = "labels", remat.role = #remat.role<label>}, %arg4: tensor<3x6xf32> {remat.name = "w.momentum_buffer", remat.role = #remat.role<opt_state>}, %arg5: tensor<3xf32> {remat.name = "b.momentum_buffer", remat.role = #remat.role<opt_state>}) -> (tensor<f32> {remat.name = "loss"}, tensor<3x6xf32> {remat.name = "w.new", remat.updates = "w"}, tensor<3x6xf32> {remat.name = "w.momentum_buffer.new", remat.updates = "w.momentum_buffer"}, tensor<3xf32> {remat.name = "b.new", remat.updates = "b"}, tensor<3xf32> {remat.name = "b.momentum_buffer.new", remat.updates = "b.momentum_buffer"}) {
  %0 = nn.reshape %arg0 {remat.name = "flat", remat.phase = #remat.phase<forward>} : tensor<4x2x3xf32> -> tensor<4x6xf32>
  %1 = nn.linear %0, %arg1, %arg2 {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<4x6xf32>, tensor<3x6xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = nn.cross_entropy %1, %arg3 {remat.name = "loss", remat.phase = #remat.phase<forward>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  %3 = nn.full 1.000000e+00 {remat.name = "loss.grad_seed", remat.phase = #remat.phase<backward>} : tensor<f32>
  %4 = nn.cross_entropy_backward %3, %1, %arg3 {remat.name = "loss.grad", remat.phase = #remat.phase<backward>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %5 = nn.linear_backward_weight %4, %0 {remat.name = "fc.grad_weight", remat.phase = #remat.phase<backward>} : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %6 = nn.linear_backward_bias %4 {remat.name = "fc.grad_bias", remat.phase = #remat.phase<backward>} : (tensor<4x3xf32>) -> tensor<3xf32>
  %new_param, %new_momentum_buffer = nn.sgd %arg1, %5, %arg4 {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>)
  %new_param_0, %new_momentum_buffer_1 = nn.sgd %arg2, %6, %arg5 {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, remat.name = "b.sgd", remat.phase = #remat.phase<update>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %2, %new_param, %new_momentum_buffer, %new_param_0, %new_momentum_buffer_1 : tensor<f32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3xf32>, tensor<3xf32>
}
