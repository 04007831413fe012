#!/usr/bin/env bash
# One device call for the optimisation solvers on device vectors (issue 15): the GPU test suites
# (bench/gpu_tests.sh), then Newton-CG on the symmetric Dirichlet energy (sd_hvp), L-BFGS on the
# spherical map against optax's L-BFGS in JAX on the same file (sphere_lbfgs,
# peers/sphere_jax.py), and the sphere demo at its GPU default. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/solvers_gpu.sh
#
# SUITES (default: all three of bench/gpu_tests.sh) names the test suites to build and run.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out/tests"
status=0
OUT=$out/tests bash bench/gpu_tests.sh ${SUITES:-} || status=1
source bench/gpu_build.sh
gpu_build "$out" sd_hvp sphere_lbfgs dualjit_cli || exit 1
./build-gpu/bench/sd_hvp --reps 11 --newton-steps 3 160000 1800000 > "$out/sd_hvp.txt" 2>&1
grep RESULT "$out/sd_hvp.txt"
data=build-gpu/sphere-data
mkdir -p "$data"
./build-gpu/bench/sphere_lbfgs --write "$data" 5 6 > "$out/sphere_lbfgs.txt" 2>&1
grep -E "RESULT|device" "$out/sphere_lbfgs.txt"
PYTHONUNBUFFERED=1 python3 bench/peers/sphere_jax.py "$data"/sphere_5.bin "$data"/sphere_6.bin \
  > "$out/sphere_jax.txt" 2>&1
tail -3 "$out/sphere_jax.txt"
./build-gpu/tools/dualjit demo --problem sphere --output "$out/sphere-demo" > "$out/sphere_demo.txt" 2>&1
grep -iE "per L-BFGS|iterations|stop|wall" "$out/sphere_demo.txt" | head -8
exit $status
