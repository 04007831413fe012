#!/usr/bin/env bash
# One device call for warm starts (issue 16's 50 ms): builds the benchmarks (bench/gpu_build.sh),
# then over a fresh kernel cache runs each program cold once and warm three times, each a new
# process: jit_compile_cache (the Roe flux Jacobian: build, lower, disk hit, module load),
# kinetics_rates at 10,000 cells (GRI-3.0 rates and (T, Y) Jacobian, default and full effort in
# rows of 2: first_call_s is lowering, cache, module loads and the first evaluation), and
# kinetics_compile --no-compile (lowering alone, the launches' digests included, on this host's
# cores). Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/warm_start_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
gpu_build "$out" jit_compile_cache kinetics_rates kinetics_compile || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/warm-start-cache
rm -rf "$DUALJIT_CACHE_DIR"
# One line per output: a kernel in launches prints one RESULT line per launch, the same time.
first_calls() {
  grep -o 'output=[a-z]* .*compiled_now=[01] first_call_s=[0-9.]*' |
    sed 's/kernel=[^ ]* //; s/flops.*compiled_now/compiled_now/' | uniq
}
for run in cold warm warm warm; do
  echo "== $run"
  ./build-gpu/bench/jit_compile_cache "$run" 2>&1 | tee -a "$out/jit_compile_cache.txt" | grep 'start'
  ./build-gpu/bench/kinetics_rates --reps 1 10000 2>&1 | tee -a "$out/kinetics_rates.txt" | first_calls
  ./build-gpu/bench/kinetics_rates --reps 1 --effort full --rows 2 10000 2>&1 |
    tee -a "$out/kinetics_rates_full.txt" | first_calls
done
for i in 1 2 3; do
  ./build-gpu/bench/kinetics_compile --no-compile --state constant-pressure gri30.yaml
  ./build-gpu/bench/kinetics_compile --no-compile --state constant-pressure --rows 2 gri30.yaml
done 2>&1 | tee "$out/kinetics_compile.txt" | grep -v '^mechanism'
