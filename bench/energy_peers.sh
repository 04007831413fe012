#!/usr/bin/env bash
# One device call: issue 15's energy benchmarks and their peers on the same GPU and the same
# data: symmetric Dirichlet (bench/sd_hvp.cpp; peers/sd_jax.py, peers/sd_torch.py), Laplacian
# smoothing's gradient (bench/smooth_gradient.cpp; peers/smooth_jax.py) and stable Neo-Hookean
# (bench/nh_hessian.cpp; peers/nh_jax.py). Each C++ program writes its meshes and states with
# --write into $WORK, and the peers read those files, so every checksum can be compared; then
# peers/energy_summary.py prints the tables (times, peer / dualjit, dualjit / byte floor, the
# targets, checksum differences).
#
#   bench/energy_peers.sh [full|quick]     (full: about 5-6 min on an H100 once built)
#
# full:  SD 160000 560000 1800000 vertices, smoothing 1000000 4000000, NH 55 (998,250 tets),
#        15 repetitions; quick: SD 160000, smoothing 1000000, NH 30 (162,000 tets), 7.
# Environment: SD_SIZES, SMOOTH_SIZES, NH_SIZES (NH: cells per side) and REPS override the
# mode's; ONLY="sd smooth nh" picks benchmarks; SKIP="torch" or "jax" leaves peers out;
# NEWTON_STEPS (sd_hvp's Newton-CG steps, 3; 0 skips); PEER_TIMEOUT (seconds per peer call,
# 300); OUT (logs, default gpu-out); WORK (data files, default /tmp/dj-energy); PYTHON;
# BUILD_DIR (a tree already built: no cmake here); CPU=1 (the C++ programs print their
# checksums from the CPU backend, untimed: a dry run of the whole pipeline without a GPU, with
# small sizes).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
case $mode in
  full) sd=${SD_SIZES:-160000 560000 1800000} sm=${SMOOTH_SIZES:-1000000 4000000}
        nh=${NH_SIZES:-55} reps=${REPS:-15} ;;
  quick) sd=${SD_SIZES:-160000} sm=${SMOOTH_SIZES:-1000000} nh=${NH_SIZES:-30} reps=${REPS:-7} ;;
  *) echo "usage: $0 [full|quick]" >&2; exit 2 ;;
esac
only=" ${ONLY:-sd smooth nh} "
skip=" ${SKIP:-} "
out=${OUT:-gpu-out}
work=${WORK:-/tmp/dj-energy}
py=${PYTHON:-python3}
timeout_s=${PEER_TIMEOUT:-300}
build=${BUILD_DIR:-build-gpu}
cpu=()
[[ ${CPU:-0} == 1 ]] && cpu=(--cpu)
mkdir -p "$out" "$work"
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  > "$out/device.txt" 2>&1
if [[ -z ${BUILD_DIR:-} ]]; then
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDUALJIT_BUILD_TESTS=OFF \
    > "$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j16 --target sd_hvp smooth_gradient nh_hessian \
      > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
fi
echo "built in $(( $(date +%s) - start )) s; mode $mode, reps $reps"
export DUALJIT_CACHE_DIR=$PWD/$build/energy-cache
ran=()

# Runs a step with its output in $out/NAME.log (JAX/XLA and warnings filtered from the tee).
step() {
  local name=$1
  shift
  local t0=$(date +%s)
  echo "== $name: $*"
  "$@" 2>&1 | grep -v "^W0\|^I0\|^E0\|FutureWarning\|warnings.warn" | tee "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  local note=""
  ((rc)) && note=", exit $rc"
  ((rc == 124)) && note+=" (over PEER_TIMEOUT)"
  echo "== $name: $(( $(date +%s) - t0 )) s$note"
  ran+=("$out/$name.log")
}
peer() {  # peer NAME SCRIPT FILES...: under a time limit, skipped by SKIP
  local name=$1 script=$2
  shift 2
  case $skip in *" ${name#*_} "*) echo "== $name skipped"; return ;; esac
  step "$name" timeout "$timeout_s" "$py" "bench/peers/$script" --reps "$reps" "$@"
}
files() {  # files PREFIX SIZES...
  local p=$1
  shift
  for s in "$@"; do echo "$work/${p}_$s.bin"; done
}

if [[ $only == *" sd "* ]]; then
  step sd_hvp "./$build/bench/sd_hvp" ${cpu[@]+"${cpu[@]}"} --write "$work" --reps "$reps" \
    --newton-steps "${NEWTON_STEPS:-3}" $sd
  peer sd_jax sd_jax.py $(files sd $sd)
  peer sd_torch sd_torch.py $(files sd $sd)
fi
if [[ $only == *" smooth "* ]]; then
  step smooth_gradient "./$build/bench/smooth_gradient" ${cpu[@]+"${cpu[@]}"} --write "$work" \
    --reps "$reps" $sm
  peer smooth_jax smooth_jax.py $(files smooth $sm) $(files smooth-rcm $sm)
fi
if [[ $only == *" nh "* ]]; then
  step nh_hessian "./$build/bench/nh_hessian" ${cpu[@]+"${cpu[@]}"} --write "$work" --reps "$reps" \
    $nh
  peer nh_jax nh_jax.py $(files nh $nh)
fi
"$py" bench/peers/energy_summary.py ${ran[@]+"${ran[@]}"} | tee "$out/summary.txt"
echo "total $(( $(date +%s) - start )) s"
