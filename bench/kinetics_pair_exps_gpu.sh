#!/usr/bin/env bash
# Exps two at a time (issue 16): the sweep bench/sweeps/kinetics_pair_exps.txt at CELLS (its
# compile lines give each configuration's cold compile wall time), then Nsight Compute on one
# tapes' launch with and without pairs: duration, L2 sectors written, instructions.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_pair_exps_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=${OUT:-gpu-out}
bash bench/kinetics_sweep.sh bench/sweeps/kinetics_pair_exps.txt "$cells"
for c in base pair; do
  echo "$c compile: $(grep -E '^RESULT kinetics_compile' "$out/compile_$c.log" |
    grep -oE 'output=[a-z-]+ .*first_call_s=[0-9.]+' | sed -E 's/ kernel.*first_call_s=/ /' |
    sort -u | tr '\n' ' ')"
done
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
metrics=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
for c in 0 1; do
  DUALJIT_PAIR_EXPS=$c ncu --kernel-name regex:"tp_k0_1|rates" --launch-count 2 --metrics "$metrics" \
    --csv --print-units base ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 \
    "$cells" > "$out/ncu_pair_$c.csv" 2> "$out/ncu_pair_$c.err"
  python3 - "$out/ncu_pair_$c.csv" "$c" <<'PY'
import csv, sys, collections
rows = collections.OrderedDict()
for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"')):
    rows.setdefault((r["ID"], r["Kernel Name"][-40:]), {})[r["Metric Name"]] = r["Metric Value"]
for (i, name), m in rows.items():
    v = {k: float(x.replace(",", "")) for k, x in m.items()}
    print(f"pair={sys.argv[2]} {name:40s} us={v['gpu__time_duration.sum']/1e3:8.1f} "
          f"l2W={v['lts__t_sectors_srcunit_tex_op_write.sum']/1e6:6.1f}M "
          f"localW={v['l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum']/1e6:6.1f}M "
          f"inst={v['smsp__inst_executed.sum']/1e6:7.1f}M")
PY
done
