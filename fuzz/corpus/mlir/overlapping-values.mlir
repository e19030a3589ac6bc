// budget=7000000000000000000B
func.func @step(%x: tensor<1550000000000000000xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<1550000000000000000xf32> {
  %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<1550000000000000000xf32>
  %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<1550000000000000000xf32>
  %c = nn.relu %b {remat.name = "c", remat.phase = #remat.phase<forward>} : tensor<1550000000000000000xf32>
  return %c : tensor<1550000000000000000xf32>
}
