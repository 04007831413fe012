#!/usr/bin/env python3
"""Each launch's memory traffic from Nsight Compute's CSV (`ncu --csv --metrics ...`), one row
per launch: duration, DRAM bytes read and written, L2 sectors read from L1 (and their hits) and
written, and L2 and DRAM throughput as percentages of peak; then the totals. L2 writes above
a launch's own stores are local memory (spills, registers saved around calls).

  bench/ncu_traffic_table.py --metrics   the metric list to pass to ncu
  bench/ncu_traffic_table.py FILE.csv    the table (bench/ncu_kernels.sh with NCU_TRAFFIC=1)
"""
import csv
import sys

METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
]
SCALE = {  # to microseconds and gigabytes
    "ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
    "byte": 1e-9, "Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1.0, "Tbyte": 1e3,
}


def table(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        sys.exit(f"{path}: no Nsight Compute CSV rows")
    head = rows[0]
    launch, name, metric, unit, value = (
        head.index(c) for c in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
    by_launch = {}
    for r in rows[1:]:
        v = float(r[value].replace(",", "")) * SCALE.get(r[unit], 1.0)
        by_launch.setdefault((int(r[launch]), r[name]), {})[r[metric]] = v
    missing = [m for m in METRICS if any(m not in d for d in by_launch.values())]
    if missing:
        sys.exit(f"{path}: launches without {', '.join(missing)}")
    print("| launch | us | DRAM read GB | DRAM written GB | L2 read M (hits) | L2 written M "
          "| L2 % peak | DRAM % peak |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    total = [0.0] * 6
    for (_, kernel), d in sorted(by_launch.items()):
        cols = [d[m] for m in METRICS]
        for i in range(6):
            total[i] += cols[i]
        shown = kernel if len(kernel) <= 72 else "..." + kernel[-69:]  # names differ at the end
        print(f"| {shown} | {cols[0]:.0f} | {cols[1]:.3f} | {cols[2]:.3f} | "
              f"{cols[3] / 1e6:.1f} ({cols[4] / 1e6:.1f}) | {cols[5] / 1e6:.1f} | {cols[6]:.0f} | "
              f"{cols[7]:.0f} |")
    print(f"| total, {len(by_launch)} launches | {total[0]:.0f} | {total[1]:.3f} | {total[2]:.3f} | "
          f"{total[3] / 1e6:.1f} ({total[4] / 1e6:.1f}) | {total[5] / 1e6:.1f} | | |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--metrics":
        print(",".join(METRICS))
    else:
        table(sys.argv[1])
