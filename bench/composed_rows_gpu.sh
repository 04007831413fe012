#!/usr/bin/env bash
# One device call: rows composed from stored rows (jit/composed_outputs.h; the heat-release row of
# the kinetics (T, Y) Jacobian from the species' rows) on the GPU:
#   1. the GPU cases of test_backends (the CUDA backend against the reference, composed rows on
#      one thread and across warps) and of test_examples (TESTS, default the ReactorCells
#      kinetics cases), with DUALJIT_REQUIRE_GPU=1;
#   2. kinetics_rates: rates and (T, Y) Jacobian, full effort, row groups of 2, at CELLS;
#      with PEERS=1 through bench/kinetics_peers.sh, with the JAX peer on the same states;
#   3. with OLD_TREE (a source tree without composition, e.g. `git archive 326104b` unpacked in
#      .dev/old and carried): the same kinetics_rates at the first of CELLS, built from it;
#   4. the batched ignition (BDF, 1e5 GRI-3.0 reactors, full effort, rows of 2); with PEERS=1
#      through bench/ignition_gpu.sh, with Cantera on the host's cores on a subset of its cases
#      (PYTHON_WHEELS: the Cantera and ruamel.yaml wheels, bench/kinetics_peers.sh).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml [OLD_TREE=.dev/old] [PEERS=1 PYTHON_WHEELS=.whl] OUT=$OUT \
#     bash bench/composed_rows_gpu.sh [CELLS ...]   (default 100000 1000000)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${*:-100000 1000000}
mkdir -p "$out/old"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition test_examples test_backends || exit 1
if [[ -n ${OLD_TREE:-} ]]; then
  (cd "$OLD_TREE" && gpu_build "$out/old" kinetics_rates) || exit 1
fi
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
DUALJIT_REQUIRE_GPU=1 timeout 120 ./build-gpu/tests/test_backends -ts=gpu \
  -tc="CUDA backend*" > "$out/tests_backends.txt" 2>&1
echo "backend tests rc=$? at $(($(date +%s) - t0)) s"
tail -2 "$out/tests_backends.txt"
DUALJIT_REQUIRE_GPU=1 timeout 200 ./build-gpu/tests/test_examples -ts=gpu \
  -tc="${TESTS:-*ReactorCells*}" > "$out/tests_examples.txt" 2>&1
echo "example tests rc=$? at $(($(date +%s) - t0)) s"
tail -2 "$out/tests_examples.txt"
rates=(--effort full --rows 2 --reps 5)
if [[ ${PEERS:-0} == 1 ]]; then
  SKIP="cantera canterax" RATES_FLAGS="${rates[*]:0:4}" REPS=5 BUILD_DIR=build-gpu \
    OUT=$out/peers timeout 240 bash bench/kinetics_peers.sh $cells > "$out/peers.txt" 2>&1
  grep -E "RESULT kinetics_(dualjit|jax)" "$out/peers.txt" | cut -c1-400
else
  timeout 120 ./build-gpu/bench/kinetics_rates "${rates[@]}" $cells > "$out/rates.txt" 2>&1
  grep -E "RESULT" "$out/rates.txt" | cut -c1-330
fi
echo "rates and Jacobians at $(($(date +%s) - t0)) s"
if [[ -n ${OLD_TREE:-} ]]; then
  DUALJIT_CACHE_DIR=$OLD_TREE/build-gpu/cache timeout 90 "$OLD_TREE/build-gpu/bench/kinetics_rates" \
    "${rates[@]}" ${cells%% *} > "$out/rates_old.txt" 2>&1
  echo "old tree:"
  grep -E "RESULT kinetics_dualjit" "$out/rates_old.txt" | cut -c1-330
fi
if [[ ${PEERS:-0} == 1 ]]; then
  PYTHON_WHEELS=${PYTHON_WHEELS:-} SKIP="canterax tests" BENCH_FLAGS="--effort full --rows 2" \
    CANTERA_CELLS=2048 OUT=$out/ignition timeout 240 bash bench/ignition_gpu.sh 100000 \
    > "$out/ignition.txt" 2>&1
else
  timeout 120 ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 100000 \
    > "$out/ignition.txt" 2>&1
fi
grep -E "^RESULT|final" "$out/ignition.txt" | cut -c1-300
echo "done at $(($(date +%s) - t0)) s"
