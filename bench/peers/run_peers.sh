#!/usr/bin/env bash
# One device call: the benchmark meshes, the hand-written CUDA peer's build, all peers on every
# node ordering, dualjit's own checksums of the same files, and a table. Logs under $OUT (else
# ./peers-out).
#
# Usage (from anywhere; paths are resolved against the repository):
#   bash bench/peers/run_peers.sh [CELLS=96]
#       dualjit's benchmark mesh: write_djmesh CELLS (box_tet_mesh(CELLS^3), median-dual areas,
#       perturbed_state seed 3; 96 -> 912,673 nodes, ~6.3 M edges), node orders natural, random
#       and rcm: the meshes of bench/assembly_strategies (the state is drawn in natural order and
#       moves with its node, so all files are one problem and their checksums agree).
#   bash bench/peers/run_peers.sh FILE.bin:label [FILE.bin:label ...]
#       DJMESH1 files written earlier (e.g. by write_djmesh); the label names the ordering.
#   MESHGEN=synthetic bash bench/peers/run_peers.sh [NODES=1000000]
#       fallback without a dualjit build: make_mesh.py's synthetic edge graph, natural + random.
# Env: WRITE_DJMESH (default ../../build-gpu/bench/write_djmesh), DJMESH_CHECK (default: beside
#      it; skipped if missing), DJCHECK (first: dualjit's checksums of the first file only; all),
#      ORDERS (natural,random,rcm), REPS (21), COMPILE_TIMEOUT (s for the
#      torch.compile attempt on the first mesh, 0 skips it; 100), WORK (scratch for meshes and
#      the binary; /tmp/djpeers), JAX_CHUNK / TORCH_CHUNK (0), SKIP (space-separated peers to
#      skip: handwritten jax torch dualjit).
set -uo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
REPS=${REPS:-21}
out=${OUT:-peers-out}
work=${WORK:-/tmp/djpeers}
skip=" ${SKIP:-} "
mkdir -p "$out" "$work"
export PYTHONUNBUFFERED=1
start=$(date +%s)
stamp() { echo "== $* ($(( $(date +%s) - start )) s)"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv;
  nvcc --version | tail -1; python3 --version; } 2>&1 | tee "$out/device.txt"

write_djmesh=${WRITE_DJMESH:-$root/build-gpu/bench/write_djmesh}
djmesh_check=${DJMESH_CHECK:-$(dirname "$write_djmesh")/djmesh_check}
specs=()  # FILE:label
if [ $# -gt 0 ] && [ -f "${1%%:*}" ]; then
  specs=("$@")
  stamp "given meshes: ${specs[*]}"
  build_meshes() { :; }
elif [ "${MESHGEN:-djmesh}" = synthetic ]; then
  N=${1:-1000000}
  specs=("$work/natural.bin:natural" "$work/random.bin:random")
  stamp "synthetic meshes (make_mesh.py, $N nodes)"
  build_meshes() {
    python3 make_mesh.py "$work/natural.bin" --nodes "$N" --order natural &
    python3 make_mesh.py "$work/random.bin" --nodes "$N" --order random &
    wait
  }
else
  CELLS=${1:-96}
  ORDERS=${ORDERS:-natural,random,rcm}
  if [ ! -x "$write_djmesh" ]; then
    echo "error: $write_djmesh not found: build dualjit (bench/write_djmesh), set WRITE_DJMESH," \
         "or use MESHGEN=synthetic" >&2
    exit 1
  fi
  for o in ${ORDERS//,/ }; do specs+=("$work/$o.bin:$o"); done
  stamp "dualjit meshes (write_djmesh $CELLS: $ORDERS)"
  build_meshes() { "$write_djmesh" "$CELLS" "$work" --orders "$ORDERS"; }
fi

( nvcc -O3 -arch=sm_90 -Xptxas -v -o "$work/roe_handwritten" roe_handwritten.cu > "$out/build.log" 2>&1
  echo "nvcc rc=$?" >> "$out/build.log" ) &
build_meshes 2>&1 | tee "$out/meshes.log"
wait
grep -E "rc=|error|Compiling|stack|registers" "$out/build.log" | sed 's/ptxas info *: //'
for s in "${specs[@]}"; do
  [ -f "${s%%:*}" ] || { echo "error: mesh ${s%%:*} missing" >&2; exit 1; }
done

# dualjit's checksums (serial host assembly, no GPU; ~20 s per 6 M-edge file on 2 cores), before
# any timing. The orderings are permutations of one problem, so by default only the first file
# is checked and every peer's line is compared with it; DJCHECK=all checks every file.
: > "$out/dualjit_check.log"
check_specs=("${specs[0]}")
[ "${DJCHECK:-first}" = all ] && check_specs=("${specs[@]}")
if [[ "$skip" != *" dualjit "* ]] && [ -x "$djmesh_check" ]; then
  stamp "dualjit checksums (djmesh_check, host: ${check_specs[*]})"
  "$djmesh_check" "${check_specs[@]}" 2>&1 | tee "$out/dualjit_check.log"
  echo "djmesh_check rc=${PIPESTATUS[0]}" | tee -a "$out/dualjit_check.log"
elif [[ "$skip" != *" dualjit "* ]]; then
  echo "(no $djmesh_check: dualjit's checksums not computed)"
fi

: > "$out/handwritten.log"
if [[ "$skip" != *" handwritten "* ]]; then
  stamp "hand-written CUDA"
  for s in "${specs[@]}"; do
    "$work/roe_handwritten" "${s%%:*}" --label "${s#*:}" --reps "$REPS" 2>&1
    echo "roe_handwritten ${s#*:} rc=$?"
  done | tee "$out/handwritten.log"
fi

: > "$out/jax.log"
if [[ "$skip" != *" jax "* ]]; then
  stamp "JAX"
  python3 roe_jax.py "${specs[@]}" --reps "$REPS" --chunk "${JAX_CHUNK:-0}" 2>&1 | grep -v "^WARNING: All log messages" | tee "$out/jax.log"
  echo "roe_jax rc=${PIPESTATUS[0]}" | tee -a "$out/jax.log"
fi

: > "$out/torch.log"
: > "$out/torch_compile.log"
if [[ "$skip" != *" torch "* ]]; then
  stamp "PyTorch eager"
  python3 roe_torch.py "${specs[@]}" --reps "$REPS" --chunk "${TORCH_CHUNK:-0}" 2>&1 | tee "$out/torch.log"
  echo "roe_torch rc=${PIPESTATUS[0]}" | tee -a "$out/torch.log"

  if [ "${COMPILE_TIMEOUT:-100}" -gt 0 ]; then
    stamp "PyTorch torch.compile (${specs[0]#*:} only, limit ${COMPILE_TIMEOUT:-100} s)"
    timeout "${COMPILE_TIMEOUT:-100}" python3 roe_torch.py "${specs[0]}" --reps "$REPS" \
      --chunk "${TORCH_CHUNK:-0}" --compile --no-eager > "$out/torch_compile.log" 2>&1
    echo "roe_torch --compile rc=$?" | tee -a "$out/torch_compile.log"
    grep -E "^\[torch_compile\]|^RESULT|^CHECK" "$out/torch_compile.log" | cut -c1-400
  fi
fi

stamp "summary"
python3 summarize.py "$out"/dualjit_check.log "$out"/handwritten.log "$out"/jax.log "$out"/torch.log \
  "$out"/torch_compile.log 2>&1 | tee "$out/summary.txt"
