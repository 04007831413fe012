#!/usr/bin/env bash
# One device call: `dualjit demo --problem ignition` on its defaults (the GPU sweep, Cantera's
# values beside it) and on one case (--T0 ... --json), then the canterax peer on a small subset
# of a case file (CASES, default .mech/ignition_gri30_1000.json, written by kinetics_ignition
# --write). Logs and the demo's outputs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml PYTHON_WHEELS=.whl OUT=$OUT bash bench/ignition_demo_gpu.sh
# Environment: DEMO_TIMEOUT (s, 300), PEER_TIMEOUT (s, 240), CANTERAX_CELLS (64),
# CANTERAX_FLAGS, WORK (/tmp/dj-ignition-demo), SKIP (any of demo, canterax).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
work=${WORK:-/tmp/dj-ignition-demo}
mkdir -p "$out" "$work"
source bench/gpu_build.sh
start=$(date +%s)
gpu_build "$out" dualjit_cli || exit 1
echo "built in $(( $(date +%s) - start )) s"
if [[ -n ${PYTHON_WHEELS:-} ]]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$PYTHON_WHEELS"/{cantera-3,canterax-,ruamel_yaml-}*.whl &&
    export PYTHONPATH=$work/site${PYTHONPATH:+:$PYTHONPATH}
fi
export DUALJIT_CACHE_DIR=$PWD/build-gpu/ignition-cache
skip=" ${SKIP:-} "
cli=$(find build-gpu -name dualjit -type f -perm -u+x | head -1)
if [[ $skip != *" demo "* ]]; then
  ( cd "$out" && timeout "${DEMO_TIMEOUT:-300}" "$OLDPWD/$cli" demo --problem ignition ) 2>&1 |
    tee "$out/demo_ignition.txt"
  timeout "${DEMO_TIMEOUT:-300}" "$cli" demo --problem ignition --mechanism gri30.yaml --T0 1200 \
    --pressure 101325 --composition "CH4:1, O2:2, N2:7.52" --json 2>&1 |
    tee "$out/demo_ignition_one.txt"
fi
cases=${CASES:-.mech/ignition_gri30_1000.json}
if [[ $skip != *" canterax "* && -f $cases ]]; then
  export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-.9}
  timeout "${PEER_TIMEOUT:-240}" python3 bench/peers/ignition_canterax.py "$cases" \
    --limit "${CANTERAX_CELLS:-64}" --chunk "${CANTERAX_CELLS:-64}" ${CANTERAX_FLAGS:-} 2>&1 |
    grep -v "^W0\|^I0\|^E0\|FutureWarning\|warnings.warn" | tee "$out/ignition_canterax.txt"
fi
