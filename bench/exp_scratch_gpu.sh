#!/usr/bin/env bash
# One device call: the outlined table exp with 0, 1 or 2 unused parameters
# (DUALJIT_EXP_SCRATCH, jit/driver_text.cpp: its temporaries in parameter registers instead of
# registers the callee saves to local memory around every call), GRI-3.0's rates alone and the
# (T, Y) Jacobian in rows of 2, full effort, 1e6 and 1e5 cells, each variant with a cache of
# its own, twice, alternating. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/exp_scratch_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates || exit 1
echo "built in $(($(date +%s) - t0)) s"
for round in 1 2; do
  for v in 0 1 2; do
    f=$out/rates_s${v}_$round.txt
    DUALJIT_EXP_SCRATCH=$v DUALJIT_CACHE_DIR=$PWD/build-gpu/cache-$v timeout 60 \
      ./build-gpu/bench/kinetics_rates --effort full --outputs rates --reps 7 1000000 > "$f" 2>&1
    echo "scratch $v, rates, round $round: $(grep -E '^RESULT kinetics_dualjit' "$f" |
      grep -oE '(w_ms|wdot_sum)=[^ ]+' | head -2 | paste -sd' ')"
  done
done
echo "rates at $(($(date +%s) - t0)) s"
[[ ${JACOBIAN:-1} == 1 ]] || exit 0
for v in 0 2; do
  f=$out/jacobian_s$v.txt
  DUALJIT_EXP_SCRATCH=$v DUALJIT_CACHE_DIR=$PWD/build-gpu/cache-$v timeout 120 \
    ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 7 100000 > "$f" 2>&1
  echo "scratch $v, Jacobian: $(grep -E '^RESULT kinetics_dualjit' "$f" |
    grep -oE '(J_ms|J_abs_sum)=[^ ]+' | head -2 | paste -sd' ')"
done
echo "done at $(($(date +%s) - t0)) s"
