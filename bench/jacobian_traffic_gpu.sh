#!/usr/bin/env bash
# One device call: where the memory traffic of GRI-3.0's (T, Y) Jacobian in row groups comes from
# (issue 16; full effort, rows of 2, 1e5 cells, 16 launches): Nsight Compute's counters for three
# launches, the first group (k0_1), a middle one (k9_12) and the heat-release group (k26_27):
# duration, DRAM bytes, L1 sectors of local (spill) and global loads and stores, L2 sectors,
# instructions, achieved occupancy; then the stall reasons per warp (a second pass: metric names
# that a version of Nsight Compute lacks do not cost the first). Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/jacobian_traffic_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates || exit 1
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
program=(./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 100000)
regex="_jacobian_.*(_k0_1|_k9_12|_k26_27)$"
counters=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
counters+=,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
counters+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
counters+=,lts__t_sectors.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
NCU_COUNT=3 NCU_METRICS=$counters timeout 300 bash bench/ncu_kernels.sh "$out/counters.txt" \
  "$regex" "${program[@]}"
echo "counters rc=$? at $(($(date +%s) - t0)) s"
grep -E "dj_kinetics|__" "$out/counters.txt" | grep -v "==PROF==" | head -60
stalls=smsp__warp_issue_stalled_no_instruction_per_warp_active.pct
stalls+=,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
stalls+=,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
stalls+=,smsp__warp_issue_stalled_wait_per_warp_active.pct
stalls+=,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct
stalls+=,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct
stalls+=,smsp__issue_active.avg.pct_of_peak_sustained_active
NCU_COUNT=3 NCU_METRICS=$stalls timeout 200 bash bench/ncu_kernels.sh "$out/stalls.txt" \
  "$regex" "${program[@]}"
echo "stalls rc=$? at $(($(date +%s) - t0)) s"
grep -E "dj_kinetics|__|ERROR" "$out/stalls.txt" | grep -v "==PROF==" | head -40
