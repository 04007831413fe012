#!/usr/bin/env bash
# One device call: the table exp (jit/driver_text.h) out of line (DUALJIT_EXP_INLINE=0, the
# default) or inline with its rare range out of line (DUALJIT_EXP_INLINE=1), GRI-3.0 at full
# effort:
#   1. the rates alone at 1e6 cells under register caps (--rates-min-blocks 0, 6, 8), twice,
#      alternating;
#   2. the (T, Y) Jacobian in rows of 2 at 1e5 cells, twice, alternating;
#   3. Nsight Compute's counters of the rates kernel at 1e5 cells (local and global L1 sectors,
#      instructions, occupancy, stall reasons), both ways.
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/exp_inline_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates || exit 1
echo "built in $(($(date +%s) - t0)) s"
rates=./build-gpu/bench/kinetics_rates
pick() { grep -E '^RESULT kinetics_dualjit' "$1" | grep -oE "($2)=[^ ]+" | paste -sd' '; }
for round in 1 2; do
  for inl in 0 1; do
    for m in 0 6 8; do
      f=$out/rates_i${inl}_m${m}_$round.txt
      DUALJIT_EXP_INLINE=$inl DUALJIT_CACHE_DIR=$PWD/build-gpu/cache-$inl timeout 60 $rates \
        --effort full --outputs rates --rates-min-blocks $m --reps 7 1000000 > "$f" 2>&1
      echo "inline $inl, min blocks $m, round $round: $(pick "$f" 'w_ms|wdot_sum')" \
        "$(grep -oE 'registers=[0-9]+|spill[a-z_]*=[^ ]+' "$f" | head -3 | paste -sd' ')"
    done
  done
done
echo "rates at $(($(date +%s) - t0)) s"
for round in 1 2; do
  for inl in 0 1; do
    f=$out/jacobian_i${inl}_$round.txt
    DUALJIT_EXP_INLINE=$inl DUALJIT_CACHE_DIR=$PWD/build-gpu/cache-$inl timeout 120 $rates \
      --effort full --rows 2 --reps 7 100000 > "$f" 2>&1
    echo "inline $inl, Jacobian, round $round: $(pick "$f" 'J_ms|J_abs_sum')"
  done
done
echo "Jacobians at $(($(date +%s) - t0)) s"
counters=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
counters+=,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sectors.sum
counters+=,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
counters+=,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct
counters+=,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
counters+=,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
counters+=,smsp__warp_issue_stalled_wait_per_warp_active.pct
counters+=,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct
counters+=,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct
counters+=,smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct
counters+=,smsp__issue_active.avg.pct_of_peak_sustained_active
for inl in 0 1; do
  DUALJIT_EXP_INLINE=$inl DUALJIT_CACHE_DIR=$PWD/build-gpu/cache-$inl NCU_SKIP=1 NCU_COUNT=1 \
    NCU_METRICS=$counters timeout 120 bash bench/ncu_kernels.sh "$out/counters_i$inl.txt" \
    "_values" $rates --effort full --outputs rates --reps 1 100000
  echo "counters, inline $inl (rc=$?):"
  grep -E "__" "$out/counters_i$inl.txt" | grep -v "==PROF==" | awk '{print $1, $(NF-1), $NF}'
done
echo "done at $(($(date +%s) - t0)) s"
