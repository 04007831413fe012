#!/usr/bin/env bash
# One device call: where the bytes of GRI-3.0's cell-major Jacobian go, this tree's columns'
# launches against OLD_TREE's (e.g. the separate untile; `git archive REV` unpacked in
# .dev/old and carried): Nsight Compute's DRAM bytes read and written, L2 sectors and hits by
# operation, for the columns' and untile launches of one J (kinetics_rates, full effort, rows
# of 2, CELLS).
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/kinetics_cell_blocks_bytes_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
source bench/gpu_build.sh
gpu_start_both kinetics_rates || exit 1
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
metrics+=,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors.sum
metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed
for tree in "$old" .; do
  name=$([[ $tree == . ]] && echo new || echo old)
  # J's launches come first in kinetics_rates: the first columns' launches and untile are J's.
  DUALJIT_CACHE_DIR=$tree/build-gpu/cache NCU_COUNT=7 NCU_METRICS=$metrics timeout 200 \
    bash bench/ncu_kernels.sh "$out/bytes_$name.txt" "tape_columns|untile" \
    "$tree/build-gpu/bench/kinetics_rates" --effort full --rows 2 --reps 1 "$cells"
  echo "$name rc=$? at $(($(date +%s) - t0)) s"
  grep -E "^  dj_|dram__|lts__|gpu__time" "$out/bytes_$name.txt" |
    sed -E 's/ +/ /g' | cut -c1-120
done
