#!/usr/bin/env bash
# One device call for the steady Euler solve: builds, runs the GPU cases of the Krylov solvers
# and the steady solve (DUALJIT_REQUIRE_GPU=1), `dualjit demo --problem cfd-steady`, then
# bench/steady_euler on the GPU and the CPU of the same host. Logs under $OUT.
#
#   OUT=$OUT bash bench/steady_gpu.sh
# Environment: MESHES (bump channels "NX,NY,NZ,BACKEND,EXPLICIT_STEPS", or Gmsh meshes
# "FILE.msh[.gz],BACKEND,EXPLICIT_STEPS", space-separated; default below), DEMO_FLAGS (extra
# options of the demo), SKIP (any of tests, demo, bench), BENCH_TIMEOUT (s per run, 240).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
skip=" ${SKIP:-} "
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
start=$(date +%s)
gpu_build "$out" test_solvers test_examples steady_euler dualjit_cli || exit 1
echo "built in $(( $(date +%s) - start )) s"
export DUALJIT_REQUIRE_GPU=1 DUALJIT_CACHE_DIR=$PWD/build-gpu/test-cache
status=0
if [[ $skip != *" tests "* ]]; then
  ./build-gpu/tests/test_solvers -ts=gpu -tc="*GMRES*,*PCG*,*newton*" > "$out/test_solvers.log" 2>&1 || status=1
  ./build-gpu/tests/test_examples -ts=gpu -tc="*steady*,*Euler*" > "$out/test_examples.log" 2>&1 || status=1
  for s in test_solvers test_examples; do
    echo "$s: $(grep -E "test cases" "$out/$s.log")"
    grep -B3 -A8 "ERROR" "$out/$s.log" | head -60
  done
fi
if [[ $skip != *" demo "* ]]; then
  cli=$(find build-gpu -name dualjit -type f -perm -u+x | head -1)
  ( cd "$out" && timeout 300 "$OLDPWD/$cli" demo --problem cfd-steady ${DEMO_FLAGS:-} ) > "$out/demo_cfd_steady.txt" 2>&1
  echo "demo: exit $?"; tail -30 "$out/demo_cfd_steady.txt"
fi
if [[ $skip != *" bench "* ]]; then
  for m in ${MESHES:-96,4,32,both,1000 192,4,64,both,300 384,8,128,cuda,2000}; do
    if [[ $m == *.msh* ]]; then
      IFS=, read -r file backend steps <<< "$m"
      if [[ $file == *.gz ]]; then gunzip -kf "$file"; file=${file%.gz}; fi
      mesh=(--msh "$file")
      name=$(basename "$file" .msh)
    else
      IFS=, read -r nx ny nz backend steps <<< "$m"
      mesh=(--mesh "$nx" "$ny" "$nz")
      name=${nx}_${ny}_${nz}
    fi
    echo "== steady_euler ${mesh[*]} --backend $backend --explicit-steps $steps"
    timeout "${BENCH_TIMEOUT:-240}" ./build-gpu/bench/steady_euler "${mesh[@]}" \
      --backend "$backend" --explicit-steps "$steps" > "$out/steady_$name.txt" 2>&1
    echo "exit $?"
    grep -E "nodes|^device|RESULT" "$out/steady_$name.txt"
  done
fi
exit $status
