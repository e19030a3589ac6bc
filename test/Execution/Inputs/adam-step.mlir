// A hand-written training step of a linear layer on a reshaped (viewed)
// input, with adam: every new weight and optimizer state is marked
// remat.updates (as remat-autodiff's output will be), so remat-run --steps
// carries them from step to step.
func.func @tiny(%arg0: tensor<4x2x3xf32> {remat.name = "x", remat.role = #remat.role<input>}, %arg1: tensor<3x6xf32> {remat.name = "w", remat.role = #remat.role<weight>}, %arg2: tensor<3xf32> {remat.name = "b", remat.role = #remat.role<weight>}, %arg3: tensor<4xi64> {remat.name = "labels", remat.role = #remat.role<label>}, %arg4: tensor<f32> {remat.name = "step", remat.role = #remat.role<step>}, %arg5: tensor<3x6xf32> {remat.name = "w.exp_avg", remat.role = #remat.role<opt_state>}, %arg6: tensor<3x6xf32> {remat.name = "w.exp_avg_sq", remat.role = #remat.role<opt_state>}, %arg7: tensor<3xf32> {remat.name = "b.exp_avg", remat.role = #remat.role<opt_state>}, %arg8: tensor<3xf32> {remat.name = "b.exp_avg_sq", remat.role = #remat.role<opt_state>}) -> (tensor<f32> {remat.name = "loss"}, tensor<3x6xf32> {remat.name = "w.new", remat.updates = "w"}, tensor<3x6xf32> {remat.name = "w.exp_avg.new", remat.updates = "w.exp_avg"}, tensor<3x6xf32> {remat.name = "w.exp_avg_sq.new", remat.updates = "w.exp_avg_sq"}, tensor<3xf32> {remat.name = "b.new", remat.updates = "b"}, tensor<3xf32> {remat.name = "b.exp_avg.new", remat.updates = "b.exp_avg"}, tensor<3xf32> {remat.name = "b.exp_avg_sq.new", remat.updates = "b.exp_avg_sq"}, tensor<f32> {remat.name = "step.new", remat.updates = "step"}) {
  %0 = nn.reshape %arg0 {remat.name = "flat", remat.phase = #remat.phase<forward>} : tensor<4x2x3xf32> -> tensor<4x6xf32>
  %1 = nn.linear %0, %arg1, %arg2 {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<4x6xf32>, tensor<3x6xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = nn.cross_entropy %1, %arg3 {remat.name = "loss", remat.phase = #remat.phase<forward>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  %3 = nn.full 1.000000e+00 {remat.name = "loss.grad_seed", remat.phase = #remat.phase<backward>} : tensor<f32>
  %4 = nn.cross_entropy_backward %3, %1, %arg3 {remat.name = "loss.grad", remat.phase = #remat.phase<backward>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %5 = nn.linear_backward_weight %4, %0 {remat.name = "fc.grad_weight", remat.phase = #remat.phase<backward>} : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %6 = nn.linear_backward_bias %4 {remat.name = "fc.grad_bias", remat.phase = #remat.phase<backward>} : (tensor<4x3xf32>) -> tensor<3xf32>
  %7 = nn.add_scalar %arg4, 1.000000e+00 {remat.name = "step.increment", remat.phase = #remat.phase<update>} : tensor<f32>
  %new_param, %new_exp_avg, %new_exp_avg_sq = nn.adam %arg1, %5, %arg5, %arg6, %7 {lr = 1.000000e-02 : f64, remat.name = "w.adam", remat.phase = #remat.phase<update>} : tensor<3x6xf32>, tensor<f32>
  %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2 = nn.adam %arg2, %6, %arg7, %arg8, %7 {lr = 1.000000e-02 : f64, remat.name = "b.adam", remat.phase = #remat.phase<update>} : tensor<3xf32>, tensor<f32>
  return %2, %new_param, %new_exp_avg, %new_exp_avg_sq, %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2, %7 : tensor<f32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>
}
