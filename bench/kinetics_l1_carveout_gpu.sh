#!/usr/bin/env bash
# The L1 / shared split of GRI-3.0's launches without dynamic shared memory (issue 16): the
# sweep bench/sweeps/kinetics_l1_carveout.txt at CELLS, then Nsight Compute on one tapes'
# launch at the driver's default and at the most L1: its shared memory configuration, duration,
# L1 hit rate of local loads and the sectors it writes to L2.
# Usage: YAML_CPP_ROOT=... OUT=DIR bench/kinetics_l1_carveout_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=${OUT:-gpu-out}
bash bench/kinetics_sweep.sh bench/sweeps/kinetics_l1_carveout.txt "$cells"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
metrics=launch__shared_mem_config_size,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
for c in default 0; do
  envs=()
  [[ $c != default ]] && envs=(DUALJIT_EXP_L1_CARVEOUT=$c)
  env "${envs[@]}" ncu --kernel-name regex:tp_k0_1 --launch-count 1 --metrics "$metrics" --csv \
    ./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 "$cells" \
    > "$out/ncu_carveout_$c.csv" 2> "$out/ncu_carveout_$c.err"
  echo "carveout $c: $(grep -E 'launch__|gpu__time|lts__|l1tex__' "$out/ncu_carveout_$c.csv" |
    awk -F'","' '{print $(NF-2) "=" $NF}' | tr -d '"' | tr '\n' ' ')"
done
