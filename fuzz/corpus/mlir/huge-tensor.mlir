// budget=1B
func.func @step(%x: tensor<100000000000x100000000000xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<100000000000x100000000000xf32> {
  %y = nn.relu %x {remat.name = "y", remat.phase = #remat.phase<forward>} : tensor<100000000000x100000000000xf32>
  return %y : tensor<100000000000x100000000000xf32>
}
