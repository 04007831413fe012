#!/usr/bin/env bash
# One device call: cell-major element blocks by the tape columns (their launches store tiles,
# jit/emit_tape_columns.h TapeColumnsOptions::tiled, and one pass puts them in order), verified
# and measured: the GPU cases of the tape columns and ReactorCells (DUALJIT_REQUIRE_GPU=1);
# issue 16's benchmark with JAX in the same run at CELLS (bench/kinetics_peers.sh from an empty
# cache: each output's cold compile, J and Jc, the peers); the row groups' J and Jc in the same
# call (--tape-columns 0); Nsight Compute's duration of each launch of J and Jc, then the DRAM
# and L2 traffic of the heaviest columns' launch for both stores. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_cell_major_columns_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends test_examples || exit 1
cells=${1:-100000}
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 150 test_backends -ts=gpu -tc="device tape columns*"
gpu_tests 200 test_examples -ts=gpu -tc="*ReactorCells*"

BUILD_DIR=build-gpu SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 \
  OUT=$out/peers timeout 240 bash bench/kinetics_peers.sh "$cells"
head -60 "$out/peers/summary.txt" 2>/dev/null
echo "peers at $(($(date +%s) - t0)) s"
DUALJIT_CACHE_DIR=$PWD/build-gpu/rows-cache timeout 120 ./build-gpu/bench/kinetics_rates \
  --effort full --rows 2 --reps 7 --tape-columns 0 "$cells" > "$out/row_groups.txt" 2>&1
echo "row groups rc=$?: $(grep -oE "J_ms=[^ ]+|Jc_ms=[^ ]+|J_abs_sum=[^ ]+" "$out/row_groups.txt" |
  paste -sd' ')"

NCU_COUNT=19 timeout 80 bash bench/ncu_kernels.sh "$out/ncu_launches.txt" "columns_|untile" \
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 "$cells"
grep -E " us " "$out/ncu_launches.txt"
NCU_COUNT=2 NCU_METRICS="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,\
lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum" timeout 70 \
  bash bench/ncu_kernels.sh "$out/ncu_traffic.txt" "tape_columns_g7_9" \
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 "$cells"
grep -E "tape_columns_g7_9|\.sum" "$out/ncu_traffic.txt" | cut -c1-140
echo "done at $(($(date +%s) - t0)) s"
