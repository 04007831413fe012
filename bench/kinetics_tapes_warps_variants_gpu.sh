#!/usr/bin/env bash
# Experiment, one device call: the variants of bench/sweeps/kinetics_tapes_warps_variants.txt
# (kinetics_sweep.sh at CELLS), then Nsight Compute's time, registers, warps and stall reasons
# for the tapes' launch of each. Summary lines on stdout, logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_tapes_warps_variants_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=$(realpath -m "${OUT:-gpu-out}")
sweep=bench/sweeps/kinetics_tapes_warps_variants.txt
t0=$(date +%s)
bash bench/kinetics_sweep.sh $sweep "$cells" | grep -E "^[a-z0-9_]+: |rc [^0]"
echo "sweep at $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
metrics=gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
for s in long_scoreboard short_scoreboard barrier wait math_pipe_throttle no_instruction branch_resolving dispatch_stall lg_throttle mio_throttle; do
  metrics+=,smsp__warp_issue_stalled_${s}_per_warp_active.pct
done
while IFS='|' read -r name envs flags; do
  name=$(echo $name)
  [[ -z $name || $name == \#* ]] && continue
  env $envs NCU_COUNT=1 NCU_METRICS=$metrics timeout 100 bash bench/ncu_kernels.sh "$out/ncu_$name.txt" \
    '_k0_1' ./build-gpu/bench/kinetics_rates $flags --reps 1 "$cells"
  echo "$name: $(grep -E '^    [a-z]' "$out/ncu_$name.txt" | awk '{print $1"="$NF}' |
    sed -E 's/(smsp__warp_issue_stalled_|smsp__|sm__|gpu__|launch__)//; s/_per_warp_active.pct|.avg.pct_of_peak_sustained_active|.sum//' | tr '\n' ' ')"
done < $sweep
echo "done at $(($(date +%s) - t0)) s"
