#!/usr/bin/env bash
# The tape columns' groups a tile at a time (issue 16): the sweep
# bench/sweeps/kinetics_tile_groups.txt at CELLS, then Nsight Compute on J's and Jc's columns'
# launches for main's plan and for a block a tile (8 warps): duration, DRAM bytes read, L2
# sectors read, L1 hit rate of global loads.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_tile_groups_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=${OUT:-gpu-out}
bash bench/kinetics_sweep.sh bench/sweeps/kinetics_tile_groups.txt "$cells"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct
for c in main 8,1; do
  envs=()
  [[ $c != main ]] && envs=(DUALJIT_EXP_TILE_GROUPS=$c)
  env "${envs[@]}" ncu --kernel-name regex:tape_columns_g --launch-count 40 --metrics "$metrics" \
    --csv ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 "$cells" \
    > "$out/ncu_tg_${c/,/_}.csv" 2> "$out/ncu_tg_${c/,/_}.err"
  echo "== $c"
  python3 - "$out/ncu_tg_${c/,/_}.csv" <<'PY'
import csv, sys, collections
rows = collections.OrderedDict()
for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"')):
    k = (r["ID"], r["Kernel Name"].split("columns_")[-1][:40])
    rows.setdefault(k, {})[r["Metric Name"]] = r["Metric Value"]
for (i, name), m in rows.items():
    if "_cc" in name: continue
    print(f"{name:40s} us={float(m['gpu__time_duration.sum'].replace(',',''))/1e3:8.1f} "
          f"dramR={float(m['dram__bytes_read.sum'].replace(',',''))/1e9:6.3f} "
          f"dramW={float(m['dram__bytes_write.sum'].replace(',',''))/1e9:6.3f} "
          f"l2R={float(m['lts__t_sectors_srcunit_tex_op_read.sum'].replace(',',''))/1e6:6.1f}M "
          f"l1hit={m['l1tex__t_sector_hit_rate.pct']}")
PY
done
