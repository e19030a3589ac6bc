func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
