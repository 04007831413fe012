#!/usr/bin/env bash
# Distributed runs on the GPU machine (issue 19): the GPU machines have no MPI, PETSc or METIS,
# so Debian's travel as .mpi/debian-mpi-petsc.tar.xz (tools/pack-mpi.sh; carry ".mpi"), which
# bench/gpu_build.sh unpacks into / without replacing anything there. Builds test_mpi,
# mpi_steady_euler and dualjit in build-gpu, runs the MPI suite (its GPU case too,
# DUALJIT_REQUIRE_GPU=1) at 1, 2 and 4 ranks, the distributed demo on the GPU, and the timing of
# STEADY_MESH (default 96 4 32) at STEADY_RANKS (1 2 4) ranks. Each rank takes its host's GPUs
# in turn (select_rank_device): one rank per GPU where there are as many, else ranks share.
# Logs under $OUT (default gpu-out). Multi-GPU scaling: bench/mpi_scaling_gpu.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" test_mpi mpi_steady_euler dualjit_cli || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun --version | head -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/test-cache OMP_NUM_THREADS=4
status=0
for np in 1 2 4; do
  DUALJIT_REQUIRE_GPU=1 mpirun -np $np build-gpu/tests/test_mpi > "$out/test_mpi_np$np.log" 2>&1 || status=1
  echo "test_mpi np $np: $(grep -E "test cases" "$out/test_mpi_np$np.log" | sort | uniq -c | tr -s ' ')"
  grep -B3 -A8 "ERROR" "$out/test_mpi_np$np.log" | head -30
done
dualjit=$PWD/build-gpu/tools/dualjit
(cd "$out" && mpirun -np 2 "$dualjit" demo --problem cfd-steady --geometry bump \
  --size 4 > demo_np2.log 2>&1) || status=1
grep -E "cfd-steady:|final|demo:" "$out/demo_np2.log"
(cd "$out" && "$dualjit" demo --problem cfd-steady --geometry bump --size 4 \
  --explicit-steps 0 > demo_np1.log 2>&1) || status=1
grep -E "cfd-steady:|final|demo:" "$out/demo_np1.log"
# STEADY_RUNS: backend:linear pairs (cuda:device, cuda:host, cpu:host); STEADY_RANKS="" skips.
for np in ${STEADY_RANKS-1 2 4}; do
  for run in ${STEADY_RUNS:-cuda:device cuda:host cpu:host}; do
    echo "== $np rank(s), ${run%%:*} assembly, ${run##*:} linear algebra"
    # Unbound: Open MPI binds each of two or fewer ranks to one core, its threads with it.
    OMP_NUM_THREADS=$(($(nproc) / np)) mpirun -np $np --bind-to none build-gpu/bench/mpi_steady_euler \
      --backend ${run%%:*} --linear ${run##*:} --mesh ${STEADY_MESH:-96 4 32} 2>&1 |
      tee "$out/steady_np${np}_${run/:/_}.log" | tail -4
  done
done
exit $status
