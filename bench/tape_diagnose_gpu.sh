#!/usr/bin/env bash
# One device call: GRI-3.0's (T, Y) Jacobian with tapes at several sizes and launch splits,
# each checksum to compare with the CPU's (`kinetics_rates --cpu --effort full --rows 2 N`),
# with ptxas given the register file (--min-blocks 1), with tapes not kept (two threads a cell)
# and with blocks of one warp. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/tape_diagnose_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
run() {  # NAME ENV... -- FLAGS
  local name=$1; shift
  env "$@" > "$out/$name.log" 2>&1
  echo "$name: $(grep -E '^RESULT kinetics_dualjit' "$out/$name.log" | grep -oE '(J_ms|Jc_ms|J_abs_sum|Jc_abs_sum)=[^ ]+' | tr '\n' ' ')"
}
k=./build-gpu/bench/kinetics_rates
run minblocks1_1e3 $k --effort full --rows 2 --min-blocks 1 --reps 1 1000
run t2_1e3 $k --effort full --rows 2 --threads-per-cell 2 --cells-per-block 64 --reps 1 1000
run b32_1e3 $k --effort full --rows 2 --cells-per-block 32 --reps 1 1000
