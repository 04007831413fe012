#!/usr/bin/env bash
# One device call: which Jacobian path the batched ignition's small, repeated Jacobians want.
# ReactorOdes evaluates the Jacobian of a prefix of the batch (the reactors whose Jacobian is
# refreshed), so a call's latency at a few thousand cells matters as much as the throughput at
# 1e5. Measures GRI-3.0's cell-major Jacobian (kinetics_rates, full effort, rows of 2, one block
# per SM as ReactorOdes) at CELLS from the tape columns and from the row groups, then the
# batched ignition (BDF, 1e5 reactors) with each, then test_examples' GPU ignition cases
# (DUALJIT_REQUIRE_GPU=1). Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/ignition_jacobian_path_gpu.sh [CELLS ...]
#     (default 1000 3000 10000 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start kinetics_rates kinetics_ignition test_examples || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
for tc in 1 0; do
  for cells in ${*:-1000 3000 10000 100000}; do
    timeout 100 ./build-gpu/bench/kinetics_rates --effort full --rows 2 --min-blocks 1 \
      --tape-columns "$tc" --reps 7 "$cells" > "$out/rates_tc${tc}_$cells.txt" 2>&1
    echo "tape columns $tc, $cells cells (rc=$?): $(grep -E '^RESULT' "$out/rates_tc${tc}_$cells.txt" |
      grep -oE '(J_ms|Jc_ms)=[^ ]+' | paste -sd' ')"
  done
done
echo "kinetics_rates at $(($(date +%s) - t0)) s"
for tc in 1 0; do
  timeout 120 ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 \
    --tape-columns "$tc" 100000 > "$out/ignition_tc$tc.txt" 2>&1
  echo "ignition, tape columns $tc (rc=$?): $(grep -E '^RESULT' "$out/ignition_tc$tc.txt" |
    grep -oE '(seconds|reactors_per_s|jacobian_s|factor_s|stage_s)=[^ ]+' | paste -sd' ')"
done
echo "ignition at $(($(date +%s) - t0)) s"
gpu_tests 300 test_examples -ts=gpu -tc="*ignition*"
echo "done at $(($(date +%s) - t0)) s"
