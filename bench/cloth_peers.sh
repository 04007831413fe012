#!/usr/bin/env bash
# One device call: the cloth step (bench/cloth_step.cpp), its Newton solve (bench/
# cloth_newton.cpp) and its JAX and PyTorch peers (bench/peers/cloth_jax.py, cloth_torch.py) on
# the same GPU, for the sizes given (default 100 500 1000). Logs under $OUT (default gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
sizes=${*:-100 500 1000}
mkdir -p "$out"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDUALJIT_BUILD_TESTS=OFF > "$out/cmake.log" 2>&1 &&
  cmake --build build-gpu -j16 --target cloth_step cloth_newton > "$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
DUALJIT_CACHE_DIR=$PWD/build-gpu/cloth-cache ./build-gpu/bench/cloth_step $sizes 2>&1 | tee "$out/cloth_step.log"
DUALJIT_CACHE_DIR=$PWD/build-gpu/cloth-cache ./build-gpu/bench/cloth_newton $sizes 2>&1 | tee "$out/cloth_newton.log"
python3 bench/peers/cloth_jax.py $sizes 2>&1 | grep -v "^W\|^I0\|^E0" | tee "$out/cloth_jax.log"
# Dr.Jit travels as a wheel (.whl, carried): see the device README.
if [[ -d .whl ]]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/drjit-*.whl &&
    PYTHONPATH=/tmp/site python3 bench/peers/cloth_drjit.py $sizes 2>&1 | tee "$out/cloth_drjit.log"
fi
python3 bench/peers/cloth_torch.py $sizes 2>&1 | grep -v "FutureWarning\|warnings.warn" | tee "$out/cloth_torch.log"
