#!/usr/bin/env bash
# One device call: GRI-3.0's cell-major Jacobian from the tape columns' tiles put in order by
# dj_untile_cells (backends/assembly/device_element_assembly.h), verified and measured: the GPU
# cases of the tape columns and of the untile (DUALJIT_REQUIRE_GPU=1), then issue 16's
# benchmark with JAX in the same run at CELLS (bench/kinetics_peers.sh from an empty cache:
# each output's cold compile, J, Jc, the peer), then Nsight Compute's duration of J's launches.
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_columns_cells_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends || exit 1
cells=${1:-100000}
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache \
  gpu_tests 100 test_backends -ts=gpu -tc="device tape columns*,*untile*"
BUILD_DIR=build-gpu SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 \
  OUT=$out/peers timeout 150 bash bench/kinetics_peers.sh "$cells"
grep -E "^\| [0-9]|^target|^\| (rates|jacobian) " "$out/peers/summary.txt" 2>/dev/null |
  awk -F'|' '!seen[$0]++' | cut -c1-200 | head -24
echo "peers at $(($(date +%s) - t0)) s"
DUALJIT_CACHE_DIR=$PWD/build-gpu/kinetics-cache NCU_COUNT=10 timeout 60 bash bench/ncu_kernels.sh \
  "$out/ncu_launches.txt" "columns_|untile" ./build-gpu/bench/kinetics_rates --reps 1 \
  --effort full --rows 2 "$cells"
grep -E " us " "$out/ncu_launches.txt"
echo "done at $(($(date +%s) - t0)) s"
