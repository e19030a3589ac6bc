#!/usr/bin/env bash
# install-deps.sh - installs, with apt-get, every Debian package remat needs.
#
# Idempotent: packages already present are skipped by apt-get. Run as root
# (CI and the development machines are root); otherwise sudo is used.
# Nothing is downloaded from outside Debian's archive. The CUDA toolkit, when
# present, is expected at /usr/local/cuda and is optional.
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
  # LibTorch (importer and CPU executor), Python torch for reference checks,
  # scikit-learn for its digits data set (examples/train-digits.py),
  # CBC (exact solver, found through pkg-config).
  libtorch-dev python3-torch python3-torchvision python3-networkx python3-sklearn
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
