#!/usr/bin/env bash
# fake-build-cuda.sh - stands in for scripts/build-cuda.sh in the CPU test of
# bench/gpu/check.sh: instead of compiling NAME.cu it writes a "harness" that
# runs NAME.mlir (beside NAME.cu) with remat-run and speaks the harness's
# interface (--steps, --warmup, --seed, --output-dir; one JSON line last).
# With FAKE_PERTURB=RESULT the harness scales that result by 1.01, so that the
# comparison must fail.
set -euo pipefail
source_file="" output=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -o) output="$2"; shift 2 ;;
    --target=*) shift ;;
    *) source_file="$1"; shift ;;
  esac
done
remat_run=$(command -v remat-run)
perturb="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/perturb.py"
cat >"$output" <<HARNESS
#!/usr/bin/env bash
set -euo pipefail
seed=0 out=""
for arg in "\$@"; do
  case "\$arg" in
    --seed=*) seed=\${arg#--seed=} ;;
    --output-dir=*) out=\${arg#--output-dir=} ;;
  esac
done
log=\$("$remat_run" "${source_file%.cu}.mlir" --seed "\$seed" \${out:+--output-dir "\$out"})
echo "\$log"
if [[ -n "\${FAKE_PERTURB:-}" && -n "\$out" ]]; then
  "\${PYTHON:-python3}" "$perturb" npy "\$out/\$FAKE_PERTURB.npy" 1.01 0
fi
read -r args arena < <(echo "\$log" | sed -n 's/^planned: arguments \([0-9]*\) bytes + arena \([0-9]*\) bytes/\1 \2/p')
echo "{\"function\": \"forward\", \"arena_bytes\": \$arena, \"argument_bytes\": \$args, \"planned_bytes\": \$((args + arena)), \"library_bytes\": 0, \"allocated_bytes\": \$((args + arena)), \"run_growth_bytes\": 0, \"ms_per_step\": 1.5, \"steps\": 1}"
HARNESS
chmod +x "$output"
