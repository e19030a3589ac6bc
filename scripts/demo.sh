#!/usr/bin/env bash
# demo.sh - sets up and builds remat, then answers the seed user's question
# for NetA (examples/make-models.py): how to train at batch 64 in 2.5 GB
# (GTX 970M profile, Adam, fp32) as fast as possible. `remat plan` gives,
# per micro-batch dividing 64, the cheapest way that fits -
# rematerialization, gradient accumulation, or both - with its estimated
# samples per second and batch-norm semantics, and chooses the fastest; the
# chosen step then trains for a few steps on the CPU (remat-run). Then the
# largest batch per policy - none, the experiment's own five checkpoint()
# segments, segments=5, sqrt(n), chain, remat's auto - and the step compiled
# at 1.5 times the batch that fits without rematerialization.
#
# Usage: scripts/demo.sh [BUILD_DIR]
# REMAT_DEMO_STEPS: the CPU steps of the chosen plan (default 2; each step is
# the whole batch of 64 at 224x224: minutes on a small machine).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"

bash "$root/scripts/build.sh" "$build_dir" >&2
out="$build_dir/demo"
mkdir -p "$out"
"$root/.venv/bin/python" "$root/examples/make-models.py" "$out/models" --models neta
model="$out/models/neta.scripted.pt"

plan_args=(--sample-shape=3x224x224xf32 --classes=10 --batch=64 --budget=2.5GB
           --device=gtx970m --optimizer=adam)
echo "== remat plan NetA ${plan_args[*]}" >&2
"$build_dir/bin/remat" plan "$model" "${plan_args[@]}" -o "$out/neta-plan.mlir"
steps="${REMAT_DEMO_STEPS:-2}"
if [ "$steps" -gt 0 ]; then
  echo "== remat-run: the chosen plan for $steps steps on the CPU (ATen kernels, the planned arena)" >&2
  start=$(date +%s)
  "$build_dir/bin/remat-run" "$out/neta-plan.mlir" --steps="$steps" --seed=1
  echo "(remat-run: $(( $(date +%s) - start )) s)" >&2
fi

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

batch=$("$root/.venv/bin/python" -c "import json, math, sys
r = json.load(open(sys.argv[1]))
none = [p for p in r['policies'] if p['policy'] == 'none'][0]['max_batch']
print(math.ceil(1.5 * none))" "$out/max-batch.json")
echo "== remat compile NetA at batch $batch (1.5x the batch without rematerialization)" >&2
"$build_dir/bin/remat" compile "$model" --input-shape="${batch}x3x224x224xf32" \
  --budget=2.5GB --device=gtx970m --optimizer=adam \
  -o "$out/neta-step.mlir" --report="$out/neta-step.json" \
  --timeline="$out/neta-step.svg"
"$root/.venv/bin/python" - "$out" "$batch" <<'PY'
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
