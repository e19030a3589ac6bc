// Writes a result named "x" of 4 elements (to feed a mis-shaped input).
func.func @producer(%seed_input: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<input>}) -> (tensor<4xf32> {remat.name = "x"}) {
  %0 = nn.relu %seed_input {remat.name = "r"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
