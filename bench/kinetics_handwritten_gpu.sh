#!/usr/bin/env bash
# One device call: the hand-written CUDA peer of the kinetics rates
# (bench/peers/kinetics_handwritten.cu: one thread per cell looping over the mechanism's tables)
# against dualjit's rates kernel on the same states: kinetics_rates (full effort, rates alone)
# times dualjit and writes the mechanism and the states with --write, then the peer runs on
# them in blocks of 64, 128 and 256. Logs under $OUT.
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
grep -E "registers|stack" "$out/peer_build.log" | head -2
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache timeout 120 ./build-gpu/bench/kinetics_rates --effort full \
  --outputs rates --reps 7 --write "$work" $cells > "$out/dualjit.txt" 2>&1
echo "dualjit rc=$?:"
grep -E '^RESULT kinetics_dualjit' "$out/dualjit.txt" |
  grep -oE '(cells|w_ms|wdot_sum|wdot_abs_sum|q_sum)=[^ ]+' | paste -sd' ' | fold -w 220
files=()
for n in $cells; do files+=("$work/kinetics_gri30_$n.bin"); done
for b in 64 128 256; do
  timeout 100 "$work/kinetics_handwritten" "$work/kinetics_gri30.json" "${files[@]}" --reps 7 \
    --block $b > "$out/handwritten_b$b.txt" 2>&1
  echo "peer, blocks of $b (rc=$?):"
  grep -E "^device|^RESULT" "$out/handwritten_b$b.txt" | cut -c1-260
done
echo "done at $(($(date +%s) - t0)) s"
