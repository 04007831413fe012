#!/usr/bin/env bash
# One device call: build, run the whole suite (GPU cases included), then the GPU benchmarks.
# Writes logs under $OUT (or ./gpu-out). Usage: bench/run_gpu.sh [edges]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -m20 error "$out/build.log"; exit 1; }
(cd build-gpu && ctest --output-on-failure) > "$out/ctest.log" 2>&1; echo "ctest rc=$?" | tee -a "$out/ctest.log"
tail -8 "$out/ctest.log"
./build-gpu/tests/test_backends -ts=gpu -s 2>&1 | grep -E "MESSAGE|ERROR|test cases|assertions" | sed 's/.*MESSAGE: //' > "$out/gpu_tests.log"
cat "$out/gpu_tests.log" | tail -40
export DUALJIT_CACHE_DIR=$PWD/build-gpu/bench-cache
# NVRTC also keeps compiled code in the driver's JIT cache: disable it for a true cold start.
CUDA_CACHE_DISABLE=1 ./build-gpu/bench/jit_compile_cache cold 2>&1 | tee "$out/compile_cold.log"
./build-gpu/bench/jit_compile_cache warm 2>&1 | tee "$out/compile_warm.log"
./build-gpu/bench/element_throughput "${1:-6000000}" 2>&1 | tee "$out/throughput.log"
# The demo, cold then warm (the second run must load from the cache, no NVRTC).
rm -rf "$PWD/build-gpu/demo-cache"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/demo-cache
for run in cold warm; do
  start=$(date +%s.%N)
  ./build-gpu/tools/dualjit demo --elements 6000000 2>&1 | tail -4 | tee "$out/demo_$run.log"
  echo "demo $run wall $(python3 -c "import time; print(round(time.time() - $start, 2))") s" | tee -a "$out/demo_$run.log"
done
./build-gpu/bench/assembly_strategies "${2:-96}" 2>&1 | tee "$out/assembly.log"
