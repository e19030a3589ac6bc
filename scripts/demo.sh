#!/usr/bin/env bash
# demo.sh - sets up and builds remat, then runs its main job on a real
# example: remat-opt parses and verifies a complete training step (forward,
# loss, backward, SGD update of a conv-bn-relu network) and prints it back.
#
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"

bash "$root/scripts/build.sh" "$build_dir" >&2
fixture="$root/test/Fixtures/conv-bn-relu.mlir"
echo "== remat-opt $fixture" >&2
"$build_dir/bin/remat-opt" "$fixture"
