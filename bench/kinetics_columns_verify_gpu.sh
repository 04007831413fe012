#!/usr/bin/env bash
# One device call: the tape columns' GPU cases (both rate-law forms, DUALJIT_REQUIRE_GPU=1) and
# ReactorCells' on the GPU, then issue 16's benchmark with JAX in the same run
# (bench/kinetics_peers.sh, Cantera and canterax left out) at CELLS. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_columns_verify_gpu.sh [CELLS ...]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends test_examples || exit 1
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1 timeout 150 \
  ./build-gpu/tests/test_backends -ts=gpu -tc="device tape columns*" > "$out/tests_backends.txt" 2>&1
echo "test_backends rc=$? at $(($(date +%s) - t0)) s"
grep -E "ERROR|test cases|assertions" "$out/tests_backends.txt" | cut -c1-200 | tail -6
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1 timeout 200 \
  ./build-gpu/tests/test_examples -ts=gpu -tc="*ReactorCells*" > "$out/tests_examples.txt" 2>&1
echo "test_examples rc=$? at $(($(date +%s) - t0)) s"
grep -E "ERROR|test cases|assertions" "$out/tests_examples.txt" | cut -c1-200 | tail -6
BUILD_DIR=build-gpu SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 \
  OUT=$out/peers timeout 330 bash bench/kinetics_peers.sh "${@:-100000}"
cat "$out/peers/summary.txt" 2>/dev/null | head -60
echo "done at $(($(date +%s) - t0)) s"
