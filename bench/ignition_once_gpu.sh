#!/usr/bin/env bash
# One short device call: kinetics_ignition alone (BDF, full effort, rows of 2, CELLS GRI-3.0
# reactors, a cold kernel cache), its RESULT line and the JIT's warnings (e.g. a launch ptxas
# held to 32 registers and compiled again): the cheapest device call that times the ignition;
# the two-tree comparison is bench/ignition_ab_gpu.sh. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/ignition_once_gpu.sh [CELLS]
#     (default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_ignition || exit 1
DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-once-cache ./build-gpu/bench/kinetics_ignition \
  --method bdf --effort full --rows 2 "${1:-100000}" > "$out/ignition.txt" 2>&1
echo "ignition rc=$? at $(($(date +%s) - t0)) s"
grep -E "warning|^RESULT" "$out/ignition.txt" | cut -c1-400
