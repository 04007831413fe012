#!/usr/bin/env bash
# One device call: make the meshes (natural and random node order), build the hand-written CUDA
# peer, run all peers on both orderings, print a table. Logs under $OUT (else ./peers-out).
# Usage: bash bench/peers/run_peers.sh [NODES=1000000]   (about 6 edges per node)
# Env: REPS (21), COMPILE_TIMEOUT (s for the torch.compile attempt, 0 skips it; 100),
#      WORK (scratch for meshes and the binary; /tmp/djpeers), JAX_CHUNK / TORCH_CHUNK (0).
set -uo pipefail
cd "$(dirname "$0")"
N=${1:-1000000}
REPS=${REPS:-21}
out=${OUT:-peers-out}
work=${WORK:-/tmp/djpeers}
mkdir -p "$out" "$work"
export PYTHONUNBUFFERED=1
start=$(date +%s)
stamp() { echo "== $* ($(( $(date +%s) - start )) s)"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv;
  nvcc --version | tail -1; python3 --version; } 2>&1 | tee "$out/device.txt"

stamp "build + meshes ($N nodes)"
( nvcc -O3 -arch=sm_90 -Xptxas -v -o "$work/roe_handwritten" roe_handwritten.cu > "$out/build.log" 2>&1
  echo "nvcc rc=$?" >> "$out/build.log" ) &
python3 make_mesh.py "$work/natural.bin" --nodes "$N" --order natural &
python3 make_mesh.py "$work/random.bin" --nodes "$N" --order random &
wait
grep -E "rc=|error|Compiling|stack|registers" "$out/build.log" | sed 's/ptxas info *: //'
meshes="$work/natural.bin:natural $work/random.bin:random"

stamp "hand-written CUDA"
for o in natural random; do
  "$work/roe_handwritten" "$work/$o.bin" --label "$o" --reps "$REPS" 2>&1
  echo "roe_handwritten $o rc=$?"
done | tee "$out/handwritten.log"

stamp "JAX"
python3 roe_jax.py $meshes --reps "$REPS" --chunk "${JAX_CHUNK:-0}" 2>&1 | grep -v "^WARNING: All log messages" | tee "$out/jax.log"
echo "roe_jax rc=${PIPESTATUS[0]}" | tee -a "$out/jax.log"

stamp "PyTorch eager"
python3 roe_torch.py $meshes --reps "$REPS" --chunk "${TORCH_CHUNK:-0}" 2>&1 | tee "$out/torch.log"
echo "roe_torch rc=${PIPESTATUS[0]}" | tee -a "$out/torch.log"

if [ "${COMPILE_TIMEOUT:-100}" -gt 0 ]; then
  stamp "PyTorch torch.compile (natural only, limit ${COMPILE_TIMEOUT:-100} s)"
  timeout "${COMPILE_TIMEOUT:-100}" python3 roe_torch.py "$work/natural.bin:natural" --reps "$REPS" \
    --chunk "${TORCH_CHUNK:-0}" --compile --no-eager > "$out/torch_compile.log" 2>&1
  echo "roe_torch --compile rc=$?" | tee -a "$out/torch_compile.log"
  grep -E "^\[torch_compile\]|^RESULT|^CHECK" "$out/torch_compile.log" | cut -c1-400
fi

stamp "summary"
python3 summarize.py "$out"/handwritten.log "$out"/jax.log "$out"/torch.log "$out"/torch_compile.log 2>&1 | tee "$out/summary.txt"
