#!/usr/bin/env bash
# One device call's verification: builds the test suites (Release, build-gpu) and runs their
# GPU cases with DUALJIT_REQUIRE_GPU=1, so that a missing GPU fails instead of skipping.
# Logs under $OUT (default gpu-out). Usage: bench/gpu_tests.sh [suite ...]
# (default: test_backends test_solvers test_examples); TESTS (a doctest -tc filter, e.g.
# "*ignition*") runs only the GPU cases it names.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
suites=${*:-test_backends test_solvers test_examples}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
# YAML_CPP_ROOT: yaml-cpp for the kinetics (bench/gpu_build.sh).
source bench/gpu_build.sh
gpu_build "$out" $suites || exit 1
export DUALJIT_REQUIRE_GPU=1 DUALJIT_CACHE_DIR=$PWD/build-gpu/test-cache
status=0
for s in $suites; do
  ./build-gpu/tests/$s -ts=gpu ${TESTS:+-tc="$TESTS"} > "$out/$s.log" 2>&1 || status=1
  echo "$s: $(grep -E "test cases" "$out/$s.log")"
  grep -B3 -A6 "ERROR" "$out/$s.log" | head -40
done
exit $status
