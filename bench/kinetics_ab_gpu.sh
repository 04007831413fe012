#!/usr/bin/env bash
# One device call: a change to the kinetics kernels against OLD_TREE (the tree before it, e.g.
# `git archive REV` unpacked in .dev/old and carried):
#   1. test_backends' GPU cases (DUALJIT_REQUIRE_GPU=1): TESTS, a doctest filter (default
#      "CUDA backend*");
#   2. GRI-3.0's rates and (T, Y) Jacobian (full effort, rows of 2) at CELLS, each tree twice,
#      alternating.
# Logs under $OUT. The ignition in both trees: bench/ignition_ab_gpu.sh; the peers and the GPU
# cases of the examples: bench/kinetics_verify_gpu.sh.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/kinetics_ab_gpu.sh [CELLS ...]
#     (default 100000 1000000)
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${*:-100000 1000000}
source bench/gpu_build.sh
gpu_start_both kinetics_rates && gpu_build "$out" test_backends || exit 1
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1 timeout 170 \
  ./build-gpu/tests/test_backends -ts=gpu -tc="${TESTS:-CUDA backend*}" > "$out/tests_backends.txt" 2>&1
echo "test_backends rc=$? at $(($(date +%s) - t0)) s"
grep -E "differ|against|test cases" "$out/tests_backends.txt" | cut -c1-200 | tail -8
ab_rounds "$out" "$old" rates 'cells|w_ms|J_ms|Jc_ms|Jcol_ms|floor_J_ms|J_abs_sum|Jc_transposed|Jc_rel' \
  kinetics_rates \
  --effort full --rows 2 --reps 7 $cells
echo "timed at $(($(date +%s) - t0)) s"
