#!/usr/bin/env bash
# One device call: the launches of a kernel split in row groups enqueued heaviest first
# (backends/assembly/device_element_assembly.cpp), against OLD_TREE (a source tree that enqueues
# them in chunk order, e.g. `git archive f79f810` unpacked in .dev/old and carried): GRI-3.0's
# (T, Y) Jacobian at full effort in rows of 2 (16 launches) at CELLS, each tree twice,
# alternating; then test_examples' GPU cases of ReactorCells (DUALJIT_REQUIRE_GPU=1). Logs under
# $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/launch_order_gpu.sh [CELLS]
#     (default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
source bench/gpu_build.sh
gpu_start_both kinetics_rates && gpu_build "$out" test_examples || exit 1
ab_rounds "$out" "$old" rates 'w_ms|J_ms|Jc_ms|floor_J_ms' kinetics_rates --effort full --rows 2 \
  --reps 7 "$cells"
echo "timed at $(($(date +%s) - t0)) s"
DUALJIT_CACHE_DIR=$PWD/build-gpu/cache DUALJIT_REQUIRE_GPU=1 timeout 200 \
  ./build-gpu/tests/test_examples -ts=gpu -tc="*ReactorCells*" > "$out/tests_examples.txt" 2>&1
echo "test_examples rc=$? at $(($(date +%s) - t0)) s"
tail -3 "$out/tests_examples.txt"
