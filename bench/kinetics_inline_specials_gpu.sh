#!/usr/bin/env bash
# GRI-3.0's J and Jc with the transcendentals out of line (the default) and inline
# (DUALJIT_INLINE_SPECIALS=1), in turn; then the tapes' launch's L2 and DRAM traffic and its
# instruction-fetch and long-scoreboard stalls under each. The tapes' launch writes 80.5 M L2
# sectors where its tape is 36.9 M: the rest is local memory, most of it the registers saved
# around its ~650 out-of-line exp calls.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_inline_specials_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${1:-100000}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/inline-cache
k=./build-gpu/bench/kinetics_rates
for i in 1 2; do
  for s in 0 1; do
    log=$(DUALJIT_INLINE_SPECIALS=$s $k --effort full --rows 2 --reps 7 "$cells" 2>&1)
    echo "inline=$s: $(grep -E '^RESULT kinetics_dualjit' <<< "$log" | grep -oE '(J_ms|Jc_ms|Jcol_ms|J_abs_sum)=[^ ]+' | head -4 | tr '\n' ' ')"
    echo "   first calls (s): $(grep -E '^RESULT kinetics_compile' <<< "$log" | grep -oE 'first_call_s=[^ ]+' | sort -u | tr '\n' ' ')"
  done
done
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum,launch__registers_per_thread
for s in 0 1; do
  echo "== inline=$s, the tapes' launch"
  DUALJIT_INLINE_SPECIALS=$s ncu --clock-control none -k "regex:_tp_k0_1" --launch-count 1 --metrics $m \
    $k --effort full --rows 2 --reps 1 "$cells" 2>&1 | grep -E "^ +[a-z_]+__" | sed 's/  */ /g'
done
