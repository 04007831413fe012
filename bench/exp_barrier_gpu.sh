#!/usr/bin/env bash
# One device call: GRI-3.0's rates alone (full effort) at 2^20 cells (a multiple of every block
# size below, so that no thread leaves before a barrier) in variants of
#   DUALJIT_EXP_INLINE (the table exp inline, 1, or out of line, 0),
#   DUALJIT_BARRIER_EVERY (a __syncthreads() every N statements of an outlined chunk, keeping a
#     block's warps on the same code: fewer instruction fetches),
#   --rates-cells-per-block E and --rates-min-blocks M (registers capped at 65536 / (E M)),
# each variant with a cache of its own; then the baseline and the variants named in AGAIN a
# second time. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/exp_barrier_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates || exit 1
echo "built in $(($(date +%s) - t0)) s"
# inline min_blocks cells_per_block barrier_every
variants=${VARIANTS:-"0:0:64:0 1:8:64:0 1:8:64:300 1:8:64:1000 1:2:256:300 1:2:256:1000
  1:6:64:300 1:4:128:300 0:0:64:300 1:8:64:150"}
run() {
  IFS=: read -r inl m e b <<< "$1"
  local f=$out/rates_$1_$2.txt
  DUALJIT_EXP_INLINE=$inl DUALJIT_BARRIER_EVERY=$b DUALJIT_CACHE_DIR=$PWD/build-gpu/cache-$inl-$b \
    timeout 60 ./build-gpu/bench/kinetics_rates --effort full --outputs rates \
    --rates-cells-per-block "$e" --rates-min-blocks "$m" --reps 7 1048576 > "$f" 2>&1
  echo "$1 round $2 (rc=$?): $(grep -E '^RESULT kinetics_dualjit' "$f" |
    grep -oE '(w_ms|wdot_sum)=[^ ]+' | head -2 | paste -sd' ')" \
    "$(grep -oE 'registers=[0-9]+|spill_bytes=[0-9]+' "$f" | head -2 | paste -sd' ')"
}
for v in $variants; do run "$v" 1; done
echo "round 1 at $(($(date +%s) - t0)) s"
for v in 0:0:64:0 ${AGAIN:-1:8:64:300 1:2:256:300}; do run "$v" 2; done
echo "done at $(($(date +%s) - t0)) s"
