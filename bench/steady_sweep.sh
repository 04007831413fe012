#!/usr/bin/env bash
# One device call: the steady solve's knobs on one mesh, GPU only, each configuration's time to
# convergence and Krylov iterations (bench/steady_euler, no explicit comparison): Gauss-Seidel
# sweeps, GMRES tolerance (the floor under Eisenstat-Walker), Eisenstat-Walker on or off,
# initial CFL and SER exponent. Logs under $OUT.
#
#   OUT=$OUT bash bench/steady_sweep.sh MESH.msh[.gz]
# Environment: CONFIGS ("SWEEPS,LINEAR_RTOL,EW,CFL0,SER ...", default below).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
file=$1
if [[ $file == *.gz ]]; then gunzip -kf "$file"; file=${file%.gz}; fi
source bench/gpu_build.sh
gpu_build "$out" steady_euler || exit 1
export DUALJIT_CACHE_DIR=$PWD/build-gpu/test-cache
for c in ${CONFIGS:-2,1e-3,0,10,1 2,1e-3,1,10,1 1,1e-3,1,10,1 2,1e-3,1,100,1 2,1e-3,1,10,1.5}; do
  IFS=, read -r sweeps rtol ew cfl ser <<< "$c"
  echo "== sweeps $sweeps, GMRES rtol $rtol, Eisenstat-Walker $ew, CFL0 $cfl, SER $ser"
  log=$out/sweep_${sweeps}_${rtol}_${ew}_${cfl}_${ser}.txt
  timeout 120 ./build-gpu/bench/steady_euler --msh "$file" --backend cuda --explicit-steps 0 \
    --sweeps "$sweeps" --linear-rtol "$rtol" --eisenstat-walker "$ew" --cfl0 "$cfl" \
    --ser "$ser" > "$log" 2>&1
  echo "exit $?"
  grep -E "RESULT backend=cuda nodes" "$log"
done
