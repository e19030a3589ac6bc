// Reads an input "x" of 8 elements.
func.func @consumer(%x: tensor<8xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> (tensor<8xf32> {remat.name = "y"}) {
  %0 = nn.relu %x {remat.name = "r"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
