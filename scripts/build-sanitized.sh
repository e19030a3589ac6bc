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

llvm_prefix=/usr/lib/llvm-22
# build.sh installs the packages, detects LibTorch and CBC and configures
# as for the normal build; these options make it the sanitized one.
REMAT_CMAKE_ARGS="-DCMAKE_C_COMPILER=$llvm_prefix/bin/clang \
  -DCMAKE_CXX_COMPILER=$llvm_prefix/bin/clang++ \
  -DREMAT_SANITIZERS=address,undefined -DREMAT_ENABLE_FUZZ=ON \
  ${REMAT_CMAKE_ARGS:-}" bash "$root/scripts/build.sh" "$build_dir"
