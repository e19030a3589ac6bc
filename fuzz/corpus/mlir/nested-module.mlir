module {
  module @inner {
    func.func @step(%x: tensor<4x8xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<4x8xf32> {
      %a = nn.relu %x {remat.name = "a", remat.phase = #remat.phase<forward>} : tensor<4x8xf32>
      %b = nn.relu %a {remat.name = "b", remat.phase = #remat.phase<forward>} : tensor<4x8xf32>
      %c = nn.relu_backward %b, %a {remat.name = "c", remat.phase = #remat.phase<backward>} : tensor<4x8xf32>
      return %c : tensor<4x8xf32>
    }
  }
}
