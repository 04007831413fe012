#!/usr/bin/env bash
# One device call: the kinetics kernels with their special functions out of line (the default
# for chunks of more than jit::kOutlineSpecials statements) against every special inline
# (DUALJIT_INLINE_SPECIALS=1), same GPU, same states (issues 16 and 17):
#   1. bench/kinetics_peers.sh (rates and (T, Y) Jacobian at full effort, row groups of 2)
#      with the JAX peer on the same states;
#   2. kinetics_rates again with every special inline (its own cache: cold compile);
#   3. the batched ignition benchmark (BDF, 1e5 GRI-3.0 reactors) both ways.
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/outlined_specials_gpu.sh [CELLS ...]
#     (default 100000 1000000; IGNITION_CELLS, default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${*:-100000 1000000}
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition || exit 1
echo "built in $(($(date +%s) - t0)) s"
SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 BUILD_DIR=build-gpu \
  OUT=$out/peers timeout 300 bash bench/kinetics_peers.sh $cells > "$out/peers.txt" 2>&1
grep -E "RESULT kinetics_(dualjit|jax)|^\|" "$out/peers.txt" | cut -c1-400
cat "$out/peers/summary.txt" 2>/dev/null | head -40
echo "peers done at $(($(date +%s) - t0)) s"
DUALJIT_CACHE_DIR=$PWD/build-gpu/inline-cache DUALJIT_INLINE_SPECIALS=1 timeout 200 \
  ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 7 $cells \
  > "$out/rates_inline.txt" 2>&1
grep -E "RESULT" "$out/rates_inline.txt" | cut -c1-400
echo "inline done at $(($(date +%s) - t0)) s"
for mode in outlined inline; do
  env DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-$mode \
    $([[ $mode == inline ]] && echo DUALJIT_INLINE_SPECIALS=1) timeout 150 \
    ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 \
    ${IGNITION_CELLS:-100000} > "$out/ignition_$mode.txt" 2>&1
  echo "ignition, $mode:"
  grep -E "RESULT|reactors/s" "$out/ignition_$mode.txt" | cut -c1-400
done
echo "done at $(($(date +%s) - t0)) s"
