#!/usr/bin/env bash
# run-consumer-test.sh BUILD_DIR - the consumer test of the installed
# package: installs remat from BUILD_DIR into a fresh prefix, builds the
# separate project in this directory against it with find_package(Remat),
# runs this directory's lit tests with that project's tool, and runs every
# installed tool from the prefix (--help and a small run each).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="$(cd "$1" && pwd)"
work="$build_dir/consumer-test"
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
# REMAT_CONSUMER_CXX and REMAT_CONSUMER_FLAGS (set by ctest): the compiler
# and sanitizer flags remat was built with, which its static libraries need.
compiler_args=()
if [ -n "${REMAT_CONSUMER_CXX:-}" ]; then
  compiler_args+=(-DCMAKE_CXX_COMPILER="$REMAT_CONSUMER_CXX")
fi
if [ -n "${REMAT_CONSUMER_FLAGS:-}" ]; then
  compiler_args+=(-DCMAKE_CXX_FLAGS="$REMAT_CONSUMER_FLAGS"
                  -DCMAKE_EXE_LINKER_FLAGS="$REMAT_CONSUMER_FLAGS")
fi
cmake -S "$here" -B "$work/build" -G Ninja "${compiler_args[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
/usr/lib/llvm-22/bin/lit -sv "$here" \
  --param consumer_tool="$work/build/my-compiler" \
  --param exec_root="$work/lit" \
  --param installed_bin="$work/prefix/bin" \
  --param llvm_tools_dir=/usr/lib/llvm-22/bin
