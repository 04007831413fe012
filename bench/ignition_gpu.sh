#!/usr/bin/env bash
# One device call for issue 17: builds kinetics_ignition and the test suites (bench/gpu_build.sh),
# runs the batched-ignition benchmark with --write (cases and results into $WORK), its peers on
# the largest batch's cases (peers/ignition_cantera_cpu.py: Cantera on every CPU core, a subset;
# peers/ignition_canterax.py: canterax on the same GPU, a subset), then the GPU ignition tests
# (DUALJIT_REQUIRE_GPU=1), each under a time limit so that one cannot starve the others; logs
# under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/ignition_gpu.sh [CELLS ...]
#     (default 1000 10000 100000)
# Environment: METHODS (integrate_stiff methods, one run each: "bdf"; "bdf rodas4" to compare),
# BENCH_FLAGS (extra kinetics_ignition flags), BENCH_TIMEOUT (s, 300, per method),
# TEST_TIMEOUT (s, 240), TESTS (doctest filter of the GPU cases, "*ignition*"), WORK
# (/tmp/dj-ignition), SKIP (any of cantera, canterax, tests), PEER_TIMEOUT (s, 150),
# CANTERA_CELLS (1024), CANTERAX_CELLS (1024), CANTERAX_FLAGS, PYTHON (python3),
# PYTHON_WHEELS (a folder with the Cantera, canterax and ruamel.yaml wheels, installed into
# $WORK/site as bench/kinetics_peers.sh does).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
work=${WORK:-/tmp/dj-ignition}
mkdir -p "$out" "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
source bench/gpu_build.sh
start=$(date +%s)
gpu_build "$out" kinetics_ignition test_examples test_solvers || exit 1
echo "built in $(( $(date +%s) - start )) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-cache
write=(--write "$work")
for method in ${METHODS:-bdf}; do
  timeout "${BENCH_TIMEOUT:-300}" ./build-gpu/bench/kinetics_ignition "${write[@]}" \
    --method "$method" ${BENCH_FLAGS:-} ${*:-1000 10000 100000} 2>&1 |
    tee "$out/kinetics_ignition_$method.txt"
  write=()  # the peers' cases from the first method's run
done
py=${PYTHON:-python3}
skip=" ${SKIP:-} "
cases=$(ls -S "$work"/ignition_*.json 2>/dev/null | head -1)  # the largest batch
if [[ -n ${PYTHON_WHEELS:-} ]]; then
  whls=()
  for w in cantera-3 canterax- ruamel_yaml-; do  # the ones that travelled
    for f in "$PYTHON_WHEELS"/$w*.whl; do [[ -e $f ]] && whls+=("$f"); done
  done
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "${whls[@]}" &&
    export PYTHONPATH=$work/site${PYTHONPATH:+:$PYTHONPATH} ||
    echo "installing ${whls[*]} failed: the peers will fail"
fi
if [[ -n $cases && $skip != *" cantera "* ]]; then
  timeout "${PEER_TIMEOUT:-150}" "$py" bench/peers/ignition_cantera_cpu.py "$cases" \
    --limit "${CANTERA_CELLS:-1024}" 2>&1 | tee "$out/ignition_cantera.txt"
fi
if [[ -n $cases && $skip != *" canterax "* ]]; then
  export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-.9}
  timeout "${PEER_TIMEOUT:-150}" "$py" bench/peers/ignition_canterax.py "$cases" \
    --limit "${CANTERAX_CELLS:-1024}" ${CANTERAX_FLAGS:-} 2>&1 |
    grep -v "^W0\|^I0\|^E0\|FutureWarning\|warnings.warn" | tee "$out/ignition_canterax.txt"
fi
[[ $skip == *" tests "* ]] && exit 0
export DUALJIT_REQUIRE_GPU=1
for s in test_solvers test_examples; do
  timeout "${TEST_TIMEOUT:-240}" ./build-gpu/tests/$s -ts=gpu -tc="${TESTS:-*ignition*}" \
    > "$out/$s.log" 2>&1
  echo "$s (exit $?): $(grep -E "test cases" "$out/$s.log")"
  grep -E "MESSAGE" "$out/$s.log" | head -20
  grep -B3 -A6 "ERROR" "$out/$s.log" | head -30
done
