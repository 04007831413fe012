#!/usr/bin/env bash
# One device call: exps computed in groups by one out-of-line call (jit/emit_element.h
# kExpGroup) with CUDA's exp without its branch (jit/driver_text.h), on the kinetics kernels
# (issue 16, and the ignition right-hand side of issue 17):
#   1. test_backends' GPU cases of the exps (bit for bit against CUDA's exp; grouped kernels,
#      whole and in pieces, against the reference) and test_examples' GPU cases of the kinetics
#      and ignition (DUALJIT_REQUIRE_GPU=1);
#   2. bench/kinetics_peers.sh: rates and (T, Y) Jacobian at full effort, row groups of 2, with
#      the JAX peer on the same states;
#   3. the batched ignition benchmark (BDF, GRI-3.0 reactors, full effort, rows of 2).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/exp_groups_gpu.sh [CELLS ...]
#     (default 100000 1000000; IGNITION_CELLS, default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${*:-100000 1000000}
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition test_examples test_backends || exit 1
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1
timeout 120 ./build-gpu/tests/test_backends -ts=gpu -tc="*exp*" > "$out/tests_backends.txt" 2>&1
echo "backends tests rc=$? at $(($(date +%s) - t0)) s"
grep -E "MESSAGE|exp\(|test cases|assertions" "$out/tests_backends.txt" | cut -c1-200 | tail -12
timeout 200 ./build-gpu/tests/test_examples -ts=gpu -tc="*ReactorCells*,*ignition*" \
  > "$out/tests_examples.txt" 2>&1
echo "examples tests rc=$? at $(($(date +%s) - t0)) s"
tail -3 "$out/tests_examples.txt"
unset DUALJIT_REQUIRE_GPU
SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=5 BUILD_DIR=build-gpu \
  OUT=$out/peers timeout 240 bash bench/kinetics_peers.sh $cells > "$out/peers.txt" 2>&1
grep -E "RESULT kinetics_(dualjit|jax)" "$out/peers.txt" | cut -c1-330
grep -E "^\| [0-9]|^target|^\| rates" "$out/peers/summary.txt" 2>/dev/null
echo "peers done at $(($(date +%s) - t0)) s"
timeout 120 ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 \
  ${IGNITION_CELLS:-100000} > "$out/ignition.txt" 2>&1
grep -E "RESULT" "$out/ignition.txt" | cut -c1-400
echo "done at $(($(date +%s) - t0)) s"
