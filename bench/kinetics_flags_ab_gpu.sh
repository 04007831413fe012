#!/usr/bin/env bash
# One device call: kinetics_rates (GRI-3.0, full effort, rows of 2, 1e5 and 1e6 cells) and the
# batched ignition (BDF, 1e5 GRI-3.0 reactors) under each of the flag sets given, both run by
# both programs, each set twice, alternating, each with its own kernel cache (its first round
# compiles cold). Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_flags_ab_gpu.sh "--min-blocks 0" \
#     "--min-blocks 1"
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates kinetics_ignition || exit 1
for round in 1 2; do
  i=0
  for flags in "$@"; do
    i=$((i + 1))
    read -r -a f <<< "$flags"
    log="$out/rates${i}_$round.txt"
    DUALJIT_CACHE_DIR=$PWD/build-gpu/flags-cache$i timeout 150 ./build-gpu/bench/kinetics_rates \
      --effort full --rows 2 --reps 7 "${f[@]}" 100000 1000000 > "$log" 2>&1
    echo "[$flags] rates round $round (rc=$?): $(grep -E '^RESULT' "$log" |
      grep -oE "(cells|w_ms|J_ms|J_abs_sum)=[^ ]+" | paste -sd' ')"
    log="$out/ignition${i}_$round.txt"
    DUALJIT_CACHE_DIR=$PWD/build-gpu/flags-cache$i timeout 120 ./build-gpu/bench/kinetics_ignition \
      --method bdf --effort full --rows 2 "${f[@]}" 100000 > "$log" 2>&1
    echo "[$flags] ignition round $round (rc=$?): $(grep -E '^RESULT' "$log" |
      grep -oE "(seconds|reactors_per_s|steps_mean|jacobian_s|rhs_s)=[^ ]+" | paste -sd' ')"
    grep -h "warning" "$out"/rates${i}_$round.txt "$log" | cut -c1-200
  done
done
echo "done at $(($(date +%s) - t0)) s"
