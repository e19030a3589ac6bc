// A step whose result depends on its dropout seed: the sum of a dropped-out
// input of ones, the number of kept elements times 2 (p = 0.5). remat-run
// --steps advances the seed, so that each step draws a new mask.
func.func @dropout(%x: tensor<64xf32> {remat.name = "x", remat.role = #remat.role<input>},
                   %seed: tensor<i64> {remat.name = "drop.seed", remat.role = #remat.role<seed>})
    -> (tensor<f32> {remat.name = "kept"}) {
  %0 = nn.dropout %x, %seed, 5.000000e-01 {remat.name = "drop"} : tensor<64xf32>, tensor<i64> -> tensor<64xf32>
  %1 = nn.sum %0 {dims = array<i64: 0>, remat.name = "kept"} : tensor<64xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
