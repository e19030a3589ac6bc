// Two results, "x" then "y", to write into an output directory.
func.func @two(%a: tensor<4xf32> {remat.name = "a", remat.role = #remat.role<input>}) -> (tensor<4xf32> {remat.name = "x"}, tensor<4xf32> {remat.name = "y"}) {
  %0 = nn.relu %a {remat.name = "r"} : tensor<4xf32>
  %1 = nn.relu %0 {remat.name = "s"} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
