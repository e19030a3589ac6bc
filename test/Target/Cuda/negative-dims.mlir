// Negative dims of transpose, concat and slice count from the last dim.
// (The ops' I64Attr getters return uint64_t: the lowering must convert
// before it tests the sign; it once indexed the permutation at -1.)
// RUN: remat-translate --emit-cuda %s | FileCheck %s

// CHECK-LABEL: static void remat_step(
// CHECK:      remat_rt::currentOp = "t";
// CHECK-NEXT: static const int perm0[] = {2, 1, 0};
// CHECK-NEXT: remat_rt::permute(ctx, ((const float *)arguments[0]), ((float *)(arena + 0)), remat_rt::Dims{3, {2, 3, 4}}, perm0);
// CHECK-NEXT: remat_rt::currentOp = "c";
// CHECK-NEXT: REMAT_CHECK_CUDA(cudaMemcpy2DAsync(((float *)(arena + 256)) + 0, 24 * sizeof(float), ((const float *)arguments[0]), 12 * sizeof(float), 12 * sizeof(float), 2, cudaMemcpyDeviceToDevice, ctx.stream));
// CHECK-NEXT: REMAT_CHECK_CUDA(cudaMemcpy2DAsync(((float *)(arena + 256)) + 12, 24 * sizeof(float), ((const float *)arguments[0]), 12 * sizeof(float), 12 * sizeof(float), 2, cudaMemcpyDeviceToDevice, ctx.stream));
// CHECK-NEXT: remat_rt::currentOp = "s";
// CHECK-NEXT: remat_rt::sliceForward(ctx, ((const float *)arguments[0]), ((float *)(arena + 512)), 6, 4, 1, 1, 2, 2);
func.func @dims(%x: tensor<2x3x4xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> (tensor<4x3x2xf32> {remat.name = "t"}, tensor<2x6x4xf32> {remat.name = "c"}, tensor<2x3x2xf32> {remat.name = "s"})
    attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 768, alignment = 256>} {
  %t = nn.transpose %x {dim0 = -1, dim1 = -3, remat.name = "t", remat.placement = #remat.placement<[0]>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %c = nn.concat %x, %x {dim = -2, remat.name = "c", remat.placement = #remat.placement<[256]>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %s = nn.slice %x {dim = -1, start = 1, end = 4, step = 2, remat.name = "s", remat.placement = #remat.placement<[512]>} : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  return %t, %c, %s : tensor<4x3x2xf32>, tensor<2x6x4xf32>, tensor<2x3x2xf32>
}
