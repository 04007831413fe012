#!/usr/bin/env bash
# One device call: GRI-3.0's Jacobian as cell-major blocks, column-major (the tape columns
# writing each warp's runs of a column whole: jit::ColumnStores::CellColumns), verified and
# measured against the other layouts:
#   1. test_backends' GPU cases of the tape columns, the untile, the element blocks' assembly
#      and the Assembler (DUALJIT_REQUIRE_GPU=1);
#   2. kinetics_rates at CELLS (full effort, rows of 2) with the columns kernel in the columns'
#      form (the heat release composed from the species' entries: the default) and in the
#      derivatives' form (the heat release a tape of its own): J, Jc and Jcol;
#   3. Nsight Compute's speed of light, occupancy and memory sections on the columns' launches
#      of each stores (NCU=0: none).
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_cell_columns_gpu.sh [CELLS]
#     (default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
source bench/gpu_build.sh
gpu_start kinetics_rates test_backends || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
gpu_tests 200 test_backends -ts=gpu \
  -tc="CUDA backend*,DeviceElementAssembly*,Assembler (GPU)*,device tape columns*,*untile*"
cd data/mechanisms
for form in columns derivatives; do
  timeout 120 ../../build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 7 \
    --columns-form $form "$cells" > "$out/rates_$form.txt" 2>&1
  echo "rates, columns form $form, rc=$? at $(($(date +%s) - t0)) s: $(grep -E '^RESULT kinetics_dualjit' \
    "$out/rates_$form.txt" | grep -oE '(J_ms|Jc_ms|Jcol_ms|floor_J_ms|J_abs_sum|Jcol_abs_sum|Jc_transposed|Jc_rel)=[^ ]+' |
    paste -sd' ')"
  grep -E "jacobian-cell-major-columns" "$out/rates_$form.txt" | grep -oE 'kernel=[^ ]+|registers=[^ ]+|spill_bytes=[^ ]+|first_call_s=[^ ]+' |
    paste -d' ' - - - - | sed 's/kernel=dj_kinetics_gri30_constant_pressure_//'
done
if [[ ${NCU:-1} != 0 ]] && command -v ncu > /dev/null; then
  for stores in cc2 tl; do
    timeout 150 ncu --kernel-name regex:"tape_columns_g.*_$stores" --launch-count 7 \
      --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
      ../../build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 "$cells" \
      > "$out/ncu_$stores.txt" 2>&1
    echo "ncu $stores rc=$? at $(($(date +%s) - t0)) s"
    grep -E "tape_columns_g|^ +Duration|DRAM Throughput|L2 Cache Throughput|Achieved Occupancy|Block Limit Shared" \
      "$out/ncu_$stores.txt" | sed -E 's/dj_kinetics_gri30_constant_pressure_columns_//; s/\(DjArgs.*//; s/ +/ /g' |
      paste -sd' ' | sed 's/ tape_columns/\ntape_columns/g'
  done
fi
echo "done at $(($(date +%s) - t0)) s"
