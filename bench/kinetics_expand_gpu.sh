#!/usr/bin/env bash
# Experiment (to be reverted): GRI-3.0's J with the expand launch in warp runs, its warps a
# block (DUALJIT_EXP_EXPAND_WARPS) and its entry loop's unrolling (DUALJIT_EXP_EXPAND_UNROLL);
# then the expand's DRAM and L2 traffic from Nsight Compute at the default.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_expand_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${1:-100000}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/expand-cache
k=./build-gpu/bench/kinetics_rates
for i in 1 2; do
  for v in "8 4" "4 4" "8 8" "16 4" "8 1"; do
    set -- $v
    echo "warps=$1 unroll=$2: $(DUALJIT_EXP_EXPAND_WARPS=$1 DUALJIT_EXP_EXPAND_UNROLL=$2 $k --effort full --rows 2 --reps 7 "$cells" 2>&1 | grep -E '^RESULT kinetics_dualjit' | grep -oE '(J_ms|Jc_ms|Jcol_ms|J_abs_sum)=[^ ]+' | head -4 | tr '\n' ' ')"
  done
done
NCU_METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
  NCU_COUNT=1 bash bench/ncu_kernels.sh "$out/ncu_expand.txt" "tape_expand" $k --effort full --rows 2 --reps 1 "$cells"
grep -E "tape_expand|duration|bytes|sectors|throughput|warps" "$out/ncu_expand.txt" | sed 's/  */ /g' | tail -12
