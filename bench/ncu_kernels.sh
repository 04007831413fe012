#!/usr/bin/env bash
# Nsight Compute on a benchmark program, for what CUDA events cannot split: each kernel's own
# duration (default), the sections NCU_SECTIONS names (e.g. "WarpStateStats Occupancy
# LaunchStats SchedulerStats") or the metrics NCU_METRICS lists (comma-separated, printed as ncu
# prints them) for the kernels KERNEL_REGEX matches; NCU_TRAFFIC=1 (and no NCU_METRICS): each
# launch's DRAM and L2 traffic as a table (bench/ncu_traffic_table.py). Clocks are left alone
# (--clock-control none, device/METHOD.md). NCU_SKIP and NCU_COUNT pick launches, NCU_FILTER
# ncu's --filter-mode.
#
#   bench/ncu_kernels.sh OUT_FILE KERNEL_REGEX PROGRAM [ARGS ...]
set -uo pipefail
out=$1 regex=$2
shift 2
args=(--clock-control none -k "regex:$regex" --launch-skip "${NCU_SKIP:-0}")
[[ -n ${NCU_COUNT:-} ]] && args+=(--launch-count "$NCU_COUNT")
# per-launch-config: NCU_SKIP and NCU_COUNT count each grid and block shape on its own.
[[ -n ${NCU_FILTER:-} ]] && args+=(--filter-mode "$NCU_FILTER")
if [[ -n ${NCU_METRICS:-} ]]; then
  ncu "${args[@]}" --metrics "$NCU_METRICS" "$@" > "$out" 2>&1
elif [[ -n ${NCU_TRAFFIC:-} ]]; then
  ncu "${args[@]}" --metrics "$(python3 "$(dirname "$0")/ncu_traffic_table.py" --metrics)" --csv "$@" > "$out" 2>&1
  python3 "$(dirname "$0")/ncu_traffic_table.py" "$out"
elif [[ -n ${NCU_SECTIONS:-} ]]; then
  for s in $NCU_SECTIONS; do args+=(--section "$s"); done
  ncu "${args[@]}" "$@" > "$out" 2>&1
else
  ncu "${args[@]}" --metrics gpu__time_duration.sum --csv "$@" > "$out" 2>&1
  # Kernel name and microseconds, one line per launch.
  python3 - "$out" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
k, unit, val = head.index("Kernel Name"), head.index("Metric Unit"), head.index("Metric Value")
for r in rows[1:]:
    v = float(r[val].replace(",", ""))
    us = v * {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3,
              "msecond": 1e3}[r[unit]]
    print(f"{us:10.2f} us  {r[k][:90]}")
PY
fi
