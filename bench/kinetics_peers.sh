#!/usr/bin/env bash
# One device call: issue 16's kinetics benchmark and its peers on the same GPU, the same host
# and the same states. bench/kinetics_rates.cpp times the rates and the per-cell Jacobian (cold
# compile: the kernel cache starts empty) and writes the mechanism and the states with --write
# into $WORK; a second, small run shows the warm start from the disk cache; the peers read the
# files: peers/kinetics_jax.py (JAX, hand-written rates, GPU), peers/kinetics_cantera_cpu.py
# (Cantera 3.2 on all CPU cores: the CPU reference, cells per second) and
# peers/kinetics_canterax.py (canterax, JAX on the GPU); peers/kinetics_summary.py prints the
# tables (times, JAX / dualjit, dualjit / floor, the targets, checksum differences, Cantera's and
# canterax's times and cells per second against dualjit's, compile times) to $OUT/summary.txt.
#
#   bench/kinetics_peers.sh [CELLS ...]     (default 10000 100000 1000000)
#
# Environment: YAML_CPP_ROOT (an unpacked Debian libyaml-cpp-dev and libyaml-cpp0.7, as
# bench/gpu_tests.sh takes it: the GPU machines have no yaml-cpp); MECHANISM (FILE[:PHASE], gri30.yaml); REPS (15); CHUNK
# (JAX and canterax Jacobian cells per call, 16384); SKIP (peers left out: any of jax, cantera,
# canterax); PEER_TIMEOUT (seconds per peer, 300); OUT (logs, default gpu-out); WORK (data
# files, default /tmp/dj-kinetics); PYTHON; CANTERA_PYTHON (the Cantera peer's, default
# PYTHON); CANTERA_CELLS (those of the CELLS that the Cantera peer runs, default all: its
# Jacobian takes about 0.3 ms per GRI-3.0 cell and core); PYTHON_WHEELS (a folder of wheels to install
# first, below); RATES_FLAGS (extra kinetics_rates flags, e.g. "--effort full --rows 2");
# BUILD_DIR (a tree already built: no cmake here); BUILD_ONLY=1 (stop after the
# build, for when the build and the runs together would not fit one device call's time);
# CPU=1 (the CPU backend, untimed, default 1000 cells: a dry run of the whole pipeline without
# a GPU).
# Device call, with the unpacked Debian package in .yaml/ (carried):
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT \
#     bash bench/kinetics_peers.sh
# The GPU machines have neither Cantera nor canterax and no network: carry their wheels in .whl/
# (cantera-3.2.0-cp312-...manylinux_2_28_x86_64.whl, canterax-0.3.1-py3-none-any.whl,
# ruamel_yaml-0.19.1-py3-none-any.whl: 18.5 MiB; canterax's other needs, JAX, equinox,
# diffrax, lineax, optimistix, PyYAML, matplotlib, and Cantera's numpy and typing_extensions,
# are there) and add PYTHON_WHEELS=.whl: they are installed with pip --no-index --no-deps into
# $WORK/site, put first on PYTHONPATH (the machines' python3 is a virtual environment, where
# pip --user is refused). Here: python3 -m pip download --no-deps --only-binary=:all:
#   --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl
#   cantera==3.2.0 canterax==0.3.1 ruamel.yaml==0.19.1
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
  ${RATES_FLAGS:-} --write "$work" --reps "$reps" $cells
step kinetics_rates_warm "$build/bench/kinetics_rates" ${cpu[@]+"${cpu[@]}"} "${mech[@]}" \
  ${RATES_FLAGS:-} --reps 3 ${cells%% *}
logs=("$out/kinetics_rates.log" "$out/kinetics_rates_warm.log")
stem=kinetics_$(awk '/^mechanism /{print $2; exit}' "$out/kinetics_rates.log")
json=$work/$stem.json
bins=()
for n in $cells; do bins+=("$work/${stem}_$n.bin"); done
skip=" ${SKIP:-} "
if [[ -n ${PYTHON_WHEELS:-} && ($skip != *" cantera "* || $skip != *" canterax "*) ]]; then
  # Only the wheels the peers need (drjit's may be in the same folder).
  whls=()
  for w in cantera-3 canterax- ruamel_yaml-; do  # the ones that travelled
    for f in "$PYTHON_WHEELS"/$w*.whl; do [[ -e $f ]] && whls+=("$f"); done
  done
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "${whls[@]}" &&
    export PYTHONPATH=$work/site${PYTHONPATH:+:$PYTHONPATH} ||
    echo "installing ${whls[*]} failed: the Cantera peers will fail"
fi
# Most of the GPU for JAX's pool: 1e6 cells' Jacobians are 23 GB, kept as a user keeps them.
export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-.9}
if [[ $skip != *" jax "* ]]; then
  step kinetics_jax timeout "${PEER_TIMEOUT:-300}" "$py" bench/peers/kinetics_jax.py \
  "$json" "${bins[@]}" --reps "$reps" --chunk "${CHUNK:-16384}"
  logs+=("$out/kinetics_jax.log")
fi
if [[ $skip != *" cantera "* ]]; then
  cbins=()
  for n in ${CANTERA_CELLS:-$cells}; do cbins+=("$work/${stem}_$n.bin"); done
  step kinetics_cantera timeout "${PEER_TIMEOUT:-300}" "${CANTERA_PYTHON:-$py}" \
    bench/peers/kinetics_cantera_cpu.py "$json" "${cbins[@]}" --reps "$reps"
  logs+=("$out/kinetics_cantera.log")
fi
if [[ $skip != *" canterax "* ]]; then
  step kinetics_canterax timeout "${PEER_TIMEOUT:-300}" "$py" bench/peers/kinetics_canterax.py \
    "$json" "${bins[@]}" --reps "$reps" --chunk "${CHUNK:-16384}"
  logs+=("$out/kinetics_canterax.log")
fi
"$py" bench/peers/kinetics_summary.py "${logs[@]}" | tee "$out/summary.txt"
echo "total $(( $(date +%s) - start )) s"
