#!/usr/bin/env bash
# One device call: dj_untile_cells (backends/assembly/device_element_assembly.h) where the
# defaults use it: GRI-3.0's cell-major Jacobian at kinetics_rates' default flags (every row in
# every chunk, so the kernels store tiles and one pass puts them in order) at CELLS, timed
# (CUDA events) and each launch's duration by Nsight Compute. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_untile_cells_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
timeout 120 ./build-gpu/bench/kinetics_rates --reps 7 "${1:-100000}" > "$out/rates.txt" 2>&1
echo "kinetics_rates rc=$? at $(($(date +%s) - t0)) s: $(grep -oE "J_ms=[^ ]+|Jc_ms=[^ ]+|\
floor_J_ms=[^ ]+" "$out/rates.txt" | paste -sd' ')"
grep -oE "output=jacobian kernel=[^ ]+|first_call_s=[^ ]+" "$out/rates.txt" | paste -sd' ' |
  cut -c1-400
NCU_COUNT=20 timeout 120 bash bench/ncu_kernels.sh "$out/ncu_launches.txt" \
  "constant_pressure_jacobian|untile" ./build-gpu/bench/kinetics_rates --reps 1 "${1:-100000}"
grep -E " us " "$out/ncu_launches.txt"
echo "done at $(($(date +%s) - t0)) s"
