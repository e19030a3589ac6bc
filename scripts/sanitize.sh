#!/usr/bin/env bash
# sanitize.sh - builds remat under AddressSanitizer + UndefinedBehaviorSanitizer
# (scripts/build-sanitized.sh) and runs the gtest and lit suites there
# through ctest. Exits non-zero when any test fails or any sanitizer reports.
#
# Usage: scripts/sanitize.sh [BUILD_DIR]   (default: build-asan/)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build-asan}"

bash "$root/scripts/build-sanitized.sh" "$build_dir"
# shellcheck source=sanitizer-env.sh
source "$root/scripts/sanitizer-env.sh"
echo "sanitize: ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
