#!/usr/bin/env bash
# One device call for issue 17: builds kinetics_ignition and the test suites (bench/gpu_build.sh),
# runs the batched-ignition benchmark with --write (cases and results into $WORK), then the GPU
# ignition tests (DUALJIT_REQUIRE_GPU=1), each under a time limit so that one cannot starve the
# other; logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/ignition_gpu.sh [CELLS ...]
#     (default 1000 10000 100000)
# Environment: BENCH_FLAGS (extra kinetics_ignition flags), BENCH_TIMEOUT (s, 300),
# TEST_TIMEOUT (s, 240), TESTS (doctest filter of the GPU cases, "*ignition*"), WORK
# (/tmp/dj-ignition).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
work=${WORK:-/tmp/dj-ignition}
mkdir -p "$out" "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
start=$(date +%s)
gpu_build "$out" kinetics_ignition test_examples test_solvers || exit 1
echo "built in $(( $(date +%s) - start )) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-cache
timeout "${BENCH_TIMEOUT:-300}" ./build-gpu/bench/kinetics_ignition --write "$work" \
  ${BENCH_FLAGS:-} ${*:-1000 10000 100000} 2>&1 | tee "$out/kinetics_ignition.txt"
cp "$work"/ignition_*.json "$out/" 2>/dev/null
export DUALJIT_REQUIRE_GPU=1
for s in test_solvers test_examples; do
  timeout "${TEST_TIMEOUT:-240}" ./build-gpu/tests/$s -ts=gpu -tc="${TESTS:-*ignition*}" \
    > "$out/$s.log" 2>&1
  echo "$s (exit $?): $(grep -E "test cases" "$out/$s.log")"
  grep -E "MESSAGE" "$out/$s.log" | head -20
  grep -B3 -A6 "ERROR" "$out/$s.log" | head -30
done
