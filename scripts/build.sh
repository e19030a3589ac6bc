#!/usr/bin/env bash
# build.sh - installs what remat needs, then configures and builds it.
#
# Usage: scripts/build.sh [BUILD_DIR]   (default: build/ in the repository)
# Extra CMake options can be passed in REMAT_CMAKE_ARGS, the Ninja job count
# in REMAT_JOBS (default: Ninja's). Uses Ninja and
# ccache; a second run rebuilds only what changed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"

bash "$root/scripts/install-deps.sh"

llvm_prefix=/usr/lib/llvm-22
# The CPU executor (remat-run) needs LibTorch, which install-deps.sh installs.
torch_option=OFF
if [ -f /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake ]; then
  torch_option=ON
fi
# The exact solver needs CBC, which install-deps.sh installs too.
cbc_option=OFF
if pkg-config --exists cbc 2>/dev/null; then
  cbc_option=ON
fi
cmake -S "$root" -B "$build_dir" -G Ninja \
  -DREMAT_ENABLE_TORCH="$torch_option" \
  -DREMAT_ENABLE_CBC="$cbc_option" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
  -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" \
  ${REMAT_CMAKE_ARGS:-}
cmake --build "$build_dir" ${REMAT_JOBS:+-j "$REMAT_JOBS"}
