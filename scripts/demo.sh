#!/usr/bin/env bash
# demo.sh - sets up and builds remat, then runs its main job on a real
# example: the training step of a conv-bn-relu network (forward, loss,
# backward, SGD update) is rematerialized to fit 70% of its own peak, its
# memory planned, and the result written with a report and a timeline.
#
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"

bash "$root/scripts/build.sh" "$build_dir" >&2
fixture="$root/test/Fixtures/conv-bn-relu.mlir"
out="$build_dir/demo"
mkdir -p "$out"
echo "== remat-opt $fixture --budget=70%" >&2
"$build_dir/bin/remat-opt" "$fixture" --budget=70% \
  --report="$out/report.json" --timeline="$out/timeline.svg" -o "$out/step.mlir"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
r = json.load(open(f"{out}/report.json"))
mib = lambda b: f"{b / 2**20:.2f} MiB"
extra = 100 * (r["compute_cost_after"] / r["compute_cost_before"] - 1)
print(f"step @{r['function']}: budget {mib(r['budget_bytes'])}")
print(f"  peak before {mib(r['peak_bytes_before'])}, after {mib(r['peak_bytes_after'])}"
      f" (arguments {mib(r['argument_bytes'])} + arena {mib(r['arena_bytes'])})")
print(f"  solver {r['solver']}: {r['status']}, extra compute {extra:+.1f}%"
      " (estimated on the h200 profile)")
print(f"  recomputed: {', '.join(r['recomputed']) or 'nothing'}")
print(f"  rewritten step: {out}/step.mlir; report: {out}/report.json;"
      f" timeline: {out}/timeline.svg (open it in a browser)")
PY
