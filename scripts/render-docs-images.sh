#!/usr/bin/env bash
# render-docs-images.sh - redraws the images of docs/report.md.
#
# Compiles the example transformer (examples/make-models.py) under a budget
# with `remat compile --report=...html --timeline=...svg`, sweeps its budgets
# with `remat sweep --svg`, and renders the timeline, the sweep's chart and
# the top of the HTML report to PNGs in docs/images/ with headless chromium
# (scripts/render-report.py), checking each as the tests do: no console
# error, no overlapping texts, the budget and the peak shown.
#
# Usage: scripts/render-docs-images.sh [BUILD_DIR]   (default: build/)
# Needs a build with LibTorch (the `remat` driver) and chromium
# (scripts/install-deps.sh installs both).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"
remat="$build_dir/bin/remat"
render=("$root/.venv/bin/python" "$root/scripts/render-report.py")
images="$root/docs/images"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -x "$remat" ]; then
  echo "render-docs-images: $remat not found (build with LibTorch first)" >&2
  exit 1
fi
mkdir -p "$images"

"$root/.venv/bin/python" "$root/examples/make-models.py" "$work" --models transformer >/dev/null
model="$work/transformer.scripted.pt"
"$remat" compile "$model" --input-shape=4x16xi64 --budget=230KB \
  -o "$work/step.mlir" --report="$work/report.html" --timeline="$work/timeline.svg"
"$remat" sweep "$model" --input-shape=4x16xi64 --points=8 --svg="$work/sweep.svg" >/dev/null

"${render[@]}" "$work/timeline.svg" --check-overlap --expect 'budget 230 KB' \
  --expect 'peak ' --png "$images/timeline.png"
"${render[@]}" "$work/sweep.svg" --check-overlap --expect 'winning solver' \
  --png "$images/sweep.png"
"${render[@]}" "$work/report.html" --check-overlap \
  --expect 'Budget' --expect 'Peak after rematerialization' \
  --max-height 1500 --png "$images/report.png"
echo "render-docs-images: wrote $images/timeline.png, sweep.png, report.png"
