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
# On a machine of several GPUs the suites run at once: the first sees every GPU (its cases run
# on device 0; the driver's tests select the others too), each other suite one of its own.
gpus=$(nvidia-smi -L | wc -l)
pids=()
i=0
for s in $suites; do
  if ((gpus > 1)); then
    visible=$( ((i == 0)) && seq -s, 0 $((gpus - 1)) || echo $((i % gpus)))
    CUDA_VISIBLE_DEVICES=$visible ./build-gpu/tests/$s -ts=gpu ${TESTS:+-tc="$TESTS"} \
      > "$out/$s.log" 2>&1 &
    pids+=($!)
  else
    ./build-gpu/tests/$s -ts=gpu ${TESTS:+-tc="$TESTS"} > "$out/$s.log" 2>&1
    pids+=($?)
  fi
  i=$((i + 1))
done
status=0
i=0
for s in $suites; do
  if ((gpus > 1)); then wait "${pids[$i]}" || status=1; else ((pids[i] == 0)) || status=1; fi
  i=$((i + 1))
  echo "$s: $(grep -E "test cases" "$out/$s.log")"
  grep -B3 -A6 "ERROR" "$out/$s.log" | head -40
done
exit $status
