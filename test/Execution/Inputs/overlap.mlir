// a and b are both live at step 1 but the plan puts them on the same bytes.
func.func @overlap(%x: tensor<64xf32> {remat.name = "x", remat.role = "input"}) -> tensor<64xf32> attributes {remat.arena_bytes = 512 : i64} {
  %a = nn.relu %x {remat.name = "a", remat.offsets = array<i64: 0>} : tensor<64xf32>
  %b = nn.relu %a {remat.name = "b", remat.offsets = array<i64: 128>} : tensor<64xf32>
  %c = nn.add %a, %b {remat.name = "c", remat.offsets = array<i64: 256>} : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %c : tensor<64xf32>
}
