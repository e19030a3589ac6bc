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
# The project's Python environment (.venv/): every script and test runs in it,
# and its torch wheel carries the LibTorch that the importer and the CPU
# executor (remat-run) build against.
python="$(bash "$root/scripts/setup-python.sh" | tail -1)"
torch_dir="$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')/Torch"
torch_option=OFF
if [ -f "$torch_dir/TorchConfig.cmake" ]; then
  torch_option=ON
fi
# The exact solver needs CBC, which install-deps.sh installs too.
cbc_option=OFF
if pkg-config --exists cbc 2>/dev/null; then
  cbc_option=ON
fi
cmake -S "$root" -B "$build_dir" -G Ninja \
  -DREMAT_ENABLE_TORCH="$torch_option" \
  -DTorch_DIR="$torch_dir" \
  -DREMAT_PYTHON="$python" \
  -DREMAT_ENABLE_CBC="$cbc_option" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
  -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" \
  ${REMAT_CMAKE_ARGS:-}
cmake --build "$build_dir" ${REMAT_JOBS:+-j "$REMAT_JOBS"}
# `import remat` in the project environment finds the package the build put
# together (<build>/python/remat) through this path file.
if [ -d "$build_dir/python/remat" ]; then
  site="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$build_dir/python" > "$site/remat-build.pth"
fi
