#!/usr/bin/env bash
# One device call: the tape columns' launches by tile windows (bench/sweeps/
# kinetics_tile_windows.txt, kinetics_sweep.sh at CELLS), the tape columns' GPU case (windows
# among them), then Nsight Compute's stall reasons of the tapes' launch, the rates kernel and
# the aux launch, and the tiled columns' launches' DRAM and L2 traffic in two sweep lines
# (WINDOWS, default "lg2_tw0 lg12_tw264"; the first 8 such launches). Summary lines on stdout,
# logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/kinetics_tile_windows_gpu.sh [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
out=$(realpath -m "${OUT:-gpu-out}")
t0=$(date +%s)
bash bench/kinetics_sweep.sh bench/sweeps/kinetics_tile_windows.txt "$cells" |
  grep -E "^[a-z0-9_]+: |rc [^0]"
echo "sweep at $(($(date +%s) - t0)) s"
TESTS="device tape columns*" timeout 200 bash bench/gpu_tests.sh test_backends 2>&1 | tail -3
echo "tests at $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
program=(./build-gpu/bench/kinetics_rates --effort full --rows 2 --reps 1 "$cells")
stalls=smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for s in no_instruction long_scoreboard short_scoreboard wait math_pipe_throttle lg_throttle \
  mio_throttle branch_resolving barrier dispatch_stall not_selected selected; do
  stalls+=,smsp__warp_issue_stalled_${s}_per_warp_active.pct
done
NCU_COUNT=3 NCU_METRICS=$stalls timeout 150 bash bench/ncu_kernels.sh "$out/stalls.txt" \
  'tp_k0|values_value|tape_aux' "${program[@]}"
echo "stalls rc=$? at $(($(date +%s) - t0)) s"
grep -E "^  dj_|^    [a-z]" "$out/stalls.txt" | sed -E 's/\(.*\)//; s/ +/ /g' | cut -c1-120
traffic=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
for w in ${WINDOWS:-lg2_tw0 lg12_tw264}; do
  flags=$(grep -E "^$w +\|" bench/sweeps/kinetics_tile_windows.txt | cut -d'|' -f3)
  NCU_COUNT=8 NCU_METRICS=$traffic timeout 100 bash bench/ncu_kernels.sh "$out/traffic_$w.txt" '_tl$' \
    ./build-gpu/bench/kinetics_rates $flags --reps 1 "$cells"
  echo "$w traffic rc=$? at $(($(date +%s) - t0)) s"
  grep -E "^  dj_|^    [a-z]" "$out/traffic_$w.txt" | sed -E 's/\(.*\)//; s/ +/ /g' | cut -c1-120
done
