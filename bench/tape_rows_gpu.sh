#!/usr/bin/env bash
# One device call: the Jacobian's rows from the tapes, each tape slot read once a cell, on
# dualjit's GRI-3.0 tape layout at 1e5 cells: bench/micro/tape_rows.cu (by tables) over warps a
# block and column groups' sizes, then the straight-line programs bench/micro/tape_rows_gen.py
# writes (GEN, "SLOTS:WARPS:ORDER[:OPTIONS] ...", OPTIONS tape_rows_gen.py's others, comma-
# separated, e.g. --min-blocks=3,--first-alone), then Nsight Compute on the first of those: its
# launches' durations, and the sections of its rows' launches, cell-major then component-major.
# LAYOUT written here by `build/bench/kinetics_tape_layout .dev/tape/gri30.txt` (carry
# ".dev/tape"). Logs under $OUT.
#
#   OUT=$OUT [TABLES="SLOTS:WARPS ..."] [GEN="SLOTS:WARPS:ORDER[:OPTIONS] ..."] \
#     bash bench/tape_rows_gpu.sh [LAYOUT]
#     (default layout .dev/tape/gri30.txt; TABLES default 100:4 200:4 400:4 100:8 200:8 400:8,
#     GEN default 200:8:tile 400:8:tile 200:4:tile 100:8:tile 200:8:group; ORDER as
#     tape_rows_gen.py's --order)
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${OUT:-gpu-out}")
layout=$(realpath "${1:-.dev/tape/gri30.txt}")
mkdir -p "$out"
t0=$(date +%s)
fields='(order|groups|A_ms|B_ms|ms|floor_ms|copy_GBs|max_rel)=[^ ]+|failed.*'
(cd bench/micro && nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/tape_rows" tape_rows.cu) \
  > "$out/nvcc.txt" 2>&1 || { tail -20 "$out/nvcc.txt"; exit 1; }
gen=${GEN-200:8:tile 400:8:tile 200:4:tile 100:8:tile 200:8:group}
name() { echo "${1//[:,=-]/_}"; }  # a configuration's file name
for v in $gen; do
  IFS=: read -r slots warps order options <<< "$v"
  (python3 bench/micro/tape_rows_gen.py "$layout" --group-slots "$slots" --warps "$warps" \
     --order "$order" ${options//,/ } > "$out/gen_$(name "$v").cu" &&
   nvcc -O3 -arch=sm_90 -std=c++17 -Ibench/micro -Xptxas -v -o "$out/gen_$(name "$v")" \
     "$out/gen_$(name "$v").cu" > "$out/nvcc_gen_$(name "$v").txt" 2>&1 ||
   echo "generated $v: build failed") &
done
wait
echo "built in $(($(date +%s) - t0)) s"
for v in ${TABLES-100:4 200:4 400:4 100:8 200:8 400:8}; do
  echo "tables, group slots ${v%:*}, warps ${v#*:}: $("$out/tape_rows" "$layout" --cells 100000 \
    --group-slots "${v%:*}" --warps "${v#*:}" 2>&1 | grep -oE "$fields" | paste -sd' ' |
    sed 's/order=/\n   /g')"
done
for v in $gen; do
  exe=$out/gen_$(name "$v")
  regs=$(grep -oE 'Used [0-9]+ registers' "$out/nvcc_gen_$(name "$v").txt" | grep -oE '[0-9]+' |
    paste -sd/)
  echo "straight-line $v (registers $regs):" \
    "$("$exe" "$layout" --cells 100000 2>&1 | grep -oE "$fields" | paste -sd' ' |
      sed 's/order=/\n   /g')"
done
exe=$out/gen_$(name "$(echo $gen | cut -d' ' -f1)")
NCU_COUNT=3 timeout 120 bash bench/ncu_kernels.sh "$out/ncu.txt" "rows|values_and_cut" \
  "$exe" "$layout" --reps 1
grep -E " us " "$out/ncu.txt"
# The rows' launches, cell-major (3 runs at --reps 1, one or two launches each), then
# component-major.
NCU_COUNT=8 NCU_SECTIONS="SpeedOfLight MemoryWorkloadAnalysis WarpStateStats Occupancy" \
  timeout 150 bash bench/ncu_kernels.sh "$out/ncu_sections.txt" "rows" "$exe" "$layout" --reps 1
grep -E "^  [a-z_<>]|^    (Duration|DRAM Throughput|L1/TEX Cache|L2 Cache Throughput|L1/TEX Hit|L2 Hit|Achieved Occ|Warp Cycles Per Issued|Memory Throughput)" \
  "$out/ncu_sections.txt" | sed 's/   */ /g' | cut -c1-100
echo "done at $(($(date +%s) - t0)) s"
