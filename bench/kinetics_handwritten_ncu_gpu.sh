#!/usr/bin/env bash
# One device call: Nsight Compute on the hand-written kinetics peer's kernels
# (bench/peers/kinetics_handwritten.cu), to say where their time goes: the thread-per-cell
# rates (local arrays, blocks of 128), the warp-per-cell rates (blocks of 128) and the
# block-per-cell Jacobian (atomics, blocks of 64), one launch each after warm-up, with the
# sections that split a launch's time (throughputs, warp stalls, issue, occupancy, memory, the
# stalls by source line). STATES_DIR holds what `kinetics_rates --write DIR CELLS` wrote
# (kinetics_gri30.json and one kinetics_gri30_CELLS.bin; carry it). Logs under $OUT.
#
#   STATES_DIR=.dev/hw OUT=$OUT bash bench/kinetics_handwritten_ncu_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
states=$(realpath "${STATES_DIR:?STATES_DIR: the directory kinetics_rates --write filled}")
work=${WORK:-/tmp/dj-kinetics-hw}
mkdir -p "$out" "$work"
t0=$(date +%s)
nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o "$work/kinetics_handwritten" \
  bench/peers/kinetics_handwritten.cu > "$out/peer_build.log" 2>&1 || { cat "$out/peer_build.log"; exit 1; }
echo "built in $(($(date +%s) - t0)) s"
bin=$(ls "$states"/kinetics_gri30_*.bin | head -1)
peer=("$work/kinetics_handwritten" "$states/kinetics_gri30.json" "$bin" --reps 1)
sections="SpeedOfLight ComputeWorkloadAnalysis WarpStateStats SchedulerStats Occupancy
  LaunchStats MemoryWorkloadAnalysis InstructionStats SourceCounters"
# Kernel names as ncu matches them: namespaced, the Jacobian templated.
for run in "rates_kernel;(^|:)rates_kernel$;local;128" "rates_kernel_warp;rates_kernel_warp;warp;128" \
  "jacobian_kernel;jacobian_kernel;jacobian;64"; do
  IFS=";" read -r kernel regex mode block <<< "$run"
  flags=(--block "$block")
  [[ $mode == jacobian ]] && flags+=(--jacobian) || flags+=(--arrays "$mode")
  NCU_SKIP=1 NCU_COUNT=1 NCU_SECTIONS="$sections" timeout 150 bash bench/ncu_kernels.sh \
    "$out/ncu_${kernel}_$mode.txt" "$regex" "${peer[@]}" "${flags[@]}"
  echo "== $kernel ($mode, blocks of $block), rc=$? at $(($(date +%s) - t0)) s"
  grep -E "^    (Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|DRAM Thr|Executed Ipc A|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Avg. Executed Instr|Executed Instructions  |Branch Instructions Ratio|Avg. Divergent|L1/TEX Cache Thr|Shared Memory)" \
    "$out/ncu_${kernel}_$mode.txt" | sed 's/   */ /g'
  grep -E "^    (WRN|OPT|INF)? *.*(stall|Stall|bank|divergen|uncoalesced|excessive)" \
    "$out/ncu_${kernel}_$mode.txt" | cut -c1-400 | head -8
done
echo "done at $(($(date +%s) - t0)) s"
