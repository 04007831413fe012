#!/usr/bin/env bash
# One device call: the tapes' launch in warp parts (bench/sweeps/kinetics_tapes_warps.txt,
# kinetics_sweep.sh at CELLS), the tape columns' GPU case and the warp parts' tests, then Nsight
# Compute on the tapes' launch of each line: time, registers, issue slots, long-scoreboard
# stalls, DRAM bytes.
# Summary lines on stdout, logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_tapes_warps_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=$(realpath -m "${OUT:-gpu-out}")
sweep=bench/sweeps/kinetics_tapes_warps.txt
t0=$(date +%s)
bash bench/kinetics_sweep.sh $sweep "$cells" | grep -E "^[a-z0-9_]+: |rc [^0]"
echo "sweep at $(($(date +%s) - t0)) s"
TESTS="device tape columns*,*warp parts*" timeout 200 bash bench/gpu_tests.sh test_backends > "$out/tests.txt" 2>&1
grep -E "test cases|FAILED|ERROR" "$out/test_backends.log" | head -5
echo "tests at $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
metrics=gpu__time_duration.sum,launch__registers_per_thread,dram__bytes.sum
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
while IFS='|' read -r name envs flags; do
  name=$(echo $name)
  [[ -z $name || $name == \#* ]] && continue
  NCU_COUNT=2 NCU_METRICS=$metrics timeout 100 bash bench/ncu_kernels.sh "$out/ncu_$name.txt" \
    '_k0_1' ./build-gpu/bench/kinetics_rates $flags --reps 1 "$cells"
  echo "$name: $(grep -E '^    [a-z]' "$out/ncu_$name.txt" | tail -6 | awk '{print $1"="$NF}' |
    sed -E 's/(smsp__|sm__|gpu__|launch__|dram__)//; s/_per_warp_active.pct|.avg.pct_of_peak_sustained_active|.sum//' | tr '\n' ' ')"
done < $sweep
echo "done at $(($(date +%s) - t0)) s"
