#!/usr/bin/env bash
# One device call: GRI-3.0's cell-major Jacobian blocks from the tape columns, the last launch
# moving each tile into blocks (jit::ColumnStores::CellMajor):
#   1. test_backends' GPU case of the tape columns (both layouts, h2o2 and GRI-3.0, against the
#      row groups; DUALJIT_REQUIRE_GPU=1);
#   2. kinetics_rates (full effort, rows of 2) at CELLS, twice;
#   3. Nsight Compute: the columns' launches' durations in J, and the cell-major launch's
#      speed-of-light and memory sections.
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_cell_blocks_gpu.sh [CELLS]
#     (default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 170 test_backends -ts=gpu -tc="device tape columns*"
rates=(./build-gpu/bench/kinetics_rates --effort full --rows 2)
for round in 1 2; do
  timeout 120 "${rates[@]}" --reps 7 "$cells" > "$out/rates_$round.txt" 2>&1
  echo "round $round rc=$?: $(grep -E '^RESULT' "$out/rates_$round.txt" |
    grep -oE '(cells|w_ms|J_ms|Jc_ms|Jcol_ms|floor_J_ms|J_abs_sum|Jc_transposed)=[^ ]+' |
    paste -sd' ')"
done
NCU_COUNT=12 timeout 150 bash bench/ncu_kernels.sh "$out/ncu_durations.txt" \
  "tape_columns|untile" "${rates[@]}" --reps 1 "$cells"
echo "ncu durations rc=$? at $(($(date +%s) - t0)) s"
head -14 "$out/ncu_durations.txt"
NCU_COUNT=1 NCU_SECTIONS="SpeedOfLight MemoryWorkloadAnalysis Occupancy" timeout 150 \
  bash bench/ncu_kernels.sh "$out/ncu_cells.txt" "_cm" "${rates[@]}" --reps 1 "$cells"
echo "ncu sections rc=$? at $(($(date +%s) - t0)) s"
grep -E "Duration|Throughput|Hit Rate|DRAM|Achieved Occupancy|Registers" "$out/ncu_cells.txt" |
  head -24
