#!/usr/bin/env bash
# One device call: the rate laws' graph for values (examples/kinetics/rate_laws.h RateLawForm:
# 1/Kc from per-species factors, the heat release summed over species, g/RT and h/RT made
# where first used) on the GPU (issue 16, and the ignition right-hand side of issue 17):
#   1. test_examples' GPU cases of the kinetics and ignition (DUALJIT_REQUIRE_GPU=1);
#   2. bench/kinetics_peers.sh: rates and (T, Y) Jacobian at full effort, row groups of 2, with
#      the JAX peer on the same states;
#   3. the rates kernel at 1e6 cells under register caps (--rates-min-blocks);
#   4. the batched ignition benchmark (BDF, GRI-3.0 reactors, full effort, rows of 2).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/rates_form_gpu.sh [CELLS ...]
#     (default 100000 1000000; IGNITION_CELLS, default 100000; MIN_BLOCKS, default "6 8")
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${*:-100000 1000000}
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition test_examples || exit 1
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
DUALJIT_REQUIRE_GPU=1 timeout 200 ./build-gpu/tests/test_examples -ts=gpu \
  -tc="*ReactorCells*,*ignition*" > "$out/tests.txt" 2>&1
echo "tests rc=$? at $(($(date +%s) - t0)) s"
tail -4 "$out/tests.txt"
SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=5 BUILD_DIR=build-gpu \
  OUT=$out/peers timeout 240 bash bench/kinetics_peers.sh $cells > "$out/peers.txt" 2>&1
grep -E "RESULT kinetics_(dualjit|jax)" "$out/peers.txt" | cut -c1-400
cat "$out/peers/summary.txt" 2>/dev/null | head -40
echo "peers done at $(($(date +%s) - t0)) s"
for mb in ${MIN_BLOCKS-6 8}; do
  timeout 60 ./build-gpu/bench/kinetics_rates --effort full --outputs rates --reps 5 \
    --rates-min-blocks "$mb" 1000000 > "$out/rates_mb$mb.txt" 2>&1
  echo "rates, min blocks $mb:"
  grep -E "RESULT|registers" "$out/rates_mb$mb.txt" | cut -c1-300
done
timeout 120 ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 \
  ${IGNITION_CELLS:-100000} > "$out/ignition.txt" 2>&1
grep -E "RESULT|reactors/s|stage" "$out/ignition.txt" | cut -c1-300
echo "done at $(($(date +%s) - t0)) s"
