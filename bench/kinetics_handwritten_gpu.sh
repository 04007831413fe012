#!/usr/bin/env bash
# One device call: the hand-written CUDA peer of the kinetics rates
# (bench/peers/kinetics_handwritten.cu: loops over the mechanism's tables) against dualjit's
# rates kernel on the same states: kinetics_rates (full effort, rates alone) times dualjit and
# writes the mechanism and the states with --write, then the peer runs on them: a thread per
# cell with its arrays in local memory (blocks of 64, 128, 256) and in shared memory (blocks of
# 32, 64), and a warp per cell (blocks of 64, 128, 256); then its (T, Y) Jacobian (a block per
# cell, the partials added by atomics in blocks of 32, 64, 128, 256 or gathered per row in
# blocks of 64, 128, 256) at the first cell count against dualjit's (full effort, rows of 2).
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_handwritten_gpu.sh [CELLS ...]
#     (default 100000 1000000)
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
cells=${*:-100000 1000000}
work=${WORK:-/tmp/dj-kinetics-hw}
mkdir -p "$out" "$work"
source bench/gpu_build.sh
t0=$(date +%s)
(nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -o "$work/kinetics_handwritten" \
  bench/peers/kinetics_handwritten.cu > "$out/peer_build.log" 2>&1; echo "peer build rc=$?") &
gpu_build "$out" kinetics_rates || exit 1
wait
echo "built in $(($(date +%s) - t0)) s"
grep -E "Compiling|registers|stack" "$out/peer_build.log" | head -9
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache timeout 200 ./build-gpu/bench/kinetics_rates --effort full \
  --rows 2 --reps 7 --write "$work" $cells > "$out/dualjit.txt" 2>&1
echo "dualjit rc=$?:"
grep -E '^RESULT kinetics_dualjit' "$out/dualjit.txt" |
  grep -oE '(cells|w_ms|J_ms|wdot_sum|wdot_abs_sum|q_sum|J_abs_sum)=[^ ]+' | paste -sd' ' |
  fold -w 220
files=()
for n in $cells; do files+=("$work/kinetics_gri30_$n.bin"); done
for run in local:64 local:128 local:256 shared:32 shared:64 warp:64 warp:128 warp:256; do
  arrays=${run%:*} b=${run#*:}
  log="$out/handwritten_${arrays}_b$b.txt"
  timeout 100 "$work/kinetics_handwritten" "$work/kinetics_gri30.json" "${files[@]}" --reps 7 \
    --block $b --arrays $arrays > "$log" 2>&1
  echo "peer, $arrays arrays, blocks of $b (rc=$?):"
  grep -E "^device|^warp|^RESULT" "$log" | cut -c1-260
done
for run in jacobian:32 jacobian:64 jacobian:128 jacobian:256 jacobian-gather:64 \
  jacobian-gather:128 jacobian-gather:256; do
  mode=${run%:*} b=${run#*:}
  log="$out/handwritten_${mode}_b$b.txt"
  timeout 100 "$work/kinetics_handwritten" "$work/kinetics_gri30.json" "${files[0]}" --reps 7 \
    --block $b --$mode > "$log" 2>&1
  echo "peer Jacobian ($mode), blocks of $b (rc=$?):"
  grep -E "^RESULT" "$log" | cut -c1-260
done
echo "done at $(($(date +%s) - t0)) s"
