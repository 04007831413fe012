#!/usr/bin/env bash
# Kinetics kernel configurations on one GPU (issue 16): each line of CONFIG_FILE is
# "name | environment assignments | kinetics_rates flags" ("#" starts a comment). All
# configurations are first compiled concurrently (one process each, CELLS=1000, into one disk
# cache: NVRTC is single-threaded and the machine has many cores), then timed one after another
# from the warm cache at $CELLS. Logs under $OUT.
# Usage: YAML_CPP_ROOT=... bench/kinetics_sweep.sh CONFIG_FILE [CELLS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
configs=$1
cells=${2:-100000}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
gpu_build "$out" kinetics_rates || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/sweep-cache
start=$(date +%s)
run() {  # run NAME ENV FLAGS CELLS REPS
  env $2 ./build-gpu/bench/kinetics_rates --reps "$5" $3 "$4"
}
while IFS='|' read -r name envs flags; do
  name=$(echo $name)
  [[ -z $name || $name == \#* ]] && continue
  (run "$name" "$envs" "$flags" 1000 1 > "$out/compile_$name.log" 2>&1
   echo "compiled $name: rc $? at $(( $(date +%s) - start )) s") &
done < "$configs"
wait
while IFS='|' read -r name envs flags; do
  name=$(echo $name)
  [[ -z $name || $name == \#* ]] && continue
  run "$name" "$envs" "$flags" "$cells" 7 > "$out/time_$name.log" 2>&1
  echo "$name: $(grep -E '^RESULT kinetics_dualjit' "$out/time_$name.log" | grep -oE '(w_ms|J_ms|Jc_ms|Jcol_ms|J_abs_sum|Jc_rel)=[^ ]+' | tr '\n' ' ')"
  echo "   $(grep -E '^RESULT kinetics_compile' "$out/time_$name.log" | grep -oE '(output|registers|spill_bytes|flops)=[^ ]+' | tr '\n' ' ')"
done < "$configs"
