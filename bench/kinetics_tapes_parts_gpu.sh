#!/usr/bin/env bash
# One device call: the tapes' chunk in parts (bench/sweeps/kinetics_tapes_parts.txt,
# kinetics_sweep.sh at CELLS), the tape columns' GPU cases, then Nsight Compute on the tapes'
# launches of each line (the stage's and the parts' where in parts): time, registers, warps,
# issue slots and stall reasons. Summary lines on stdout, logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_tapes_parts_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=$(realpath -m "${OUT:-gpu-out}")
sweep=${SWEEP:-bench/sweeps/kinetics_tapes_parts.txt}
t0=$(date +%s)
bash bench/kinetics_sweep.sh $sweep "$cells" | grep -E "^[a-z0-9_]+: |rc [^0]"
echo "sweep at $(($(date +%s) - t0)) s"
if [[ ${TESTS:-1} != 0 ]]; then
  TESTS="device tape columns*,*chunk in parts*" timeout 200 bash bench/gpu_tests.sh test_backends \
    > "$out/tests.txt" 2>&1
  grep -E "test cases|FAILED|ERROR" "$out/test_backends.log" | head -5
  echo "tests at $(($(date +%s) - t0)) s"
fi
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
metrics=gpu__time_duration.sum,launch__registers_per_thread
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum
for s in long_scoreboard no_instruction wait short_scoreboard lg_throttle; do
  metrics+=,smsp__warp_issue_stalled_${s}_per_warp_active.pct
done
while IFS='|' read -r name envs flags; do
  name=$(echo $name)
  [[ -z $name || $name == \#* ]] && continue
  NCU_COUNT=2 NCU_METRICS=$metrics timeout 100 bash bench/ncu_kernels.sh "$out/ncu_$name.txt" \
    '_k0_1' ./build-gpu/bench/kinetics_rates $flags --reps 1 "$cells"
  # A line per launch: its symbol's tail, then each metric's value.
  echo "$name: $(awk '/^  dj_/ { printf "\n   %s:", substr($1, length($1) - 17) }
    /^    [a-z]/ { m = $1; gsub(/smsp__warp_issue_stalled_|smsp__|sm__|gpu__|launch__|_per_warp_active.pct|.avg.pct_of_peak_sustained_active|.sum/, "", m);
      printf " %s=%s", m, $NF }' "$out/ncu_$name.txt")"
done < $sweep
echo "done at $(($(date +%s) - t0)) s"
