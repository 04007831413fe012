#!/usr/bin/env bash
# One short device call: GRI-3.0's rates and (T, Y) Jacobian at 1e5 cells (full effort, rows of
# 2: cell-major and component-major blocks, sum |J|, the two orders' agreement), then
# test_backends' GPU cases (DUALJIT_REQUIRE_GPU=1), for a change to the element kernels' output.
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/tiled_verify_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates test_backends || exit 1
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
timeout 90 ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 5 100000 \
  > "$out/rates.txt" 2>&1
echo "rates rc=$? at $(($(date +%s) - t0)) s: $(grep -E '^RESULT kinetics_dualjit' "$out/rates.txt" |
  grep -oE '(w_ms|J_ms|Jc_ms|J_abs_sum|Jc_abs_sum|Jc_transposed)=[^ ]+' | paste -sd' ')"
DUALJIT_REQUIRE_GPU=1 timeout 100 ./build-gpu/tests/test_backends -ts=gpu > "$out/tests_backends.txt" 2>&1
echo "test_backends rc=$? at $(($(date +%s) - t0)) s"
grep -E "test cases|assertions|ERROR|FAILED" "$out/tests_backends.txt" | head -8 | cut -c1-200
