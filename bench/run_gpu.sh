#!/usr/bin/env bash
# One device call: build, run the whole suite (GPU cases included), then the GPU benchmarks:
# compile/cache latency, element throughput, the fused assembly strategies, the Assembler
# (energy terms), and the dualjit command (demo cold and warm, autotune, bench) on the CFD
# problem. Writes logs under $OUT (or ./gpu-out). Usage: bench/run_gpu.sh [edges] [cells]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
edges=${1:-6000000}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -m20 error "$out/build.log"; exit 1; }
(cd build-gpu && ctest --output-on-failure) > "$out/ctest.log" 2>&1; echo "ctest rc=$?" | tee -a "$out/ctest.log"
tail -8 "$out/ctest.log"
./build-gpu/tests/test_backends -ts=gpu 2>&1 | grep -E "ERROR|test cases|assertions" | tee "$out/gpu_tests.log"
./build-gpu/tests/test_examples -ts=gpu 2>&1 | grep -E "ERROR|test cases|assertions" | tee -a "$out/gpu_tests.log"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/bench-cache
# NVRTC also keeps compiled code in the driver's JIT cache: disable it for a true cold start.
CUDA_CACHE_DISABLE=1 ./build-gpu/bench/jit_compile_cache cold > "$out/compile_cold.log" 2>&1
./build-gpu/bench/jit_compile_cache warm > "$out/compile_warm.log" 2>&1
tail -4 "$out/compile_cold.log" "$out/compile_warm.log"
./build-gpu/bench/element_throughput "$edges" > "$out/throughput.log" 2>&1
DJ_ORDERINGS=${DJ_ORDERINGS:-natural,rcm,random} ./build-gpu/bench/assembly_strategies "${2:-96}" 2>&1 | grep -v "^ptxas\|^compiler log" | tee "$out/assembly.log"
./build-gpu/bench/device_problem_bench --grid 100 --reps 20 2>&1 | tee "$out/device_problem.log" | tail -9
# The dualjit command on the CFD problem: demo cold then warm (the second must not run
# NVRTC), autotune, and bench (the tuned choice against the heuristic).
rm -rf "$PWD/build-gpu/demo-cache"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/demo-cache
for run in cold warm; do
  start=$(date +%s.%N)
  CUDA_CACHE_DISABLE=1 ./build-gpu/tools/dualjit demo > "$out/demo_$run.log" 2>&1
  echo "demo $run rc=$? wall $(python3 -c "import time; print(round(time.time() - $start, 2))") s" | tee -a "$out/demo_$run.log"
done
cat "$out/demo_warm.log"
./build-gpu/tools/dualjit autotune cfd-roe --size "$edges" --budget "${AUTOTUNE_BUDGET:-150}" > "$out/autotune.log" 2>&1; echo "autotune rc=$?" >> "$out/autotune.log"
grep -v "^\[" "$out/autotune.log" | tail -45
./build-gpu/tools/dualjit bench cfd-roe --size "$edges" 2>&1 | tee "$out/bench_cli.log" | tail -12
./build-gpu/tools/dualjit info 2>&1 | tee "$out/info.log" | head -20
