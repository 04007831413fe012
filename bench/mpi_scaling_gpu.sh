#!/usr/bin/env bash
# Multi-GPU scaling of the distributed steady Euler path (issue 19), one rank per GPU, on a
# machine of several GPUs (carry ".mpi" and ".yaml"; builds build-gpu through bench/gpu_build.sh).
# For P = 1, 2, 4, ... up to the host's GPU count, bench/mpi_steady_euler reports the slowest
# rank's ghost exchange, host-staged residual and Jacobian, and its residual and Jacobian on its
# GPU alone (state resident, CUDA events):
#   strong: STRONG_MESH (default 384 8 256: 889,785 nodes, 5.8 M edges) at every P;
#   weak:   WEAK_MESH (default 384 8 128: 446,985 nodes per GPU), nz doubled, then nx, with P;
#   solve:  the whole PETSc solve (GMRES with the products and preconditioner on each rank's
#           GPU) of SOLVE_MESH (default 192 4 64) at every P.
# Logs under $OUT (default gpu-out); the RESULT lines gathered in $OUT/scaling.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
source bench/gpu_build.sh
gpu_build "$out" mpi_steady_euler || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/scaling-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
gpus=$(nvidia-smi -L | wc -l)
counts=""
for ((p = 1; p <= gpus; p *= 2)); do counts="$counts $p"; done
read -r sx sy sz <<< "${STRONG_MESH:-384 8 256}"
read -r wx wy wz <<< "${WEAK_MESH:-384 8 128}"
status=0
run() {  # run NAME NP ARGS...
  local name=$1 np=$2
  shift 2
  echo "== $name, $np GPU(s): $*"
  # Unbound: Open MPI binds each of two or fewer ranks to one core, its threads with it.
  OMP_NUM_THREADS=$(($(nproc) / np)) mpirun -np "$np" --bind-to none \
    build-gpu/bench/mpi_steady_euler --backend cuda "$@" > "$out/$name.log" 2>&1 || status=1
  grep -E "^(slowest|solve|one GPU)" "$out/$name.log"
  grep "^RESULT" "$out/$name.log" | sed "s/^RESULT/RESULT run=$name/" >> "$out/scaling.txt"
}
: > "$out/scaling.txt"
for p in $counts; do
  run "strong_np$p" "$p" --no-solve --mesh "$sx" "$sy" "$sz"
  # Weak: the mesh grows with P, doubling nz and nx in turn.
  nx=$wx nz=$wz
  for ((k = 1, d = 0; k < p; k *= 2, d ^= 1)); do
    if ((d == 0)); then nz=$((nz * 2)); else nx=$((nx * 2)); fi
  done
  if [[ "$nx $wy $nz" == "$sx $sy $sz" ]]; then
    echo "== weak_np$p: the strong run's mesh"
    grep "^RESULT run=strong_np$p " "$out/scaling.txt" | sed "s/run=strong/run=weak/" >> "$out/scaling.txt"
  else
    run "weak_np$p" "$p" --no-solve --mesh "$nx" "$wy" "$nz"
  fi
  run "solve_np$p" "$p" --linear device --mesh ${SOLVE_MESH:-192 4 64}
done
exit $status
