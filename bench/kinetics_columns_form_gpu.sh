#!/usr/bin/env bash
# One device call: the tape columns' kernel in the rate laws' columns form (examples/kinetics/
# rate_laws.h) verified and measured against the derivatives' form: the GPU cases of the tape
# columns, the CUDA backend and ReactorCells (DUALJIT_REQUIRE_GPU=1), then
# bench/sweeps/kinetics_columns_form.txt at 1e5 cells, then Nsight Compute's duration of each
# launch of Jc in both forms. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_columns_form_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends test_examples || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1
timeout 200 ./build-gpu/tests/test_backends -ts=gpu -tc="device tape columns*,CUDA backend*" \
  > "$out/tests_backends.txt" 2>&1
echo "test_backends rc=$? at $(($(date +%s) - t0)) s"
grep -E "ERROR|test cases|assertions" "$out/tests_backends.txt" | cut -c1-200 | tail -6
timeout 240 ./build-gpu/tests/test_examples -ts=gpu -tc="*ReactorCells*" \
  > "$out/tests_examples.txt" 2>&1
echo "test_examples rc=$? at $(($(date +%s) - t0)) s"
grep -E "ERROR|test cases|assertions" "$out/tests_examples.txt" | cut -c1-200 | tail -6
unset DUALJIT_REQUIRE_GPU
OUT=$out/sweep timeout 300 bash bench/kinetics_sweep.sh bench/sweeps/kinetics_columns_form.txt \
  100000 | grep -E "^[a-z0-9_]+: |output="
grep -ohE "Jc_rel=[^ ]+|Jc_abs_sum=[^ ]+|J_abs_sum=[^ ]+" "$out"/sweep/time_*.log | paste -sd' '
grep -hE "kinetics_compile" "$out"/sweep/compile_*.log | grep -oE "symbol=[^ ]+|first_call_s=[^ ]+" |
  paste -sd' ' | cut -c1-600
echo "swept at $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
for form in derivatives columns; do
  echo "$form:"
  NCU_COUNT=8 timeout 100 bash bench/ncu_kernels.sh "$out/ncu_$form.txt" "tape_|jacobian_w54_t1_r1" \
    ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 --outputs all \
    --columns-form $form 100000
  grep -E " us " "$out/ncu_$form.txt"
done
echo "done at $(($(date +%s) - t0)) s"
