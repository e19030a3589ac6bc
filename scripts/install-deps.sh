#!/usr/bin/env bash
# install-deps.sh - installs, with apt-get, every Debian package remat needs.
#
# Idempotent: packages already present are skipped by apt-get. Run as root
# (CI and the development machines are root); otherwise sudo is used.
# Python packages are not installed here: scripts/setup-python.sh does that.
# The CUDA toolkit is expected at /usr/local/cuda (every project machine has
# it): the torch wheel's CMake package, which the build uses, requires it.
set -euo pipefail

packages=(
  # Compiler infrastructure (MLIR/LLVM 22; libmlir-22-dev pulls in neither of
  # the others, so all four are named).
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # The static LLVM libraries that remat-tblgen links (as mlir-tblgen does)
  # name zstd and zlib in their link interface.
  libzstd-dev zlib1g-dev
  # Build tools.
  cmake ninja-build ccache lld g++
  # The sanitizer and fuzzing builds (scripts/sanitize.sh, scripts/fuzz.sh):
  # clang with its ASan/UBSan runtimes and libFuzzer.
  clang-22 libclang-rt-22-dev libfuzzer-22-dev
  # Unit tests and benchmarks.
  libgtest-dev libgmock-dev libbenchmark-dev
  # JSON reading (graph import, reports).
  nlohmann-json3-dev
  # The project's Python environment is a venv on Debian's python3; PyTorch
  # (and the LibTorch inside its wheel), torchvision, numpy and scikit-learn
  # come from the Python package index (scripts/setup-python.sh).
  python3 python3-venv
  # Python.h, for the extension behind `import remat` (python/).
  python3-dev
  # CBC (exact solver, found through pkg-config).
  coinor-libcbc-dev libglpk-dev pkgconf
  # Headless chromium renders the report's charts and HTML page in the tests
  # and for docs/images (scripts/render-report.py); DejaVu is the font they
  # are drawn in.
  chromium fonts-dejavu-core
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
