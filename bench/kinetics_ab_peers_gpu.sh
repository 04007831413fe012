#!/usr/bin/env bash
# One device call: bench/kinetics_ab_gpu.sh (the CUDA backend's GPU cases; GRI-3.0's rates and
# Jacobian in this tree against OLD_TREE, alternating), then test_examples' ReactorCells GPU
# cases and bench/kinetics_peers.sh with JAX on the same states, in this tree. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/kinetics_ab_peers_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
t0=$(date +%s)
OUT=$out bash bench/kinetics_ab_gpu.sh 100000 1000000 || exit 1
source bench/gpu_build.sh
gpu_build "$out" test_examples || exit 1
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1 timeout 120 \
  ./build-gpu/tests/test_examples -ts=gpu -tc="*ReactorCells*" > "$out/tests_examples.txt" 2>&1
echo "test_examples rc=$? at $(($(date +%s) - t0)) s: $(tail -2 "$out/tests_examples.txt" | head -1)"
SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=7 BUILD_DIR=build-gpu \
  OUT=$out/peers timeout 200 bash bench/kinetics_peers.sh 100000 1000000 > "$out/peers.txt" 2>&1
echo "peers rc=$? at $(($(date +%s) - t0)) s"
grep -E "^(\| [0-9]|target)" "$out/peers.txt" | cut -c1-160
