#!/usr/bin/env bash
# One device call: where the tapes' launch of GRI-3.0's Jacobian (1e5 cells, full effort) waits,
# from Nsight Compute's warp-state sampling on its SASS (bench/ncu_sass_stalls.py), and the same
# for the rates kernel. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_tapes_stalls_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
source bench/gpu_build.sh
gpu_start kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
for k in tp_k0 values_value; do
  timeout 200 ncu --clock-control none -k "regex:$k" --launch-count 1 --section WarpStateStats \
    --section SourceCounters -o "$out/$k" -f ./build-gpu/bench/kinetics_rates --effort full \
    --rows 2 --reps 1 "$cells" > "$out/$k.log" 2>&1
  echo "$k: ncu rc=$? at $(($(date +%s) - t0)) s"
  ncu -i "$out/$k.ncu-rep" --page source --csv --print-source sass > "$out/$k.csv" 2> "$out/$k.err"
  echo "source page rc=$? ($(wc -l < "$out/$k.csv") lines) $(head -c 300 "$out/$k.err")"
  python3 bench/ncu_sass_stalls.py "$out/$k.csv" 2>&1 | cut -c1-400
  rm -f "$out/$k.csv"
done
echo "done at $(($(date +%s) - t0)) s"
