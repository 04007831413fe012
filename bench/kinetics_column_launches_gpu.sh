#!/usr/bin/env bash
# One device call: the tape columns' groups in launches of at most TapeColumnsSettings::
# launch_groups (backends/assembly/tape_columns_launches.h), verified and measured: the GPU
# cases of the tape columns and ReactorCells (DUALJIT_REQUIRE_GPU=1); GRI-3.0's cold compile
# per output from an empty cache with each NVRTC compile's seconds and finishing time (the
# debug log and the cache entries' metadata); the warm run's Jc and J at CELLS; Nsight
# Compute's duration of each launch of Jc, then its sections for the tapes' launch and the
# heaviest columns' launch. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_column_launches_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends test_examples || exit 1
cells=${1:-100000}
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 150 test_backends -ts=gpu -tc="device tape columns*,CUDA backend*"
gpu_tests 200 test_examples -ts=gpu -tc="*ReactorCells*"

# Cold, then warm, in a cache of their own (kept off $OUT: the images are large).
export DUALJIT_CACHE_DIR=/tmp/dualjit-cold-cache
rm -rf "$DUALJIT_CACHE_DIR"
for run in cold warm; do
  DUALJIT_LOG_LEVEL=debug timeout 150 ./build-gpu/bench/kinetics_rates --effort full --rows 2 \
    --reps 7 "$cells" > "$out/$run.txt" 2>&1
  echo "$run rc=$? at $(($(date +%s) - t0)) s"
  grep -E "^RESULT kinetics_(compile|dualjit)" "$out/$run.txt" |
    grep -oE "output=[^ ]+|compiled_now=[^ ]+|first_call_s=[^ ]+|J_ms=[^ ]+|Jc_ms=[^ ]+" |
    paste -sd' ' | sed 's/ output=/\n output=/g'
done
echo "NVRTC compiles, in the order they finished (cold run):"
grep -oE "^\[[^]]*\] \[debug\] dualjit: NVRTC compiled [^ ]+ for [^ ]+ in [0-9.]+ s" \
  "$out/cold.txt" | sed -E 's/\[debug\] dualjit: NVRTC compiled //; s/dj_kinetics_gri30_//'
python3 - "$DUALJIT_CACHE_DIR" > "$out/cache_compile_seconds.txt" <<'PY'
import os, re, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        b = open(os.path.join(root, f), "rb").read(1 << 16)
        s, c = re.search(rb"symbol=([^\n]+)", b), re.search(rb"compile_seconds=([0-9.]+)", b)
        if s and c: print(f"{float(c.group(1)):8.2f} {s.group(1).decode()}")
PY
sort -rn "$out/cache_compile_seconds.txt" | head -20
echo "compiles logged at $(($(date +%s) - t0)) s"

NCU_COUNT=9 timeout 100 bash bench/ncu_kernels.sh "$out/ncu_launches.txt" "columns_" \
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 "$cells"
grep -E " us " "$out/ncu_launches.txt"
NCU_COUNT=2 NCU_SECTIONS="SpeedOfLight MemoryWorkloadAnalysis ComputeWorkloadAnalysis \
WarpStateStats Occupancy LaunchStats SchedulerStats InstructionStats" timeout 150 \
  bash bench/ncu_kernels.sh "$out/ncu_sections.txt" "columns_jacobian|tape_columns_g7_9" \
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 "$cells"
echo "ncu sections rc=$?"
grep -E "^  [a-z_]+|Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|\
Issued Ipc|No Eligible|Local Memory|Stall|Warp Cycles Per Issued" "$out/ncu_sections.txt" |
  cut -c1-120 | head -90
echo "done at $(($(date +%s) - t0)) s"
