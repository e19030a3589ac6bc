#!/usr/bin/env bash
# test.sh - sets up and builds remat, then runs every check:
#   1. the normal build and its tests (lit and gtest) through ctest;
#   2. the same suites built and run under AddressSanitizer and
#      UndefinedBehaviorSanitizer (scripts/sanitize.sh, in build-asan/);
#   3. every fuzz target for REMAT_FUZZ_SECONDS seconds (default 60), with
#      its run count (scripts/fuzz.sh, from the same sanitized build).
# Every part runs even when an earlier one fails; a summary with each part's
# time ends the log, followed by the normal suite's ctest result. Exits
# non-zero when any part fails.
#
# Usage: scripts/test.sh [BUILD_DIR]   (default: build/; the sanitized build
# goes to BUILD_DIR-asan, e.g. build-asan/)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"
asan_dir="${build_dir%/}-asan"
fuzz_seconds="${REMAT_FUZZ_SECONDS:-60}"

status=0
summary=()
# run NAME COMMAND...: runs one part, timed, and records its result.
run() {
  local name="$1" start end result
  shift
  echo "=== test.sh: $name"
  start=$(date +%s)
  "$@"
  result=$?
  end=$(date +%s)
  if [ "$result" -ne 0 ]; then status=1; fi
  summary+=("$(printf '%-44s %s in %d s' "$name" \
    "$([ "$result" -eq 0 ] && echo passed || echo "FAILED (exit $result)")" \
    "$((end - start))")")
}

normal_log="$(mktemp)"
normal_suite() {
  bash "$root/scripts/build.sh" "$build_dir" &&
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" 2>&1 |
    tee "$normal_log"
}
run "normal build + ctest" normal_suite
run "sanitized build + ctest (ASan+UBSan)" bash "$root/scripts/sanitize.sh" "$asan_dir"
run "fuzzing (${fuzz_seconds} s per target)" bash "$root/scripts/fuzz.sh" "$asan_dir" "$fuzz_seconds"

echo "=== test.sh: summary"
printf '%s\n' "${summary[@]}"
echo "normal suite: $(grep -E 'tests passed|tests failed' "$normal_log" | tail -1)"
rm -f "$normal_log"
exit "$status"
