// A chain of element-wise ops becomes one kernel only where the memory plan
// stays safe inside it. The plan lets a result reuse the slot of a value that
// died at an earlier op of the chain: safe op by op, but one kernel runs the
// whole chain element by element, so thread i would store into that slot
// while other threads still read the dead value (at other elements where it
// is broadcast). Such a chain ends before the op whose store would race; a
// reuse of exactly the same bytes, read and written at each thread's own
// element, stays fused. (emulated.test found the race in a planned step.)
// RUN: remat-translate --emit-cuda --split-input-file %s | FileCheck %s

// "mean" takes the slot of "keepdim", which died at "broadcast" and which the
// fused kernel would still read at element i / 4: two kernels.
// CHECK-LABEL: //===--- generated kernels ---===//
// CHECK: // nn.broadcast_to "broadcast"{{$}}
// CHECK-NEXT: __global__ void remat_kernel1(const float *__restrict__ in0, float *__restrict__ out0) {
// CHECK: // nn.div_scalar "mean"{{$}}
// CHECK-NEXT: __global__ void remat_kernel2(const float *__restrict__ in0, float *__restrict__ out0) {
// CHECK-LABEL: static void remat_step(
// CHECK: remat_kernel1<<<{{.*}}>>>(((const float *)(arena + 0)), ((float *)(arena + 256)));
// CHECK: remat_kernel2<<<{{.*}}>>>(((const float *)(arena + 256)), ((float *)(arena + 0)));
func.func @broadcast(%x: tensor<2x6x1xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> (tensor<2x6x4xf32> {remat.name = "y"}) attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  %k = nn.relu %x {remat.name = "keepdim", remat.placement = #remat.placement<[0]>} : tensor<2x6x1xf32>
  %b = nn.broadcast_to %k {remat.name = "broadcast", remat.placement = #remat.placement<[256]>} : tensor<2x6x1xf32> -> tensor<2x6x4xf32>
  %d = nn.div_scalar %b, 4.0 {remat.name = "mean", remat.placement = #remat.placement<[0]>} : tensor<2x6x4xf32>
  return %d : tensor<2x6x4xf32>
}

// -----

// "shift" takes exactly the bytes of "flat" (a transpose), which the kernel
// reads at element i only: one kernel, whose aliasing pointers are not
// __restrict__.
// CHECK-LABEL: //===--- generated kernels ---===//
// CHECK: // nn.relu "relu", nn.add_scalar "shift"{{$}}
// CHECK-NEXT: __global__ void [[KERNEL:remat_kernel[0-9]+]](const float *in0, float *out0) {
// CHECK-LABEL: static void remat_step(
// CHECK: [[KERNEL]]<<<{{.*}}>>>(((const float *)(arena + 0)), ((float *)(arena + 0)));
func.func @aligned(%x: tensor<6x8xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> (tensor<8x6xf32> {remat.name = "y"}) attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  %f = nn.transpose %x {dim0 = 0, dim1 = 1, remat.name = "flat", remat.placement = #remat.placement<[0]>} : tensor<6x8xf32> -> tensor<8x6xf32>
  %r = nn.relu %f {remat.name = "relu", remat.placement = #remat.placement<[256]>} : tensor<8x6xf32>
  %s = nn.add_scalar %r, 1.0 {remat.name = "shift", remat.placement = #remat.placement<[0]>} : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}
