// The CUDA source of a small planned step: a broadcast add, ReLU and dropout
// fuse into one generated kernel that keeps the add in a register (nothing
// else reads it) and stores the ReLU (the step returns it) and the dropout
// (the linear layer reads it); the linear layer is a cuBLAS call in the
// runtime; pointers are arguments or planned arena offsets.
// RUN: remat-opt %s --remat-plan-memory | remat-translate --emit-cuda | FileCheck %s

// The runtime and the harness come first.
// CHECK: //===--- RematCudaOps.cuh ---===//
// CHECK: inline void linearForward(
// CHECK: //===--- Harness.cuh ---===//

// CHECK-LABEL: //===--- generated kernels ---===//
// CHECK: // nn.add "add", nn.relu "relu", nn.dropout "drop"
// CHECK-NEXT: __global__ void remat_kernel0(const float *__restrict__ in0, const float *__restrict__ in1, const int64_t *__restrict__ in2, float *__restrict__ out0, float *__restrict__ out1) {
// CHECK-NEXT:   const uint64_t key_in2 = remat_rt::mixBits(uint64_t(in2[0]));
// CHECK-NEXT:   for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < 32; i += int64_t(gridDim.x) * blockDim.x) {
// CHECK-NEXT:     const float v0 = in0[i];
// CHECK-NEXT:     const float v1 = in1[((i % 8))];
// CHECK-NEXT:     const float t0 = (v0 + v1);
// CHECK-NEXT:     const float t1 = (t0 > 0.0f || t0 != t0 ? t0 : 0.0f);
// CHECK-NEXT:     out0[i] = t1;
// CHECK-NEXT:     const float t2 = ((t1 * (remat_rt::uniformAt(key_in2, uint64_t(i)) >= 0.25 ? 1.0f : 0.0f)) * ((float)1.3333333333333333));
// CHECK-NEXT:     out1[i] = t2;
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-LABEL: static void remat_step(remat_rt::Context &ctx, void *const *arguments, char *arena, void **results) {
// CHECK-NEXT:   remat_rt::currentOp = "drop";
// CHECK-NEXT:   remat_kernel0<<<remat_rt::blocksFor(32), 256, 0, ctx.stream>>>(((const float *)arguments[0]), ((const float *)arguments[1]), ((const int64_t *)arguments[3]), ((float *)(arena + [[RELU:[0-9]+]])), ((float *)(arena + [[DROP:[0-9]+]])));
// CHECK-NEXT:   REMAT_CHECK_LAUNCH();
// CHECK-NEXT:   remat_rt::currentOp = "fc";
// CHECK-NEXT:   remat_rt::linearForward(ctx, ((const float *)(arena + [[DROP]])), ((const float *)arguments[2]), nullptr, ((float *)(arena + [[FC:[0-9]+]])), 4, 8, 16);
// CHECK-NEXT:   results[0] = (void *)((float *)(arena + [[RELU]]));
// CHECK-NEXT:   results[1] = (void *)((float *)(arena + [[FC]]));
// CHECK-NEXT: }

// The harness's tables: arguments with role, type, shape; results by name.
// CHECK: static const remat_rt::ArgumentInfo kArguments[] = {
// CHECK-NEXT:   {"x", "input", remat_rt::ElementType::F32, 2, {4, 8}, 2},
// CHECK-NEXT:   {"b", "weight", remat_rt::ElementType::F32, 1, {8}, 2},
// CHECK-NEXT:   {"w", "weight", remat_rt::ElementType::F32, 2, {16, 8}, 2},
// CHECK-NEXT:   {"seed", "seed", remat_rt::ElementType::I64, 0, {}, 2},
// CHECK: static const remat_rt::ResultInfo kResults[] = {
// CHECK-NEXT:   {"y", remat_rt::ElementType::F32, 2, {4, 8}, -1},
// CHECK-NEXT:   {"z", remat_rt::ElementType::F32, 2, {4, 16}, -1},
// A step without optimizer updates: empty tables of updates.
// CHECK: static const remat_rt::UpdateInfo kUpdates[] = {
// CHECK-NEXT:   {nullptr, nullptr}};
// CHECK: static const remat_rt::StepInfo kStep{"step", kArguments, 4, kResults, 2, [[ARENA:[0-9]+]], 0, nullptr, remat_step, kUpdates, 0, kHyperparameters};
// The harness's main, or the library's entry points with REMAT_STEP_LIBRARY.
// CHECK: #ifdef REMAT_STEP_LIBRARY
// CHECK-NEXT: const remat_rt::StepInfo &remat_rt::getLibraryStep() { return kStep; }
// CHECK-NEXT: #else
// CHECK-NEXT: int main(int argc, char **argv) {
// CHECK-NEXT:   return remat_rt::runHarness(argc, argv, kStep);

func.func @step(%x: tensor<4x8xf32> {remat.name = "x", remat.role = #remat.role<input>},
                %b: tensor<8xf32> {remat.name = "b", remat.role = #remat.role<weight>},
                %w: tensor<16x8xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                %seed: tensor<i64> {remat.name = "seed", remat.role = #remat.role<seed>})
    -> (tensor<4x8xf32> {remat.name = "y"}, tensor<4x16xf32> {remat.name = "z"}) {
  %0 = nn.add %x, %b {remat.name = "add"} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = nn.relu %0 {remat.name = "relu"} : tensor<4x8xf32>
  %2 = nn.dropout %1, %seed, 0.25 {remat.name = "drop"} : tensor<4x8xf32>, tensor<i64> -> tensor<4x8xf32>
  %3 = nn.linear %2, %w {remat.name = "fc"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<4x16xf32>
}
