#!/usr/bin/env bash
# Distributed runs on the GPU machine (issue 19: several ranks sharing one GPU, where no
# multi-GPU machine is lent): that machine has no MPI, PETSc or METIS, so Debian's travel as
# .mpi/debian-mpi-petsc.tar.xz (tools/pack-mpi.sh; carry ".mpi") and are unpacked into /
# without replacing anything there. Builds test_mpi, mpi_steady_euler and dualjit in build-mpi,
# runs the MPI suite (its GPU case too, DUALJIT_REQUIRE_GPU=1) at 1, 2 and 4 ranks, the
# distributed demo on the GPU, and the timing of STEADY_MESH (default 96 4 32) at STEADY_RANKS
# (1 2 4) ranks sharing the GPU. Logs under $OUT (default gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
tar -xJf .mpi/debian-mpi-petsc.tar.xz -C / --skip-old-files || exit 1
ldconfig
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun --version | head -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=Release -DDUALJIT_BUILD_BENCH=ON > "$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
grep -E "not found|left out" "$out/cmake.log"
cmake --build build-mpi -j16 --target test_mpi mpi_steady_euler dualjit_cli > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" -A3 "$out/build.log" | head -40; exit 1; }
export DUALJIT_CACHE_DIR=$PWD/build-mpi/test-cache OMP_NUM_THREADS=4
status=0
for np in 1 2 4; do
  DUALJIT_REQUIRE_GPU=1 mpirun -np $np build-mpi/tests/test_mpi > "$out/test_mpi_np$np.log" 2>&1 || status=1
  echo "test_mpi np $np: $(grep -E "test cases" "$out/test_mpi_np$np.log" | sort | uniq -c | tr -s ' ')"
  grep -B3 -A8 "ERROR" "$out/test_mpi_np$np.log" | head -30
done
dualjit=$PWD/build-mpi/tools/dualjit
(cd "$out" && mpirun -np 2 "$dualjit" demo --problem cfd-steady --geometry bump \
  --size 4 > demo_np2.log 2>&1) || status=1
grep -E "cfd-steady:|final|demo:" "$out/demo_np2.log"
(cd "$out" && "$dualjit" demo --problem cfd-steady --geometry bump --size 4 \
  --explicit-steps 0 > demo_np1.log 2>&1) || status=1
grep -E "cfd-steady:|final|demo:" "$out/demo_np1.log"
# STEADY_RUNS: backend:linear pairs (cuda:device, cuda:host, cpu:host).
for np in ${STEADY_RANKS:-1 2 4}; do
  for run in ${STEADY_RUNS:-cuda:device cuda:host cpu:host}; do
    echo "== $np rank(s), ${run%%:*} assembly, ${run##*:} linear algebra"
    # Unbound: Open MPI binds each of two or fewer ranks to one core, its threads with it.
    OMP_NUM_THREADS=$((16 / np)) mpirun -np $np --bind-to none build-mpi/bench/mpi_steady_euler \
      --backend ${run%%:*} --linear ${run##*:} --mesh ${STEADY_MESH:-96 4 32} 2>&1 |
      tee "$out/steady_np${np}_${run/:/_}.log" | tail -4
  done
done
exit $status
