#!/usr/bin/env bash
# One device call: where the GRI-3.0 (T, Y) Jacobian's time goes, launch by launch (the tapes'
# launch and the rows' launches, cell-major, full effort, rows of 2, 1e5 cells): Nsight
# Compute's durations, then the sections that split each launch's time (throughputs, warp
# stalls, occupancy, memory with the spills' local traffic, the L1 and L2 tables), one launch
# each; then the block layouts of SWEEP (default bench/sweeps/kinetics_tape_layout.txt; empty:
# none) timed with CUDA events. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT [SWEEP=FILE] bash bench/kinetics_jacobian_ncu_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/ncu-cache
rates=(./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1)
timeout 120 "${rates[@]}" 100000 > "$out/warm.txt" 2>&1
echo "compiled (rc=$?) at $(($(date +%s) - t0)) s: $(grep -E '^RESULT' "$out/warm.txt" |
  grep -oE '(J_ms|J_abs_sum)=[^ ]+' | paste -sd' ')"
regex="jacobian_w54.*_sf_k"
NCU_COUNT=8 timeout 150 bash bench/ncu_kernels.sh "$out/ncu_durations.txt" "$regex" \
  "${rates[@]}" 100000
echo "durations (rc=$?) at $(($(date +%s) - t0)) s:"
grep -E " us " "$out/ncu_durations.txt"
sections="SpeedOfLight ComputeWorkloadAnalysis WarpStateStats SchedulerStats Occupancy
  LaunchStats MemoryWorkloadAnalysis MemoryWorkloadAnalysis_Tables"
NCU_COUNT=4 NCU_SECTIONS="$sections" timeout 200 bash bench/ncu_kernels.sh \
  "$out/ncu_sections.txt" "$regex" "${rates[@]}" 100000
echo "sections (rc=$?) at $(($(date +%s) - t0)) s:"
grep -E "^  dj_|^    (Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|DRAM Thr|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Local Memory Spilling|Theoretical Occ|Block Limit Reg)" \
  "$out/ncu_sections.txt" | sed 's/   */ /g' | cut -c1-120
grep -E "^    (OPT|WRN) .*(stall|Stall|spill|local)" "$out/ncu_sections.txt" | cut -c1-300 | head -8
sweep=${SWEEP-bench/sweeps/kinetics_tape_layout.txt}
[[ -n $sweep ]] && OUT=$out/sweep timeout 240 bash bench/kinetics_sweep.sh "$sweep" 100000 |
  grep -E "^[a-z0-9_]+: "
echo "done at $(($(date +%s) - t0)) s"
