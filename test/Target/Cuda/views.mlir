// Views (nn.reshape, nn.flatten) are their source's bytes: the emitted step
// has no kernel and no copy for them, and whatever reads a view reads its
// owner's pointer (an arena offset or an argument). A plan made before views
// shared bytes gives a view its own slot (an offset other than its
// source's, which the source may not outlive): then, and only then, the view
// is copied into it.
// RUN: remat-translate --emit-cuda --split-input-file %s | FileCheck %s

// A plan that knows views: "rows" and "cols" have "fc"'s offset, and the
// step's result is "fc"'s bytes.
// CHECK-LABEL: static void remat_step(
// CHECK-NEXT:   // nn.flatten "flat": a view of ((float *)arguments[0]), no copy
// CHECK-NEXT:   remat_rt::currentOp = "fc";
// CHECK-NEXT:   remat_rt::linearForward(ctx, ((const float *)arguments[0]), ((const float *)arguments[1]), nullptr, ((float *)(arena + 256)), 4, 6, 3);
// CHECK-NEXT:   // nn.reshape "rows": a view of ((float *)(arena + 256)), no copy
// CHECK-NEXT:   // nn.reshape "cols": a view of ((float *)(arena + 256)), no copy
// CHECK-NEXT:   remat_rt::currentOp = "act";
// CHECK-NEXT:   remat_kernel0<<<remat_rt::blocksFor(12), 256, 0, ctx.stream>>>(((const float *)(arena + 256)), ((float *)(arena + 0)));
// CHECK-NEXT:   REMAT_CHECK_LAUNCH();
// CHECK-NEXT:   results[0] = (void *)((float *)(arena + 0));
// CHECK-NEXT:   results[1] = (void *)((float *)(arena + 256));
// CHECK-NEXT: }
func.func @shared(%x: tensor<4x2x3xf32> {remat.name = "x", remat.role = #remat.role<input>},
                  %w: tensor<3x6xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> (tensor<12xf32> {remat.name = "y"}, tensor<2x6xf32> {remat.name = "z"})
    attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  %f = nn.flatten %x {remat.name = "flat", remat.placement = #remat.placement<[0]>} : tensor<4x2x3xf32> -> tensor<4x6xf32>
  %l = nn.linear %f, %w {remat.name = "fc", remat.placement = #remat.placement<[256]>} : (tensor<4x6xf32>, tensor<3x6xf32>) -> tensor<4x3xf32>
  %r = nn.reshape %l {remat.name = "rows", remat.placement = #remat.placement<[256]>} : tensor<4x3xf32> -> tensor<2x6xf32>
  %c = nn.reshape %r {remat.name = "cols", remat.placement = #remat.placement<[256]>} : tensor<2x6xf32> -> tensor<12xf32>
  %a = nn.relu %c {remat.name = "act", remat.placement = #remat.placement<[0]>} : tensor<12xf32>
  return %a, %r : tensor<12xf32>, tensor<2x6xf32>
}

// -----

// A plan that does not: "rows" has a slot of its own (its source is live
// there too) and is copied; "cols" took the slot of "fc", dead by then, and
// is copied from "rows".
// CHECK-LABEL: static void remat_step(
// CHECK:        remat_rt::currentOp = "rows";
// CHECK-NEXT:   REMAT_CHECK_CUDA(cudaMemcpyAsync(((float *)(arena + 512)), ((const float *)(arena + 256)), 12 * sizeof(float), cudaMemcpyDeviceToDevice, ctx.stream));
// CHECK-NEXT:   remat_rt::currentOp = "cols";
// CHECK-NEXT:   REMAT_CHECK_CUDA(cudaMemcpyAsync(((float *)(arena + 256)), ((const float *)(arena + 512)), 12 * sizeof(float), cudaMemcpyDeviceToDevice, ctx.stream));
func.func @copied(%x: tensor<4x6xf32> {remat.name = "x", remat.role = #remat.role<input>},
                  %w: tensor<3x6xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> (tensor<12xf32> {remat.name = "y"}) attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 768, alignment = 256>} {
  %l = nn.linear %x, %w {remat.name = "fc", remat.placement = #remat.placement<[256]>} : (tensor<4x6xf32>, tensor<3x6xf32>) -> tensor<4x3xf32>
  %r = nn.reshape %l {remat.name = "rows", remat.placement = #remat.placement<[512]>} : tensor<4x3xf32> -> tensor<2x6xf32>
  %c = nn.reshape %r {remat.name = "cols", remat.placement = #remat.placement<[256]>} : tensor<2x6xf32> -> tensor<12xf32>
  %a = nn.relu %c {remat.name = "act", remat.placement = #remat.placement<[0]>} : tensor<12xf32>
  return %a : tensor<12xf32>
}
