#!/usr/bin/env bash
# One device call: the cell-major untile through shared memory (dj_untile_cells,
# backends/assembly/device_element_assembly.h) verified and measured: its GPU case, the device
# element assembly's and ReactorCells' (DUALJIT_REQUIRE_GPU=1); issue 16's benchmark with JAX
# in the same run at CELLS (bench/kinetics_peers.sh, Cantera and canterax left out); Nsight
# Compute's duration of the untile and of J's row-group launches (those of `148c7eb`, where J
# came from the row groups; since, J comes from the tape columns and the untile). Logs under
# $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_untile_gpu.sh [CELLS ...]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends test_examples || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 120 test_backends -ts=gpu -tc="*untile*,DeviceElementAssembly*"
gpu_tests 150 test_examples -ts=gpu -tc="*ReactorCells*"
BUILD_DIR=build-gpu SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 \
  OUT=$out/peers timeout 200 bash bench/kinetics_peers.sh "${@:-100000}"
grep -vE "^\| (jacobian|rates)" "$out/peers/summary.txt" 2>/dev/null | head -30
echo "peers at $(($(date +%s) - t0)) s"
NCU_COUNT=3 timeout 60 bash bench/ncu_kernels.sh "$out/ncu_launches.txt" \
  "untile|constant_pressure_jacobian" ./build-gpu/bench/kinetics_rates --reps 1 --effort full \
  --rows 2 --outputs all "${1:-100000}"
grep -E " us " "$out/ncu_launches.txt"
echo "done at $(($(date +%s) - t0)) s"
