#!/usr/bin/env bash
# One device call: rows composed from stored rows (jit/composed_outputs.h; the heat-release row of
# the kinetics Jacobian from the species' rows) on the GPU:
#   1. the GPU cases of test_backends (the CUDA backend against the reference, composed rows on
#      one thread and across warps) and of test_examples (kinetics and ignition), with
#      DUALJIT_REQUIRE_GPU=1;
#   2. bench/kinetics_peers.sh: rates and (T, Y) Jacobian at full effort, row groups of 2, with
#      the JAX peer on the same states;
#   3. the Jacobian with --compose-rows off in the same call (the heat-release row, a sum over
#      the species' finished rates, computed from the state like the other rows);
#   4. the batched ignition (BDF, GRI-3.0 reactors, full effort, rows of 2) and Cantera on the
#      host's cores on a subset of its cases (PYTHON_WHEELS: the Cantera and ruamel.yaml wheels,
#      bench/kinetics_peers.sh).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml PYTHON_WHEELS=.whl OUT=$OUT bash bench/composed_rows_gpu.sh
#     [CELLS ...]   (default 100000 1000000; IGNITION_CELLS, default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${*:-100000 1000000}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition test_examples test_backends test_solvers || exit 1
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
DUALJIT_REQUIRE_GPU=1 timeout 120 ./build-gpu/tests/test_backends -ts=gpu \
  -tc="CUDA backend*" > "$out/tests_backends.txt" 2>&1
echo "backend tests rc=$? at $(($(date +%s) - t0)) s"
tail -3 "$out/tests_backends.txt"
DUALJIT_REQUIRE_GPU=1 timeout 200 ./build-gpu/tests/test_examples -ts=gpu \
  -tc="*ReactorCells*,*ignition*" > "$out/tests_examples.txt" 2>&1
echo "example tests rc=$? at $(($(date +%s) - t0)) s"
tail -3 "$out/tests_examples.txt"
SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=5 BUILD_DIR=build-gpu \
  OUT=$out/peers timeout 240 bash bench/kinetics_peers.sh $cells > "$out/peers.txt" 2>&1
grep -E "RESULT kinetics_(dualjit|jax)" "$out/peers.txt" | cut -c1-400
cat "$out/peers/summary.txt" 2>/dev/null | head -40
echo "peers done at $(($(date +%s) - t0)) s"
timeout 90 ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 5 \
  --compose-rows off 100000 > "$out/jacobian_no_compose.txt" 2>&1
echo "--compose-rows off:"
grep -E "RESULT|registers|spill" "$out/jacobian_no_compose.txt" | cut -c1-400
timeout 90 ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 5 \
  100000 > "$out/jacobian_compose.txt" 2>&1
echo "--compose-rows on:"
grep -E "RESULT|registers|spill" "$out/jacobian_compose.txt" | cut -c1-400
echo "rates and Jacobians done at $(($(date +%s) - t0)) s"
PYTHON_WHEELS=${PYTHON_WHEELS:-} SKIP="canterax tests" BENCH_FLAGS="--effort full --rows 2" \
  CANTERA_CELLS=2048 OUT=$out/ignition timeout 240 bash bench/ignition_gpu.sh \
  ${IGNITION_CELLS:-100000} > "$out/ignition.txt" 2>&1
grep -E "RESULT|reactors/s|stage|cells/s|final" "$out/ignition.txt" | cut -c1-300
echo "done at $(($(date +%s) - t0)) s"
