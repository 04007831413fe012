#!/usr/bin/env bash
# One device call for edge-based Jacobian storage (issue 18): builds, runs the GPU cases of
# the fused assembly, DeviceGmres and the steady solve (DUALJIT_REQUIRE_GPU=1), then the FUN3D
# assembly by rows against edge-based storage on the tet box (bench/assembly_strategies) and
# the steady solve's storages on a Gmsh mesh (bench/steady_euler: the tuner's per-step times).
#
#   OUT=$OUT bash bench/edge_storage_gpu.sh
# Environment: BOX (cells per side of the box, 95: 6.08 M edges), CASES (assembly_strategies
# cases, default the row-storage default and the edge-based ones), MSH (a tagged Gmsh mesh,
# default .meshes/sphere_4.msh), SKIP (any of tests, assembly, steady).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
skip=" ${SKIP:-} "
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
start=$(date +%s)
gpu_build "$out" test_backends test_solvers test_examples assembly_strategies steady_euler || exit 1
echo "built in $(( $(date +%s) - start )) s"
export DUALJIT_REQUIRE_GPU=1 DUALJIT_CACHE_DIR=$PWD/build-gpu/test-cache
status=0
if [[ $skip != *" tests "* ]]; then
  ./build-gpu/tests/test_backends -ts=gpu -tc="*edge-based*,*staged scatter*,*fused assembly*" \
    > "$out/test_backends.log" 2>&1 || status=1
  ./build-gpu/tests/test_solvers -ts=gpu -tc="*GMRES*" > "$out/test_solvers.log" 2>&1 || status=1
  ./build-gpu/tests/test_examples -ts=gpu -tc="*steady*,*Euler*,*FUN3D*,*storage*" \
    > "$out/test_examples.log" 2>&1 || status=1
  for s in test_backends test_solvers test_examples; do
    echo "$s: $(grep -E "test cases" "$out/$s.log")"
    grep -B3 -A8 "ERROR" "$out/$s.log" | head -60
  done
fi
if [[ $skip != *" assembly "* ]]; then
  DJ_ORDERINGS=natural DJ_CASES=${CASES:-0,5,23,32,43,44,45,46,47} \
    timeout 300 ./build-gpu/bench/assembly_strategies "${BOX:-95}" > "$out/assembly_strategies.txt" 2>&1
  echo "assembly_strategies: exit $?"
  cat "$out/assembly_strategies.txt"
fi
if [[ $skip != *" steady "* ]]; then
  msh=${MSH:-.meshes/sphere_4.msh}
  if [[ $msh == *.gz ]]; then gunzip -kf "$msh"; msh=${msh%.gz}; fi
  timeout 240 ./build-gpu/bench/steady_euler --msh "$msh" --backend cuda --explicit-steps 0 \
    > "$out/steady_$(basename "$msh" .msh).txt" 2>&1
  echo "steady_euler: exit $?"
  grep RESULT "$out/steady_$(basename "$msh" .msh).txt"
fi
exit $status
