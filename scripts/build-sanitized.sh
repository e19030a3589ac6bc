#!/usr/bin/env bash
# build-sanitized.sh - configures and builds remat with clang-22 under
# AddressSanitizer + UndefinedBehaviorSanitizer, with libFuzzer's coverage
# instrumentation, in its own build directory: the gtest and lit suites
# (scripts/sanitize.sh) and the fuzz targets in fuzz/ (scripts/fuzz.sh) come
# from this one build, so CI compiles remat twice (this and the normal
# build), not three times. LLVM, MLIR and LibTorch stay uninstrumented.
#
# Usage: scripts/build-sanitized.sh [BUILD_DIR]   (default: build-asan/)
# Extra CMake options can be passed in REMAT_CMAKE_ARGS; the Ninja job count
# in REMAT_JOBS (default: the number of cores).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build-asan}"

bash "$root/scripts/install-deps.sh"

llvm_prefix=/usr/lib/llvm-22
torch_option=OFF
if [ -f /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake ]; then
  torch_option=ON
fi
cbc_option=OFF
if pkg-config --exists cbc 2>/dev/null; then
  cbc_option=ON
fi
cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_C_COMPILER="$llvm_prefix/bin/clang" \
  -DCMAKE_CXX_COMPILER="$llvm_prefix/bin/clang++" \
  -DREMAT_SANITIZERS=address,undefined \
  -DREMAT_ENABLE_FUZZ=ON \
  -DREMAT_ENABLE_TORCH="$torch_option" \
  -DREMAT_ENABLE_CBC="$cbc_option" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
  -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" \
  ${REMAT_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "${REMAT_JOBS:-$(nproc)}"
