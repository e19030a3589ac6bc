#!/usr/bin/env bash
# prepare.sh - the CPU half of the GPU check: planned steps, CUDA sources and
# reference results, for a machine that has the remat build.
#
#   bash bench/gpu/prepare.sh OUT_DIR [--small] [--seed=S] [--models=neta,resnet18]
#
# For each model: makes the TorchScript model (examples/make-models.py),
# compiles its training step under a budget that forces rematerialization
# (`remat compile`: import, autodiff, rematerialize, plan memory, report),
# removes the step's `remat.weights` attribute so that every argument comes
# from the seeded generator (nothing but the step has to travel), writes the
# CUDA source with `remat-translate --emit-cuda`, runs the same step with
# `remat-run --seed S --output-dir` and reduces its results to a summary
# (bench/gpu/summarize.py). OUT_DIR then holds, per model NAME:
#
#   NAME.mlir          the planned step (what both sides run)
#   NAME.cu            the emitted CUDA source with its harness
#   NAME.report.json   remat's report (budget, plan, recomputed values)
#   NAME.ref.json      the summary of remat-run's results (the reference)
#   NAME.remat-run.txt remat-run's output
#   manifest.json      per model: model, batch, input shape, optimizer,
#                      budget, planned bytes, seed (what check.sh and the
#                      PyTorch side need)
#
# and nothing else (a few MB): copy it to the GPU machine and run
# bench/gpu/check.sh OUT_DIR there (see bench/gpu/README.md).
#
# --small uses tiny input sizes, for the tests (seconds instead of minutes).
# Environment: REMAT_BIN (default build/bin), PYTHON (default .venv/bin/python,
# which must have torch and torchvision).
set -euo pipefail

usage() {
  echo "usage: bash bench/gpu/prepare.sh OUT_DIR [--small] [--seed=S] [--models=a,b]" >&2
  exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/bench/gpu"
BIN=${REMAT_BIN:-$ROOT/build/bin}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}

OUT="" SMALL=0 SEED=0 ONLY=""
for arg in "$@"; do
  case "$arg" in
    --small) SMALL=1 ;;
    --seed=*) SEED=${arg#--seed=} ;;
    --models=*) ONLY=${arg#--models=} ;;
    -h|--help) usage ;;
    -*) echo "prepare.sh: error: unknown option '$arg'" >&2; usage ;;
    *) [[ -z "$OUT" ]] || usage; OUT=$arg ;;
  esac
done
[[ -n "$OUT" ]] || usage
[[ "$SEED" =~ ^[0-9]+$ ]] || { echo "prepare.sh: error: --seed must be a number" >&2; exit 2; }

# The models: name, make-models.py model, input type (batch first), budget,
# solver, optimizer options, and whether the plan must recompute something.
#
# NetA at 224x224 with Adam fits 2.5 GB at batch 38 without rematerialization
# (README); at 56 its step peaks at 3.61 GB and the chain solver recomputes
# the first three blocks to fit. resnet18 (SGD with momentum) at batch 32 is
# planned in 80% of its own peak. `auto` is not used: its exact MILP stage
# takes minutes at these sizes, and the check is about the plan's execution.
# In --small mode resnet18's step is dominated by its weights and cannot get
# much below its peak; it is planned in 100% of it, which the heuristic still
# meets by recomputing (the packed arena exceeds the peak by a few hundred
# bytes), so the recomputation check is off for it.
if [[ $SMALL == 1 ]]; then
  CONFIGS=(
    "neta neta 16x3x64x64xf32 90% chain --optimizer=adam 1"
    "resnet18 resnet18 8x3x64x64xf32 100% heuristic --optimizer=sgd,--momentum=0.9,--lr=0.1 0"
  )
else
  CONFIGS=(
    "neta neta 56x3x224x224xf32 2.5GB chain --optimizer=adam 1"
    "resnet18 resnet18 32x3x224x224xf32 80% heuristic --optimizer=sgd,--momentum=0.9,--lr=0.1 1"
  )
fi

START=$SECONDS
log() { echo "prepare.sh [$((SECONDS - START))s]: $*" >&2; }
die() { echo "prepare.sh: error: $*" >&2; exit 1; }

# --- what this needs -----------------------------------------------------------
for tool in remat remat-run remat-opt remat-translate; do
  [[ -x "$BIN/$tool" ]] || die "$BIN/$tool not found: build remat first (or set REMAT_BIN)"
done
"$PYTHON" -c "import torch, torchvision" 2>/dev/null ||
  die "$PYTHON cannot import torch and torchvision (set PYTHON to an interpreter that can)"
# (The help text is read whole first: `grep -q` on the pipe would stop reading at the
# match, and the tool's SIGPIPE would fail the pipeline under pipefail.)
EMIT_CUDA=1
translate_help=$("$BIN/remat-translate" --help 2>/dev/null || true)
if [[ "$translate_help" != *--emit-cuda* ]]; then
  EMIT_CUDA=0
  log "warning: $BIN/remat-translate has no --emit-cuda option (the CUDA backend is not" \
      "built yet): preparing everything else, then failing"
fi

# --- OUT_DIR: fresh, or the output of an earlier run ---------------------------
if [[ -e "$OUT" && ! -d "$OUT" ]]; then
  die "$OUT exists and is not a directory"
fi
mkdir -p "$OUT"
if [[ -n "$(ls -A "$OUT")" && ! -f "$OUT/manifest.json" ]]; then
  die "$OUT is not empty and holds no manifest.json: not a prepare.sh output, refusing to write into it"
fi
rm -rf "$OUT"/manifest.json "$OUT"/prepared.txt "$OUT"/table.md "$OUT"/gpu \
       "$OUT"/*.mlir "$OUT"/*.cu "$OUT"/*.ref.json "$OUT"/*.report.json "$OUT"/*.remat-run.txt
OUT_ARG=$OUT              # as given, for the message that says what to run on the GPU machine
OUT=$(cd "$OUT" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/remat-gpu-prepare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# --- per model -----------------------------------------------------------------
selected=()
for config in "${CONFIGS[@]}"; do
  read -r name _ <<<"$config"
  if [[ -z "$ONLY" || ",$ONLY," == *",$name,"* ]]; then selected+=("$config"); fi
done
[[ ${#selected[@]} -gt 0 ]] || die "--models=$ONLY matches none of the models (neta, resnet18)"

models=$(for config in "${selected[@]}"; do read -r _ model _ <<<"$config"; echo "$model"; done |
         sort -u | paste -sd, -)
log "making the TorchScript models ($models)"
"$PYTHON" "$ROOT/examples/make-models.py" "$WORK/models" --models "$models"

for config in "${selected[@]}"; do
  read -r name model shape budget solver options must_recompute <<<"$config"
  IFS=, read -r -a optimizer <<<"$options"

  log "$name: compiling the step ($shape, budget $budget, solver $solver, ${optimizer[*]})"
  "$BIN/remat" compile "$WORK/models/$model.scripted.pt" --input-shape="$shape" \
    --budget="$budget" --solver="$solver" --device=h200 --classes=10 "${optimizer[@]}" \
    -o "$WORK/$name.planned.mlir" --weights="$WORK/$name.weights" \
    --report="$OUT/$name.report.json"
  recomputed=$("$PYTHON" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["recomputed"]))' \
               "$OUT/$name.report.json")
  log "$name: the plan recomputes $recomputed values"
  if [[ $must_recompute == 1 && $recomputed == 0 ]]; then
    die "$name: the plan at budget $budget recomputes nothing; the check is meant to run a rematerialized step"
  fi

  # Every argument from the seeded generator, on both sides.
  "$PYTHON" "$HERE/stepinfo.py" strip-weights "$WORK/$name.planned.mlir" "$OUT/$name.mlir" >/dev/null
  "$BIN/remat-opt" "$OUT/$name.mlir" -o /dev/null ||
    die "$name: the step without remat.weights does not parse (stepinfo.py strip-weights)"
  rm -rf "$WORK/$name.weights"

  if [[ $EMIT_CUDA == 1 ]]; then
    log "$name: writing $name.cu"
    "$BIN/remat-translate" --emit-cuda "$OUT/$name.mlir" -o "$OUT/$name.cu"
  fi

  log "$name: running the step on the CPU (remat-run --seed $SEED)"
  "$BIN/remat-run" "$OUT/$name.mlir" --seed "$SEED" --output-dir "$WORK/$name.results" \
    >"$OUT/$name.remat-run.txt" 2>&1 ||
    { cat "$OUT/$name.remat-run.txt" >&2; die "$name: remat-run failed"; }
  "$PYTHON" "$HERE/summarize.py" summarize "$WORK/$name.results" -o "$OUT/$name.ref.json"
  rm -rf "$WORK/$name.results"

  files=(step="$name.mlir" report="$name.report.json" reference="$name.ref.json")
  [[ $EMIT_CUDA == 1 ]] && files+=(cuda="$name.cu")
  "$PYTHON" "$HERE/stepinfo.py" manifest-add "$OUT/manifest.json" --name "$name" \
    --model "$model" --step "$OUT/$name.mlir" --report "$OUT/$name.report.json" \
    --input-shape "$shape" --budget "$budget" --classes 10 --seed "$SEED" \
    --run-log "$OUT/$name.remat-run.txt" --files "${files[@]}"
  log "$name: done ($(grep -m1 '^loss = ' "$OUT/$name.remat-run.txt" || echo 'no loss printed'))"
done

{
  echo "prepared by bench/gpu/prepare.sh $*"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(
    [[ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]] && echo ' (with uncommitted changes)')"
  echo "seed: $SEED"
} >"$OUT/prepared.txt"

# OUT_DIR travels to the GPU machine (at most 64 MiB with everything else).
bytes=$(du -sb "$OUT" | cut -f1)
(( bytes < 48 * 1024 * 1024 )) || die "$OUT holds $bytes bytes; it must stay well under 60 MiB"
log "$OUT: $((bytes / 1024)) KiB"

if [[ $EMIT_CUDA == 0 ]]; then
  die "remat-translate has no --emit-cuda yet, so no <model>.cu was written; everything else" \
      "is in $OUT. Rebuild remat with the CUDA backend and run prepare.sh again."
fi
log "ready: copy $OUT to the GPU machine and run: bash bench/gpu/check.sh $OUT_ARG"
