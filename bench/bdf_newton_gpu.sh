#!/usr/bin/env bash
# One device call for what bounds the batched BDF's Newton iterations (issue 17; bench/RESULTS.md,
# "Batched ignition: where the BDF's stages go"): builds kinetics_ignition, runs it at CELLS
# (its RESULT line splits the stages into f, rhs_s, and the Newton kernel, newton_s), then
# Nsight Compute on a sample of dj_bdf_newton launches and of the right-hand side's kernel of a
# smaller batch, with the sections that say what bounds them (warp stalls, occupancy, memory).
# Logs under $OUT, one file per step.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/bdf_newton_gpu.sh [CELLS]   (default 100000)
# Environment: NCU_CELLS (10000: the profiled batch), NCU_SKIP (200 launches of each kernel:
# past the probe batch and the first rounds), NCU_COUNT (4), BENCH_FLAGS ("--effort full
# --rows 2", issue 16's fastest GRI-3.0 kernels).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_ignition || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-cache
flags=${BENCH_FLAGS:---effort full --rows 2}
./build-gpu/bench/kinetics_ignition $flags "${1:-100000}" 2>&1 | tee "$out/kinetics_ignition.txt"
sections="WarpStateStats Occupancy LaunchStats SchedulerStats MemoryWorkloadAnalysis"
for kernel in dj_bdf_newton "dj_reactor.*_value"; do
  NCU_SKIP=${NCU_SKIP:-200} NCU_COUNT=${NCU_COUNT:-4} NCU_SECTIONS=$sections \
    bash bench/ncu_kernels.sh "$out/ncu_${kernel%%[.]*}.txt" "$kernel" \
    ./build-gpu/bench/kinetics_ignition $flags --probe 8 "${NCU_CELLS:-10000}"
  grep -E "Duration|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Memory Throughput|Block Limit" \
    "$out/ncu_${kernel%%[.]*}.txt" | head -40
done
