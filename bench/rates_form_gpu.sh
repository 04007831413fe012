#!/usr/bin/env bash
# One device call: the rate laws' graph for values (examples/kinetics/rate_laws.h RateLawForm:
# 1/Kc from per-species factors, the heat release summed over species, g/RT and h/RT made
# where first used) on the GPU (issue 16, and the ignition right-hand side of issue 17):
#   1. bench/kinetics_verify_gpu.sh at CELLS: the GPU cases of the CUDA backend, the kinetics
#      and the ignition (DUALJIT_REQUIRE_GPU=1), the JAX peer on the same states (full effort,
#      row groups of 2) and the batched ignition;
#   2. the rates kernel at 1e6 cells under register caps (--rates-min-blocks).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/rates_form_gpu.sh [CELLS ...]
#     (default 100000 1000000; MIN_BLOCKS, default "6 8")
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
OUT=$out bash bench/kinetics_verify_gpu.sh "$@" || exit 1
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1  # built already: sets the library path
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
for mb in ${MIN_BLOCKS-6 8}; do
  timeout 60 ./build-gpu/bench/kinetics_rates --effort full --outputs rates --reps 5 \
    --rates-min-blocks "$mb" 1000000 > "$out/rates_mb$mb.txt" 2>&1
  echo "rates, min blocks $mb:"
  grep -E "RESULT|registers" "$out/rates_mb$mb.txt" | cut -c1-300
done
