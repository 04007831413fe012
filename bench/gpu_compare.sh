#!/usr/bin/env bash
# One device call that measures this tree against other trees on the same GPU, alternating
# runs so that clock drift affects all alike: the Roe FUN3D assembly (default configuration
# and the gathers, bench/assembly_strategies) and the energy terms on the 1 M-vertex spring
# grid (bench/device_problem_bench). The other trees are source copies named in $TREES as
# name:path pairs (default "before:.dev/before"; make one with `git archive REV | tar -x -C
# .dev/before`). Stages: build, test (the whole suite with DUALJIT_REQUIRE_GPU=1), compare,
# kernels (per-kernel times of the energy terms under ncu), energy (autotune of the spring
# grid's modes through the CLI), tune (autotune, bench, demo cold and warm). Usage: bench/gpu_compare.sh [stages...] (default: build test compare)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
trees=${TREES:-before:.dev/before}
names=""
for t in $trees; do names+=" ${t%%:*}"; done
mkdir -p "$out"
stages=${*:-build test compare}
has() { [[ " $stages " == *" $1 "* ]]; }
if has build; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
  cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -m20 -A3 error "$out/build.log"; exit 1; }
  for t in $trees; do
    name=${t%%:*} src=${t#*:}
    [[ -d $src ]] || continue
    cmake -S "$src" -B build-$name -DCMAKE_BUILD_TYPE=Release -DDUALJIT_BUILD_TESTS=OFF > "$out/cmake_$name.log" 2>&1 || { tail -30 "$out/cmake_$name.log"; exit 1; }
    cmake --build build-$name -j16 --target assembly_strategies device_problem_bench > "$out/build_$name.log" 2>&1 || { grep -m20 -A3 error "$out/build_$name.log"; exit 1; }
  done
  echo "built"
fi
if has test; then
  (cd build-gpu && DUALJIT_REQUIRE_GPU=1 ctest -j4 --output-on-failure) > "$out/ctest.log" 2>&1; echo "ctest rc=$?" | tee -a "$out/ctest.log"
  tail -10 "$out/ctest.log"
  for s in test_backends test_examples; do
    DUALJIT_REQUIRE_GPU=1 ./build-gpu/tests/$s -ts=gpu 2>&1 | grep -E "ERROR|test cases|assertions" | tee -a "$out/gpu_tests.log"
  done
fi
if has compare; then
  export DJ_ORDERINGS=natural
  # Case 5: staged scatter W10 1x64 (the default); 32: staged gather W5 1x64; 40: the
  # warp-specialised gather (case numbers of bench/assembly_strategies.cpp, equal in both trees).
  for round in 1 2; do
    for tree in $names gpu; do
      [[ -x build-$tree/bench/assembly_strategies ]] || continue
      DJ_CASES=5,32,40 CUDA_CACHE_DISABLE=1 DUALJIT_CACHE_DIR=$PWD/build-$tree/cmp-cache \
        ./build-$tree/bench/assembly_strategies 96 2>&1 | grep -E "^dj_|copy bandwidth|floor" \
        | sed "s/^/[$tree $round] /" | tee -a "$out/compare_assembly.log"
    done
  done
  for round in 1 2; do
    for tree in $names gpu; do
      [[ -x build-$tree/bench/device_problem_bench ]] || continue
      DUALJIT_CACHE_DIR=$PWD/build-$tree/cmp-cache ./build-$tree/bench/device_problem_bench \
        --grid 100 --reps 20 2>&1 | tail -12 | sed "s/^/[$tree $round] /" | tee -a "$out/compare_energy.log"
    done
  done
fi
if has kernels; then
  for tree in $names gpu; do
    [[ -x build-$tree/bench/device_problem_bench ]] || continue
    DUALJIT_CACHE_DIR=$PWD/build-$tree/cmp-cache ncu --metrics gpu__time_duration.sum \
      --launch-count 120 ./build-$tree/bench/device_problem_bench --grid 100 \
      --reps 3 > "$out/ncu_$tree.log" 2>&1
    echo "== $tree"
    grep -E "^  [a-z_]+.*\(|gpu__time_duration" "$out/ncu_$tree.log" | paste - - \
      | awk '{print $1, $(NF)}' | sort | uniq -c | head -20
  done
fi
if has energy; then
  # The spring grid through the CLI: autotune each mode (element strategy x W x layout), then
  # bench the tuned choice against the heuristic.
  export DUALJIT_CACHE_DIR=$PWD/build-gpu/tune-cache
  for mode in gradient hvp hessian value; do
    ./build-gpu/tools/dualjit autotune spring-grid --mode $mode --budget "${AUTOTUNE_BUDGET:-60}" \
      > "$out/autotune_grid_$mode.log" 2>&1; echo "autotune rc=$?" >> "$out/autotune_grid_$mode.log"
    grep -v "^\[" "$out/autotune_grid_$mode.log" | grep -E "^[ *] |winner|rc=" | head -30
  done
fi
if has tune; then
  export DUALJIT_CACHE_DIR=$PWD/build-gpu/tune-cache
  ./build-gpu/tools/dualjit autotune cfd-roe --size 6000000 --budget "${AUTOTUNE_BUDGET:-150}" > "$out/autotune.log" 2>&1; echo "autotune rc=$?" >> "$out/autotune.log"
  grep -v "^\[" "$out/autotune.log" | tail -40
  ./build-gpu/tools/dualjit bench cfd-roe --size 6000000 2>&1 | tee "$out/bench_cli.log" | tail -12
  for run in cold warm; do
    [[ $run == cold ]] && rm -rf "$PWD/build-gpu/demo-cache"
    DUALJIT_CACHE_DIR=$PWD/build-gpu/demo-cache CUDA_CACHE_DISABLE=1 ./build-gpu/tools/dualjit demo > "$out/demo_$run.log" 2>&1
    echo "demo $run rc=$?" >> "$out/demo_$run.log"
  done
  cat "$out/demo_warm.log"
fi
