#!/usr/bin/env bash
# One device call: the sparse dw/dC in batches of cells (kinetics_rates --batch), for Jacobians
# that do not fit the device at once:
#   1. GRI-3.0 at 20,000 cells whole and in 4 batches of 5,000: the same checksums;
#   2. n-hexane-NUIG-2015 (from $MECHANISM_DIR, default .mech, an ignored folder carried to
#      the device) in rows of 80 at 1e4 cells and at 1e5 in 5 batches of 2e4 (2.24 MB of
#      entries a cell: 224 GB at 1e5).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_batched_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
fields='(cells|w_ms|J_ms|floor_J_ms|wdot_sum|J_abs_sum|nnz)=[^ ]+'
for batch in 0 5000; do
  timeout 120 ./build-gpu/bench/kinetics_rates --outputs sparse --batch $batch --reps 5 20000 \
    > "$out/gri30_batch_$batch.txt" 2>&1
  echo "GRI-3.0, batch $batch (rc=$?): $(grep -E '^RESULT kinetics_dualjit' \
    "$out/gri30_batch_$batch.txt" | grep -oE "$fields" | paste -sd' ')"
done
timeout 400 ./build-gpu/bench/kinetics_rates --mechanism \
  "${MECHANISM_DIR:-.mech}/n-hexane-NUIG-2015.yaml" --outputs sparse --rows 80 --batch 20000 \
  --reps 3 10000 100000 > "$out/hexane.txt" 2>&1
echo "n-hexane (rc=$?):"
grep -E '^RESULT kinetics_dualjit' "$out/hexane.txt" | grep -oE "$fields" | paste -sd' ' |
  fold -w 200
grep -E '^RESULT kinetics_compile' "$out/hexane.txt" | grep -oE '(first_call_s)=[^ ]+' | sort -u
echo "done at $(($(date +%s) - t0)) s"
