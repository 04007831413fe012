#!/usr/bin/env bash
# One device call: bench/kinetics_tape_probe (the tape design's first pass: every reaction's
# q_r and its sparse tangent, stored) on GRI-3.0 at 1e5 and 1e6 cells, for each row-group size
# given (default 16 0 64), each with a cold kernel cache of its own. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/tape_probe_gpu.sh [ROWS ...]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_tape_probe || exit 1
for rows in ${*:-16 0 64}; do
  log="$out/probe_rows$rows.txt"
  DUALJIT_CACHE_DIR=$PWD/build-gpu/tape-cache$rows timeout 150 ./build-gpu/bench/kinetics_tape_probe \
    --rows "$rows" 100000 1000000 > "$log" 2>&1
  echo "rows $rows (rc=$?, at $(($(date +%s) - t0)) s):"
  grep -E "^RESULT" "$log" | cut -c1-200
  grep -E "registers=" "$log" | sort -u | awk -F'[ =]+' '{n++; f+=$5; if ($7 > r) r = $7; s+=$9}
    END {print "  " n " launches: flops " f ", most registers " r ", spill bytes summed " s}'
  grep -iE "warn|error|terminate" "$log" | head -3 | cut -c1-200
done
echo "done at $(($(date +%s) - t0)) s"
