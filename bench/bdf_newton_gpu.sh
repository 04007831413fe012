#!/usr/bin/env bash
# One device call for what bounds the batched BDF's kernels (issue 17; bench/RESULTS.md,
# "Batched ignition: where the BDF's stages go" and after): builds kinetics_ignition, runs it at
# CELLS (its RESULT line splits the stages into f, rhs_s, and the Newton kernel, newton_s), then
# Nsight Compute on a few launches of each kernel NCU_KERNELS names in a smaller batch, with the
# sections that say what bounds them (warp stalls, occupancy, memory). Logs under $OUT, one
# file per step.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/bdf_newton_gpu.sh [CELLS]   (default 100000)
# Environment: NCU_CELLS (2000: the profiled batch, after a probe batch of 3 reactors),
# NCU_KERNELS ("dj_bdf_newton:40 dj_bdf_factor:10": kernel regex and the launches to skip of
# each launch shape, so that the probe's one-block launches are told apart from the batch's),
# NCU_COUNT (2 of each shape), BENCH_FLAGS ("--effort full --rows 2", issue 16's fastest
# GRI-3.0 kernels).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_ignition || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-cache
flags=${BENCH_FLAGS:---effort full --rows 2}
./build-gpu/bench/kinetics_ignition $flags "${1:-100000}" 2>&1 | tee "$out/kinetics_ignition.txt"
sections="WarpStateStats Occupancy LaunchStats SchedulerStats MemoryWorkloadAnalysis SpeedOfLight"
for pick in ${NCU_KERNELS:-dj_bdf_newton:40 dj_bdf_factor:10}; do
  kernel=${pick%%:*}
  NCU_SKIP=${pick##*:} NCU_COUNT=${NCU_COUNT:-2} NCU_SECTIONS=$sections NCU_FILTER=per-launch-config \
    bash bench/ncu_kernels.sh "$out/ncu_$kernel.txt" "$kernel" \
    ./build-gpu/bench/kinetics_ignition $flags --probe 3 "${NCU_CELLS:-2000}"
  grep -E "^  dj_|Duration|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Memory Throughput|Compute \(SM\)|Block Limit (Reg|Shared)" \
    "$out/ncu_$kernel.txt" | head -80
done
