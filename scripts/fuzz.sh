#!/usr/bin/env bash
# fuzz.sh - builds remat's libFuzzer targets (fuzz/, in the sanitized build of
# scripts/build-sanitized.sh) and runs each for SECONDS seconds, printing its
# run count. Each target first replays its crash regressions
# (test/Fuzz/Inputs/<target>/), then fuzzes from its seeds: fuzz/corpus/<target>/
# (reproducers of bugs found before) and the test inputs of its kind. New inputs go to
# BUILD_DIR/fuzz-corpus/<target>/ (kept between runs), a crash's input to
# BUILD_DIR/fuzz-crashes/<target>/. Exits non-zero if any target crashes,
# leaks, times out on one input or runs out of memory; turn such an input into
# a regression by copying it to test/Fuzz/Inputs/<target>/ with the fix.
#
# The mutations start from REMAT_FUZZ_SEED (default 1), so that a run from a
# fresh build directory (CI's) explores the same inputs each time and a
# failure reproduces; REMAT_FUZZ_SEED=0 lets libFuzzer pick a random seed,
# for exploring beyond what CI covers.
#
# Usage: scripts/fuzz.sh [BUILD_DIR] [SECONDS]   (defaults: build-asan/, 60)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build-asan}"
seconds="${2:-60}"

bash "$root/scripts/build-sanitized.sh" "$build_dir"
cmake --build "$build_dir" --target remat-fuzzers
# shellcheck source=sanitizer-env.sh
source "$root/scripts/sanitizer-env.sh"

# target  seed directories (besides fuzz/corpus/<target>), -max_len
targets=(
  "mlir|test/Fixtures test/Dialect/NN test/Dialect/Remat|65536"
  "graph-json|test/Target/GraphJson/Inputs|131072"
  "npy||4096"
  "byte-size||64"
  "measured-profile|test/Transforms/Inputs|131072"
)

status=0
summary=()
for entry in "${targets[@]}"; do
  IFS='|' read -r name seeds max_len <<< "$entry"
  fuzzer="$build_dir/bin/remat-fuzz-$name"
  corpus="$build_dir/fuzz-corpus/$name"
  crashes="$build_dir/fuzz-crashes/$name"
  log="$build_dir/fuzz-$name.log"
  rm -rf "$crashes"
  mkdir -p "$corpus" "$crashes"
  dirs=("$corpus" "$root/fuzz/corpus/$name")
  for seed in $seeds; do dirs+=("$root/$seed"); done
  regressions="$root/test/Fuzz/Inputs/$name"
  echo "fuzz: remat-fuzz-$name for ${seconds} s (log: $log)"
  : > "$log"
  replayed="no regressions"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    if "$fuzzer" -rss_limit_mb=4096 "$regressions"/* > "$log.regressions" 2>&1; then
      replayed="$(ls -A "$regressions" | wc -l) regressions pass"
    else
      status=1
      replayed="a regression FAILS"
      echo "fuzz: remat-fuzz-$name FAILS on a regression in $regressions:"
      grep -a -v 'libLLVM\|libMLIR' "$log.regressions" | tail -n 40
    fi
  fi
  result=0
  "$fuzzer" -seed="${REMAT_FUZZ_SEED:-1}" -max_total_time="$seconds" \
    -max_len="$max_len" -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$crashes/" \
    "${dirs[@]}" > "$log" 2>&1 || result=$?
  runs="$(grep -a -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1 || true)"
  if [ "$result" -eq 0 ]; then
    echo "fuzz: remat-fuzz-$name: ${runs:-no run count} ($replayed)"
    summary+=("remat-fuzz-$name: ${runs:-no run count} ($replayed)")
  else
    status=1
    echo "fuzz: remat-fuzz-$name FAILED (exit $result); the end of its log:"
    grep -a -v 'libLLVM\|libMLIR\|NEW_FUNC\|^remat: ' "$log" | tail -n 40
    ls -1 "$crashes" | sed "s|^|fuzz:   input: $crashes/|"
    executed="$(grep -a -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 || true)"
    summary+=("remat-fuzz-$name: FAILED after ${executed#stat::number_of_executed_units: } runs ($replayed)")
  fi
done
echo "fuzz: summary"
printf 'fuzz:   %s\n' "${summary[@]}"
exit "$status"
