#!/usr/bin/env bash
# demo.sh - sets up and builds remat, then answers the seed experiment's
# question for NetA (examples/make-models.py): the largest batch whose whole
# training step (forward, cross entropy, backward, Adam) fits 2.5 GB on the
# GTX 970M profile, per policy - none, the experiment's own five
# checkpoint() segments, segments=5, sqrt(n), remat's auto - and what each
# costs. Then it compiles the step at 1.5 times the batch that fits without
# rematerialization and reports its extra compute.
#
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"

bash "$root/scripts/build.sh" "$build_dir" >&2
out="$build_dir/demo"
mkdir -p "$out"
/usr/bin/python3 "$root/examples/make-models.py" "$out/models" --models neta
model="$out/models/neta.scripted.pt"

# The experiment checkpointed five segments; torch.utils.checkpoint keeps
# each segment's input: the outputs of layers 1, 3, 5 and 7 (features.0,
# .2, .4, .6 here, each ending in its ReLU).
args=(--sample-shape=3x224x224xf32 --classes=10 --budget=2.5GB
      --device=gtx970m --optimizer=adam
      --checkpoints=features.0.2,features.2.2,features.4.2,features.6.2
      --policies=none,checkpoints,segments=5,sqrt,chain,auto)
echo "== remat max-batch NetA ${args[*]}" >&2
"$build_dir/bin/remat" max-batch "$model" "${args[@]}"
"$build_dir/bin/remat" max-batch "$model" "${args[@]}" --json \
  > "$out/max-batch.json" 2>/dev/null

batch=$(python3 -c "import json, math, sys
r = json.load(open(sys.argv[1]))
none = [p for p in r['policies'] if p['policy'] == 'none'][0]['max_batch']
print(math.ceil(1.5 * none))" "$out/max-batch.json")
echo "== remat compile NetA at batch $batch (1.5x the batch without rematerialization)" >&2
"$build_dir/bin/remat" compile "$model" --input-shape="${batch}x3x224x224xf32" \
  --budget=2.5GB --device=gtx970m --optimizer=adam \
  -o "$out/neta-step.mlir" --report="$out/neta-step.json" \
  --timeline="$out/neta-step.svg"
python3 - "$out" "$batch" <<'PY'
import json, sys
out, batch = sys.argv[1], sys.argv[2]
r = json.load(open(f"{out}/neta-step.json"))
extra = 100 * (r["compute_cost_after"] / r["compute_cost_before"] - 1)
gb = lambda b: f"{b / 1e9:.3f} GB"
print(f"\nNetA at batch {batch}: peak {gb(r['peak_bytes_before'])} without "
      f"rematerialization, {gb(r['peak_bytes_after'])} with "
      f"(arguments {gb(r['argument_bytes'])} + arena {gb(r['arena_bytes'])}); "
      f"solver {r['solver']}, {r['status']}, {extra:+.1f}% estimated time on "
      f"the gtx970m profile")
print(f"  step: {out}/neta-step.mlir (weights beside it); report: "
      f"{out}/neta-step.json; timeline: {out}/neta-step.svg")
PY
