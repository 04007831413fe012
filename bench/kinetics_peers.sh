#!/usr/bin/env bash
# One device call: issue 16's kinetics benchmark and its JAX peer on the same GPU and the same
# states. bench/kinetics_rates.cpp times the rates and the per-cell Jacobian (cold compile: the
# kernel cache starts empty) and writes the mechanism and the states with --write into $WORK; a
# second, small run shows the warm start from the disk cache; peers/kinetics_jax.py reads the
# files; peers/kinetics_summary.py prints the tables (times, JAX / dualjit, dualjit / floor, the
# targets, checksum differences, compile times) to $OUT/summary.txt.
#
#   bench/kinetics_peers.sh [CELLS ...]     (default 10000 100000 1000000)
#
# Environment: YAML_CPP_ROOT (an unpacked Debian libyaml-cpp-dev and libyaml-cpp0.7, as
# bench/gpu_tests.sh takes it: the GPU machines have no yaml-cpp); MECHANISM (FILE[:PHASE], gri30.yaml); REPS (15); CHUNK
# (JAX Jacobian cells per call, 16384); SKIP=jax; PEER_TIMEOUT (seconds, 300); OUT (logs,
# default gpu-out); WORK (data files, default /tmp/dj-kinetics); PYTHON; BUILD_DIR (a tree
# already built: no cmake here); BUILD_ONLY=1 (stop after the build: a first call, when the
# build and the runs together would not fit one call's time); CPU=1 (the CPU backend, untimed,
# default 1000 cells: a dry run of the whole pipeline without a GPU).
# Device call, with the unpacked Debian package in .yaml/ (carried):
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT \
#     bash bench/kinetics_peers.sh
set -uo pipefail
cd "$(dirname "$0")/.."
cpu=()
[[ ${CPU:-0} == 1 ]] && cpu=(--cpu)
if (($#)); then cells="$*"; elif ((${#cpu[@]})); then cells=1000; else
  cells="10000 100000 1000000"; fi
out=${OUT:-gpu-out}
work=${WORK:-/tmp/dj-kinetics}
py=${PYTHON:-python3}
build=${BUILD_DIR:-build-gpu}
reps=${REPS:-15}
mkdir -p "$out" "$work"
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader \
  > "$out/device.txt" 2>&1
yaml=()
if [[ -n ${YAML_CPP_ROOT:-} ]]; then
  yaml=(-Dyaml-cpp_DIR="$YAML_CPP_ROOT/usr/lib/x86_64-linux-gnu/cmake/yaml-cpp")
  export LD_LIBRARY_PATH="$YAML_CPP_ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [[ -z ${BUILD_DIR:-} ]]; then
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDUALJIT_BUILD_TESTS=OFF \
    -DDUALJIT_BUILD_BENCH=ON ${yaml[@]+"${yaml[@]}"} > "$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j16 --target kinetics_rates > "$out/build.log" 2>&1 ||
    { tail -30 "$out/cmake.log" "$out/build.log"; exit 1; }
fi
echo "built in $(( $(date +%s) - start )) s; cells $cells, reps $reps"
[[ ${BUILD_ONLY:-0} == 1 ]] && exit 0
# An empty cache: the first run's compile times are cold, the second run's warm.
[[ $build == /* ]] || build=$PWD/$build
export DUALJIT_CACHE_DIR=$build/kinetics-cache
rm -rf "$DUALJIT_CACHE_DIR"
mech=(--mechanism "${MECHANISM:-gri30.yaml}")

step() {  # step NAME COMMAND...: output in $out/NAME.log (XLA's log lines left out)
  local name=$1 t0=$(date +%s)
  shift
  echo "== $name: $*"
  "$@" 2>&1 | grep -v "^W0\|^I0\|^E0\|FutureWarning\|warnings.warn" | tee "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: $(( $(date +%s) - t0 )) s$( ((rc)) && echo ", exit $rc")"
}

step kinetics_rates "$build/bench/kinetics_rates" ${cpu[@]+"${cpu[@]}"} "${mech[@]}" \
  --write "$work" --reps "$reps" $cells
step kinetics_rates_warm "$build/bench/kinetics_rates" ${cpu[@]+"${cpu[@]}"} "${mech[@]}" \
  --reps 3 ${cells%% *}
logs=("$out/kinetics_rates.log" "$out/kinetics_rates_warm.log")
if [[ " ${SKIP:-} " != *" jax "* ]]; then
  stem=kinetics_$(awk '/^mechanism /{print $2; exit}' "$out/kinetics_rates.log")
  json=$work/$stem.json
  bins=()
  for n in $cells; do bins+=("$work/${stem}_$n.bin"); done
  # Most of the GPU for JAX's pool: 1e6 cells' Jacobians are 23 GB, kept as a user keeps them.
  export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-.9}
  step kinetics_jax timeout "${PEER_TIMEOUT:-300}" "$py" bench/peers/kinetics_jax.py \
  "$json" "${bins[@]}" --reps "$reps" --chunk "${CHUNK:-16384}"
  logs+=("$out/kinetics_jax.log")
fi
"$py" bench/peers/kinetics_summary.py "${logs[@]}" | tee "$out/summary.txt"
echo "total $(( $(date +%s) - start )) s"
