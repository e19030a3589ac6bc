func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
