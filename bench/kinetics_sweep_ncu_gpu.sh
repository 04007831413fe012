#!/usr/bin/env bash
# One device call: the configurations of SWEEP timed with CUDA events (bench/kinetics_sweep.sh,
# 1e5 cells), then Nsight Compute's duration of each Jacobian launch (tapes' and rows', cell-major)
# for the configurations NCU names (space-separated names from SWEEP), from the sweep's warm
# cache. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT SWEEP=FILE NCU="NAME ..." bash bench/kinetics_sweep_ncu_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates || exit 1
OUT=$out/sweep timeout 300 bash bench/kinetics_sweep.sh "$SWEEP" 100000 | grep -E "^[a-z0-9_]+: "
echo "swept at $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
for name in ${NCU:-}; do
  flags=$(awk -F'|' -v n="$name" '{g=$1; gsub(/ /, "", g)} g == n {print $3}' "$SWEEP")
  NCU_COUNT=12 timeout 120 bash bench/ncu_kernels.sh "$out/ncu_$name.txt" "jacobian_w54.*_sf_k" \
    ./build-gpu/bench/kinetics_rates --reps 1 $flags 100000
  echo "$name (rc=$?, at $(($(date +%s) - t0)) s):"
  grep -E " us " "$out/ncu_$name.txt"
done
echo "done at $(($(date +%s) - t0)) s"
