#!/usr/bin/env bash
# One device call: bench/micro/block_stores.cu (the tape columns' store patterns without their
# arithmetic) at CELLS, then, unless STORES_ONLY=1, test_examples' GPU case of the row groups
# (DUALJIT_REQUIRE_GPU=1). Logs under $OUT. LAYOUTS (block_stores.cu) picks its families.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/block_stores_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
t0=$(date +%s)
nvcc -O3 -arch=sm_90 -o "$out/block_stores" bench/micro/block_stores.cu > "$out/nvcc.log" 2>&1 ||
  { cat "$out/nvcc.log"; exit 1; }
"$out/block_stores" "${1:-100000}" | tee "$out/block_stores.txt"
rm -f "$out/block_stores"
echo "stores done at $(($(date +%s) - t0)) s"
[[ ${STORES_ONLY:-0} == 1 ]] && exit 0
source bench/gpu_build.sh
gpu_start test_examples || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 400 test_examples -ts=gpu -tc="*row groups*"
echo "done at $(($(date +%s) - t0)) s"
