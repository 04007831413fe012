#!/usr/bin/env bash
# Experiment, one device call: bench/sweeps/kinetics_windows.txt (kinetics_sweep.sh at CELLS),
# then the tape columns' GPU case with the cells in 4 windows. Summary lines on stdout.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_windows_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=$(realpath -m "${OUT:-gpu-out}")
t0=$(date +%s)
bash bench/kinetics_sweep.sh bench/sweeps/kinetics_windows.txt "$cells" | grep -E "^[a-z0-9_]+: |rc [^0]"
echo "sweep at $(($(date +%s) - t0)) s"
DUALJIT_EXP_WINDOWS=4 TESTS="device tape columns*" timeout 200 bash bench/gpu_tests.sh \
  test_backends > "$out/tests.txt" 2>&1
grep -E "test cases|FAILED|ERROR" "$out/test_backends.log" | head -5
echo "done at $(($(date +%s) - t0)) s"
