#!/usr/bin/env bash
# test.sh - sets up and builds remat, then runs every test (lit and gtest)
# through ctest. Exits non-zero when any test fails.
#
# Usage: scripts/test.sh [BUILD_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"

bash "$root/scripts/build.sh" "$build_dir"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
