#!/usr/bin/env bash
# One device call: the kinetics kernels as the tree builds them, verified and measured with
# their peers:
#   1. test_backends' GPU cases of the CUDA backend, the element blocks' assembly, the tape
#      columns and the untile, and
#      test_examples' GPU cases of ReactorCells and the ignition (DUALJIT_REQUIRE_GPU=1);
#   2. bench/kinetics_peers.sh at CELLS with the JAX peer on the same states (full effort,
#      Jacobian in rows of 2);
#   3. the batched ignition (BDF, 1e5 GRI-3.0 reactors).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_verify_gpu.sh [CELLS ...]
#     (default 100000 1000000)
# BACKENDS_TESTS: test_backends' doctest filter (default above). EXAMPLES_TESTS: test_examples'
# ("*ReactorCells*,*ignition*"; "none": not run, nor built); EXAMPLES_TIMEOUT (s, 400): with an
# empty kernel cache both take about 330 s. IGNITION=0: no ignition (nor its build). PEERS=0:
# no peers (nor kinetics_rates' build).
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${*:-100000 1000000}
source bench/gpu_build.sh
targets=(test_backends)
[[ ${PEERS:-1} == 0 ]] || targets+=(kinetics_rates)
[[ ${EXAMPLES_TESTS:-} == none ]] || targets+=(test_examples)
[[ ${IGNITION:-1} == 0 ]] || targets+=(kinetics_ignition)
gpu_start "${targets[@]}" || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 150 test_backends -ts=gpu -tc="${BACKENDS_TESTS:-CUDA backend*,DeviceElementAssembly*,\
Assembler (GPU)*,device tape columns*,*untile*}"
[[ ${EXAMPLES_TESTS:-} == none ]] ||
  gpu_tests "${EXAMPLES_TIMEOUT:-400}" test_examples -ts=gpu \
    -tc="${EXAMPLES_TESTS:-*ReactorCells*,*ignition*}"
if [[ ${PEERS:-1} != 0 ]]; then
  SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 BUILD_DIR=build-gpu \
    OUT=$out/peers timeout 260 bash bench/kinetics_peers.sh $cells > "$out/peers.txt" 2>&1
  echo "peers rc=$? at $(($(date +%s) - t0)) s"
  grep -E "RESULT kinetics_(dualjit|jax)" "$out/peers.txt" |
    grep -oE '^RESULT [a-z_]+|(cells|w_ms|J_ms|Jc_ms|Jcol_ms|floor_J_ms|wdot_sum|J_abs_sum|Jc_transposed|Jc_rel)=[^ ]+' |
    paste -sd' ' |
    sed 's/RESULT/\nRESULT/g'
  cat "$out/peers/summary.txt" 2>/dev/null | head -30
fi
if [[ ${IGNITION:-1} != 0 ]]; then
  timeout 90 ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 100000 \
    > "$out/ignition.txt" 2>&1
  echo "ignition rc=$?: $(grep -E '^RESULT' "$out/ignition.txt" | cut -c1-300)"
fi
echo "done at $(($(date +%s) - t0)) s"
