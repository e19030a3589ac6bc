func.func @f(%w: tensor<4xf32> {remat.name = "../w", remat.role = #remat.role<weight>}) -> (tensor<4xf32> {remat.name = "w.new", remat.updates = "../w"}) {
  %n = nn.relu %w {remat.name = "r"} : tensor<4xf32>
  return %n : tensor<4xf32>
}
