#!/usr/bin/env bash
# One device call: where the (T, Y) Jacobian's time goes with the heat-release row composed from
# the species' rows (jit/composed_outputs.h) and without, per launch: this tree and an older one
# (OLD_TREE, a source tree without composition, e.g. `git archive 326104b` unpacked into
# .dev/old and carried) are built side by side, and for each:
#   1. Nsight Compute's duration of every Jacobian launch at 1e5 GRI-3.0 cells (bench/
#      ncu_kernels.sh; kinetics_rates --effort full --rows 2), and for the composed launch its
#      occupancy and memory sections;
#   2. the batched ignition (BDF, 1e5 GRI-3.0 reactors, full effort, rows of 2).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/composed_rows_profile_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
old=${OLD_TREE:?OLD_TREE: the source tree to compare with}
mkdir -p "$out/old"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition || exit 1
(cd "$old" && gpu_build "$out/old" kinetics_rates kinetics_ignition) || exit 1
echo "built in $(($(date +%s) - t0)) s"
for tree in new old; do
  dir=$PWD
  [[ $tree == old ]] && dir=$(cd "$old" && pwd)
  export DUALJIT_CACHE_DIR=$dir/build-gpu/cache
  "$dir/build-gpu/bench/kinetics_rates" --effort full --rows 2 --reps 1 100000 \
    > "$out/rates_$tree.txt" 2>&1  # compiles (cold), so that the profile below runs warm
  grep -E "RESULT kinetics_dualjit" "$out/rates_$tree.txt" | cut -c1-300
  NCU_COUNT=40 timeout 150 bash bench/ncu_kernels.sh "$out/ncu_$tree.csv" "jacobian" \
    "$dir/build-gpu/bench/kinetics_rates" --effort full --rows 2 --reps 1 100000 \
    > "$out/ncu_$tree.txt" 2>&1
  echo "$tree tree, Jacobian launches (us):"
  head -40 "$out/ncu_$tree.txt"
  echo "ignition ($tree):"
  timeout 120 "$dir/build-gpu/bench/kinetics_ignition" --method bdf --effort full --rows 2 \
    100000 > "$out/ignition_$tree.txt" 2>&1
  grep -E "^RESULT" "$out/ignition_$tree.txt" | cut -c1-400
  echo "at $(($(date +%s) - t0)) s"
done
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
NCU_SECTIONS="Occupancy LaunchStats MemoryWorkloadAnalysis SpeedOfLight WarpStateStats" \
  NCU_COUNT=1 timeout 120 bash bench/ncu_kernels.sh "$out/ncu_composed_sections.txt" \
  "_cr_k27_28" ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 100000 \
  > /dev/null 2>&1
grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Local|Stall|Warp Cycles" \
  "$out/ncu_composed_sections.txt" | head -30
echo "done at $(($(date +%s) - t0)) s"
