func.func @missing_weights(%w: tensor<8xf32> {remat.name = "w", remat.role = #remat.role<weight>}) -> tensor<8xf32> attributes {remat.weights = "/nonexistent/model.mlir.weights"} {
  %0 = nn.relu %w {remat.name = "r"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
