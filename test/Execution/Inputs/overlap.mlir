// a and b are both live at step 1 but the plan puts them on the same bytes.
func.func @overlap(%x: tensor<64xf32> {remat.name = "x", remat.role = #remat.role<input>}) -> tensor<64xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 128>} {
  %a = nn.relu %x {remat.name = "a", remat.placement = #remat.placement<[0]>} : tensor<64xf32>
  %b = nn.relu %a {remat.name = "b", remat.placement = #remat.placement<[128]>} : tensor<64xf32>
  %c = nn.add %a, %b {remat.name = "c", remat.placement = #remat.placement<[256]>} : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %c : tensor<64xf32>
}
