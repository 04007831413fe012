#!/usr/bin/env bash
# One device call: GRI-3.0's cold compile per output from an empty kernel cache (kinetics_rates
# at full effort, rows of 2: the rates, the cell-major Jacobian's row groups, then the
# component-major Jacobian's tape-column launches, each output's first call timed), then the
# same run warm. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_cold_compile_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$out/cache
for run in cold warm; do
  ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 3 "${1:-100000}" \
    > "$out/$run.txt" 2>&1
  echo "$run rc=$?"
  grep -E "^RESULT kinetics_(compile|dualjit)" "$out/$run.txt" |
    grep -oE "output=[^ ]+|kernel=[^ ]+|compiled_now=[^ ]+|first_call_s=[^ ]+|J_ms=[^ ]+|Jc_ms=[^ ]+" |
    paste -sd' ' | sed 's/ output=/\n output=/g'
done
echo "done at $(($(date +%s) - t0)) s"
