#!/usr/bin/env bash
# check.sh - the GPU half of the GPU check: runs the emitted steps on the GPU,
# compares their results with remat-run's, and times PyTorch on the same steps.
#
#   bash bench/gpu/check.sh OUT_DIR [--steps=20] [--warmup=5] [--models=a,b] [--no-torch]
#                               [--copy-results=DIR]
#
# OUT_DIR is what bench/gpu/prepare.sh wrote on a machine with the remat
# build; this machine needs no remat build, only this checkout's bench/gpu/,
# examples/make-models.py and scripts/build-cuda.sh, nvcc with cuBLAS and
# cuDNN, a GPU, and a python3 with torch (CUDA). Per model of the manifest:
#
#   1. scripts/build-cuda.sh NAME.cu --target=sm_90 (all models in parallel);
#   2. runs the harness for one step after the warm-up (--steps=1 --warmup=W
#      --seed=<the manifest's seed> --output-dir; the warm-up trains and the
#      harness then restores the initial state, so that step is remat-run's
#      step), then again for the timing: --steps=N --warmup=W, N steps of
#      training; that run's JSON line gives the device memory and ms/step;
#   3. summarizes the first run's results (summarize.py, the results
#      remat-run's summary has: the harness also writes the final state) and
#      compares them with remat-run's summary NAME.ref.json: every sample within
#      1e-3 * max|ref| + 1e-5, sums within 1e-3 of sum|ref| (TF32 is off in
#      the emitted code, so the difference is float32 rounding and reduction
#      order);
#   4. times PyTorch's eager step and its checkpoint_sequential step on the
#      same model, batch and optimizer (torch_step.py; TF32 off).
#
# Then prints the table (table.py) and writes it to OUT_DIR/table.md; every
# intermediate file is in OUT_DIR/gpu/ (--copy-results=DIR copies the table
# and those files, not the binaries, to DIR). Exits 1 when a step failed to build
# or run, or its results differ beyond the tolerance; the table is written
# in every case.
#
# Environment: PYTHON (default .venv/bin/python, else python3; needs torch), CUDA_HOME (default
# /usr/local/cuda), BUILD_CUDA (default scripts/build-cuda.sh), TORCH_DEVICE
# (default cuda; `cpu` only to test this script), KEEP_OUTPUTS=1 keeps the
# harness's .npy results (removed once summarized, by default).
set -euo pipefail

usage() {
  echo "usage: bash bench/gpu/check.sh OUT_DIR [--steps=N] [--warmup=W] [--models=a,b] [--no-torch] [--copy-results=DIR]" >&2
  exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/bench/gpu"
# The project's Python environment where it exists (scripts/setup-python.sh;
# its torch wheel is a CUDA build), else python3. build-cuda.sh reads PYTHON
# too (cuDNN from Python wheels).
default_python=python3
[ -x "$ROOT/.venv/bin/python" ] && default_python="$ROOT/.venv/bin/python"
export PYTHON=${PYTHON:-$default_python}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
BUILD_CUDA=${BUILD_CUDA:-$ROOT/scripts/build-cuda.sh}
TORCH_DEVICE=${TORCH_DEVICE:-cuda}

OUT="" STEPS=20 WARMUP=5 ONLY="" TORCH=1 COPY=""
for arg in "$@"; do
  case "$arg" in
    --copy-results=*) COPY=${arg#--copy-results=} ;;
    --steps=*) STEPS=${arg#--steps=} ;;
    --warmup=*) WARMUP=${arg#--warmup=} ;;
    --models=*) ONLY=${arg#--models=} ;;
    --no-torch) TORCH=0 ;;
    -h|--help) usage ;;
    -*) echo "check.sh: error: unknown option '$arg'" >&2; usage ;;
    *) [[ -z "$OUT" ]] || usage; OUT=$arg ;;
  esac
done
[[ -n "$OUT" ]] || usage
[[ "$STEPS" =~ ^[0-9]+$ && "$WARMUP" =~ ^[0-9]+$ ]] ||
  { echo "check.sh: error: --steps and --warmup take numbers" >&2; exit 2; }

START=$SECONDS
log() { echo "check.sh [$((SECONDS - START))s]: $*" >&2; }
die() { echo "check.sh: error: $*" >&2; exit 1; }

# --- what this needs -----------------------------------------------------------
[[ -f "$OUT/manifest.json" ]] ||
  die "$OUT/manifest.json not found: run bench/gpu/prepare.sh $OUT on the machine with the remat build and copy $OUT here"
OUT=$(cd "$OUT" && pwd)
[[ -f "$BUILD_CUDA" ]] || die "$BUILD_CUDA not found (set BUILD_CUDA)"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found (set PYTHON to a python3 that has torch)"
if [[ $TORCH == 1 ]]; then
  "$PYTHON" -c 'import torch' 2>/dev/null || die "$PYTHON cannot import torch (set PYTHON)"
  if [[ $TORCH_DEVICE == cuda* ]]; then
    "$PYTHON" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' ||
      die "$PYTHON's torch sees no GPU (torch.cuda.is_available() is false)"
  fi
fi
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null |
    sed 's/^/check.sh: GPU: /' >&2 || true
fi

GPU="$OUT/gpu"
rm -rf "$GPU"
mkdir -p "$GPU"

# name and seed of each model in the manifest, one per line
mapfile -t ENTRIES < <("$PYTHON" -c '
import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    print(m["name"], m["seed"])' "$OUT/manifest.json")
names=() seeds=()
for entry in "${ENTRIES[@]}"; do
  read -r name seed <<<"$entry"
  if [[ -z "$ONLY" || ",$ONLY," == *",$name,"* ]]; then names+=("$name"); seeds+=("$seed"); fi
done
[[ ${#names[@]} -gt 0 ]] || die "no model of $OUT/manifest.json selected"

FAILED=0
# Records why a stage of a model failed (table.py shows it) and carries on.
fail() { # name message
  echo "$2" >>"$GPU/$1.status"
  echo "check.sh: $1: FAILED: $2" >&2
  FAILED=1
}

# --- 1. build every step, in parallel --------------------------------------------
pids=()
for name in "${names[@]}"; do
  if [[ ! -f "$OUT/$name.cu" ]]; then
    fail "$name" "$name.cu is missing (prepare.sh ran without remat-translate --emit-cuda)"
    pids+=("")
    continue
  fi
  log "$name: building ($BUILD_CUDA --target=sm_90)"
  timeout 600 bash "$BUILD_CUDA" "$OUT/$name.cu" -o "$GPU/$name" --target=sm_90 \
    >"$GPU/$name.build.log" 2>&1 &
  pids+=("$!")
done
for i in "${!names[@]}"; do
  name=${names[$i]}
  [[ -n "${pids[$i]}" ]] || continue
  if wait "${pids[$i]}"; then
    log "$name: built"
  else
    tail -n 20 "$GPU/$name.build.log" >&2
    fail "$name" "build failed (gpu/$name.build.log)"
  fi
done

# --- 2-4. per model: run, compare, PyTorch -----------------------------------------
for i in "${!names[@]}"; do
  name=${names[$i]} seed=${seeds[$i]}
  if [[ -x "$GPU/$name" ]]; then
    log "$name: running one step after $WARMUP warm-up steps (--seed=$seed)"
    rm -rf "$GPU/$name.out"
    mkdir -p "$GPU/$name.out"
    if timeout 300 "$GPU/$name" --steps=1 --warmup="$WARMUP" --seed="$seed" \
         --output-dir="$GPU/$name.out" >"$GPU/$name.check-run.txt" 2>"$GPU/$name.check-run.err"; then
      if "$PYTHON" "$HERE/summarize.py" summarize "$GPU/$name.out" --like "$OUT/$name.ref.json" \
           -o "$GPU/$name.cuda.json"; then
        if "$PYTHON" "$HERE/summarize.py" compare "$OUT/$name.ref.json" "$GPU/$name.cuda.json" \
             --rtol 1e-3 --atol 1e-5 --json-out "$GPU/$name.compare.json" >"$GPU/$name.compare.txt"; then
          log "$name: $(head -n 1 "$GPU/$name.compare.txt")"
        else
          cat "$GPU/$name.compare.txt" >&2
          fail "$name" "results differ from remat-run's beyond the tolerance (gpu/$name.compare.txt)"
        fi
      else
        fail "$name" "cannot summarize the harness's results"
      fi
      [[ "${KEEP_OUTPUTS:-0}" == 1 ]] || rm -rf "$GPU/$name.out"
    else
      tail -n 20 "$GPU/$name.check-run.txt" "$GPU/$name.check-run.err" >&2
      fail "$name" "the step failed to run (gpu/$name.check-run.err)"
    fi
    log "$name: timing $STEPS training steps after $WARMUP warm-up steps"
    if timeout 300 "$GPU/$name" --steps="$STEPS" --warmup="$WARMUP" --seed="$seed" \
         >"$GPU/$name.harness.txt" 2>"$GPU/$name.harness.err"; then
      # The JSON line is the last line of stdout; the losses come before it.
      tail -n 1 "$GPU/$name.harness.txt" >"$GPU/$name.harness.json"
      if ! "$PYTHON" -c 'import json, sys; json.load(open(sys.argv[1]))' "$GPU/$name.harness.json" 2>/dev/null; then
        rm -f "$GPU/$name.harness.json"
        fail "$name" "the harness's last line is not JSON (gpu/$name.harness.txt)"
      fi
      log "$name: $(cat "$GPU/$name.harness.json" 2>/dev/null || true)"
    else
      tail -n 20 "$GPU/$name.harness.txt" "$GPU/$name.harness.err" >&2
      fail "$name" "the timed steps failed to run (gpu/$name.harness.err)"
    fi
  fi

  if [[ $TORCH == 1 ]]; then
    for mode in eager checkpoint; do
      log "$name: PyTorch $mode"
      if ! timeout 300 "$PYTHON" "$HERE/torch_step.py" --manifest "$OUT/manifest.json" \
           --name "$name" --mode "$mode" --steps "$STEPS" --warmup "$WARMUP" \
           --device "$TORCH_DEVICE" --json-out "$GPU/$name.torch-$mode.json" \
           >"$GPU/$name.torch-$mode.txt" 2>&1; then
        tail -n 20 "$GPU/$name.torch-$mode.txt" >&2
        rm -f "$GPU/$name.torch-$mode.json"
        fail "$name" "PyTorch $mode failed (gpu/$name.torch-$mode.txt)"
      fi
    done
  fi
done

# --- the table -----------------------------------------------------------------
"$PYTHON" "$HERE/table.py" "$OUT" "$(IFS=,; echo "${names[*]}")" >"$OUT/table.md"
cat "$OUT/table.md"
log "table written to $OUT/table.md"
if [[ -n "$COPY" ]]; then
  # The table and every small file of gpu/ (not the binaries), to bring back.
  mkdir -p "$COPY"
  cp "$OUT/table.md" "$COPY/"
  for file in "$GPU"/*; do
    if [[ -f "$file" && ! -x "$file" ]]; then cp "$file" "$COPY/"; fi
  done
  log "results copied to $COPY"
fi
if [[ $FAILED == 1 ]]; then
  die "some checks failed (see the notes under the table and $GPU/*.status)"
fi
