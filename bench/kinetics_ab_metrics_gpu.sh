#!/usr/bin/env bash
# One device call: Nsight Compute metrics of the kernels KERNELS (a regex) in this tree and in
# OLD_TREE, each in one run of kinetics_rates at CELLS (full effort, rows of 2): what a change
# does to a launch's time, L2 traffic and local (spill) traffic. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT KERNELS='tp_k0|values_value' \
#     bash bench/kinetics_ab_metrics_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/gpu_build.sh
gpu_start_both kinetics_rates || exit 1
metrics=gpu__time_duration.sum,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__bytes.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,smsp__inst_executed_op_shared_ld.sum
for tree in "$old" .; do
  name=$([[ $tree == . ]] && echo new || echo old)
  DUALJIT_CACHE_DIR=$tree/build-gpu/cache NCU_METRICS=$metrics NCU_COUNT=${NCU_COUNT:-4} \
    timeout 240 bash bench/ncu_kernels.sh "$out/ncu_$name.txt" "${KERNELS:?}" \
    "$tree/build-gpu/bench/kinetics_rates" --effort full --rows 2 --reps 1 "${1:-100000}"
  echo "$name (ncu rc=$?):"
  grep -E "^  dj_|^    [a-z]" "$out/ncu_$name.txt" | sed -E 's/\(.*\)//; s/ +/ /g' | cut -c1-150
done
echo "done at $(($(date +%s) - t0)) s"
