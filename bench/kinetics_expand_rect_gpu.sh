#!/usr/bin/env bash
# Experiment (to be reverted): GRI-3.0's J with the expand launch in blocks of 2 rows x 32
# columns (DUALJIT_EXP_EXPAND_RECT=1: a tile's cut-gradient lines read 27 times, not 46) against
# 64 consecutive entries, in turn; then every launch of one rates/J/Jc/Jcol run with its DRAM and
# L2 traffic from Nsight Compute, one line each.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_expand_rect_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
cells=${1:-100000}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/rect-cache
k=./build-gpu/bench/kinetics_rates
for i in 1 2 3; do
  for r in 0 1; do
    echo "rect=$r: $(DUALJIT_EXP_EXPAND_RECT=$r $k --effort full --rows 2 --reps 7 "$cells" 2>&1 | grep -E '^RESULT kinetics_dualjit' | grep -oE '(J_ms|Jc_ms|Jcol_ms|J_abs_sum)=[^ ]+' | head -4 | tr '\n' ' ')"
  done
done
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for r in 0 1; do
  DUALJIT_EXP_EXPAND_RECT=$r ncu --clock-control none -k "regex:gri30" --launch-count 80 --csv --metrics $m \
    $k --effort full --rows 2 --reps 1 "$cells" > "$out/ncu_$r.csv" 2>&1
  echo "== rect=$r: launch | us | DRAM rd GB | DRAM wr GB | L2 rd sectors M | L2 rd hit M | L2 wr M | L2 % | DRAM %"
  python3 - "$out/ncu_$r.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
ki, ni, mi, ui, vi = (h.index(x) for x in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
by = collections.OrderedDict()
for r in rows[1:]:
    v = float(r[vi].replace(",", ""))
    u = r[ui]
    v *= {"Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1, "byte": 1e-9, "msecond": 1e3, "usecond": 1, "nsecond": 1e-3}.get(u, 1)
    by.setdefault((r[ki], r[ni]), {})[r[mi]] = v
for (i, name), d in by.items():
    short = name.replace("dj_kinetics_gri30_constant_pressure_", "")[:60]
    print(f"{short} | {d['gpu__time_duration.sum']:.0f} | {d['dram__bytes_read.sum']:.3f} | {d['dram__bytes_write.sum']:.3f} | "
          f"{d['lts__t_sectors_srcunit_tex_op_read.sum']/1e6:.1f} | {d['lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum']/1e6:.1f} | "
          f"{d['lts__t_sectors_srcunit_tex_op_write.sum']/1e6:.1f} | {d['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.0f} | "
          f"{d['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}")
PY
done
