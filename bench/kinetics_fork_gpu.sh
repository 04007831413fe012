#!/usr/bin/env bash
# Experiment (to be reverted): GRI-3.0's J with the direct entries' launches on a side stream
# beside the rest and aux launches (DUALJIT_EXP_FORK=1, timing only: the direct launches read
# the aux's factors, so the heat release's row is wrong), against main's order, in turn; then
# the expand launch's DRAM and L2 traffic from Nsight Compute.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_fork_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${1:-100000}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/fork-cache
k=./build-gpu/bench/kinetics_rates
$k --effort full --rows 2 --reps 1 1000 > "$out/warm.log" 2>&1
for i in 1 2; do
  for f in 0 1; do
    echo "fork=$f: $(DUALJIT_EXP_FORK=$f $k --effort full --rows 2 --reps 7 "$cells" 2>&1 | grep -E '^RESULT kinetics_dualjit' | grep -oE '(J_ms|Jc_ms|Jcol_ms|J_abs_sum)=[^ ]+' | head -4 | tr '\n' ' ')"
  done
done
NCU_METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
  NCU_COUNT=1 bash bench/ncu_kernels.sh "$out/ncu_expand.txt" "tape_expand|_dt" $k --effort full --rows 2 --reps 1 "$cells"
grep -E "tape_expand|_dt|duration|bytes|sectors|throughput" "$out/ncu_expand.txt" | sed 's/  */ /g' | tail -30
