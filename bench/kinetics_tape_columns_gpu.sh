#!/usr/bin/env bash
# One device call: the tape columns' component-major Jacobian (AssemblerOptions::
# element_tape_columns) verified and measured: test_backends' GPU cases of the tape columns and
# of the CUDA backend (DUALJIT_REQUIRE_GPU=1), then bench/sweeps/kinetics_tape_columns.txt at 1e5
# cells (rows against columns, CUDA events), then Nsight Compute's duration of each launch of
# the columns' Jc and the sections of its own launches. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_tape_columns_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends || exit 1
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1 timeout 240 \
  ./build-gpu/tests/test_backends -ts=gpu -tc="device tape columns*,CUDA backend*" \
  > "$out/tests.txt" 2>&1
echo "tests rc=$? at $(($(date +%s) - t0)) s"
grep -E "ERROR|test cases|assertions" "$out/tests.txt" | cut -c1-200 | tail -8
OUT=$out/sweep timeout 300 bash bench/kinetics_sweep.sh bench/sweeps/kinetics_tape_columns.txt \
  100000 | grep -E "^[a-z0-9_]+: "
grep -ohE "Jc_rel=[^ ]+|Jc_abs_sum=[^ ]+|J_abs_sum=[^ ]+" "$out"/sweep/time_*.log | paste -sd' '
echo "swept at $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
NCU_COUNT=16 timeout 150 bash bench/ncu_kernels.sh "$out/ncu_columns.txt" "tape_|jacobian_w54" \
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 --tape-columns 1 100000
grep -E " us " "$out/ncu_columns.txt"
# What bounds the columns' own launches: throughput, registers, spills, occupancy.
NCU_COUNT=4 NCU_SECTIONS="SpeedOfLight LaunchStats Occupancy" timeout 120 bash bench/ncu_kernels.sh \
  "$out/ncu_detail.txt" "tape_(rest|aux|columns)" \
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 --tape-columns 1 100000
grep -E "^  dj_|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Local Memory Spill|Dynamic Shared" \
  "$out/ncu_detail.txt" | sed 's/  */ /g' | cut -c1-110
echo "done at $(($(date +%s) - t0)) s"
