#!/usr/bin/env bash
# One device call: bench/kinetics_ab_gpu.sh (test_backends' GPU cases TESTS, GRI-3.0's rates and
# Jacobians at CELLS in both trees, twice), then each tree's kernels under Nsight Compute
# (bench/ncu_kernels.sh, durations only) in one run of kinetics_rates at CELLS, summed by
# kernel: how a change moves each launch of the Jacobians. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/kinetics_ab_ncu_gpu.sh [CELLS]
#     (default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
OUT=${OUT:-gpu-out} bash bench/kinetics_ab_gpu.sh "$cells" || exit 1
out=$(realpath -m "${OUT:-gpu-out}")
export LD_LIBRARY_PATH="${YAML_CPP_ROOT:-}/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for tree in "$OLD_TREE" .; do
  name=$([[ $tree == . ]] && echo new || echo old)
  DUALJIT_CACHE_DIR=$tree/build-gpu/cache timeout 200 bash bench/ncu_kernels.sh \
    "$out/ncu_$name.txt" 'dj_' "$tree/build-gpu/bench/kinetics_rates" --effort full --rows 2 \
    --reps 1 "$cells" > "$out/ncu_${name}_lines.txt" 2>&1
  echo "$name (ncu rc=$?): kernel, launches, median us"
  python3 - "$out/ncu_${name}_lines.txt" <<'PY'
import collections, re, statistics, sys
by = collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+) us\s+(\S+)", line)
    if m:
        name = re.sub(r"^dj_kinetics_gri30_constant_pressure_", "", m.group(2))
        by.setdefault(name, []).append(float(m.group(1)))
for name, us in by.items():
    print(f"  {name[:70]:70s} {len(us):3d} {statistics.median(us):9.1f}")
PY
done
