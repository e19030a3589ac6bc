#!/usr/bin/env bash
# setup-python.sh - makes the project's one Python environment, .venv/ in the
# repository, from requirements.txt (pinned PyTorch and what the scripts use).
#
# Every script, test and benchmark runs in this environment, and the build
# takes LibTorch from its torch wheel. Built on Debian's python3 (the
# python3-venv package, which install-deps.sh installs). Idempotent: when
# .venv/ already holds exactly what requirements.txt pins, nothing is
# downloaded. Prints the environment's python on its last line.
#
# Usage: scripts/setup-python.sh   (REMAT_VENV overrides the location)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${REMAT_VENV:-$root/.venv}"
requirements="$root/requirements.txt"
stamp="$venv/.remat-requirements"

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$stamp" "$requirements"; then
  echo "setup-python: $venv already matches requirements.txt" >&2
  echo "$venv/bin/python"
  exit 0
fi

start=$(date +%s)
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv"
fi
# pip's progress bars fill CI logs; the summary line below says what it took.
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  --progress-bar off -r "$requirements" >&2
cp "$requirements" "$stamp"
echo "setup-python: installed requirements.txt into $venv in" \
  "$(( $(date +%s) - start )) s ($(du -sh "$venv" | cut -f1) on disk)" >&2
echo "$venv/bin/python"
