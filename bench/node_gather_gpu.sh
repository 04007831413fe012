#!/usr/bin/env bash
# One device call for a change to the node-gather kernels or the launch path: the benchmarks
# that run node-gather, first, on an idle GPU, then the GPU test suites (bench/gpu_tests.sh,
# DUALJIT_REQUIRE_GPU=1). Few files come back from a device call, so each step's log is one
# file under $OUT (the peers' and the suites' logs are joined).
#
#   OUT=$OUT bash bench/node_gather_gpu.sh
#
# Benchmarks: launch_args (the host's packing of a launch), the smoothing gradient at 1 M and
# 4 M vertices with its JAX peer (bench/energy_peers.sh, ONLY=smooth), the smoothing kernel's
# own time (Nsight Compute), cloth_step 1000 with its hand-written peer, sd_hvp's gradient, H v
# and Hessian at 1.81 M vertices. SKIP_TESTS=1 leaves the suites out; SUITES names them.
# SKIP_SMOOTH=1 leaves out the smoothing benchmarks (a change that only the Hessians see).
# CLOTH_NCU=1 adds the cloth step's kernels one by one (Nsight Compute, median per kernel).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
tmp=$(mktemp -d)
source bench/gpu_build.sh
suites=${SUITES:-test_backends test_solvers test_examples}
[[ ${SKIP_TESTS:-0} == 1 ]] && suites=""
gpu_build "$out" smooth_gradient cloth_step sd_hvp launch_args $suites || exit 1
./build-gpu/bench/launch_args | tee "$out/launch_args.txt"
if [[ ${SKIP_SMOOTH:-0} != 1 ]]; then
  BUILD_DIR=build-gpu ONLY=smooth SKIP=torch REPS=15 OUT="$tmp/peers" WORK="$tmp/work" \
    bash bench/energy_peers.sh full > "$out/smooth_peers.txt" 2>&1
  grep -E "RESULT smooth" "$out/smooth_peers.txt" | cut -c1-230
  tail -12 "$out/smooth_peers.txt"
  bash bench/ncu_kernels.sh "$tmp/ncu.csv" ngr build-gpu/bench/smooth_gradient --reps 3 1000000 \
    > "$out/ncu_smooth.txt" 2>&1
  sort -n "$out/ncu_smooth.txt" | awk 'NR % 3 == 1' | head -8
fi
./build-gpu/bench/cloth_step 1000 > "$out/cloth_step.txt" 2>&1
tail -n 4 "$out/cloth_step.txt"
if [[ ${CLOTH_NCU:-0} == 1 ]]; then
  # The cloth step's kernels one by one: the median of each kernel's launches.
  NCU_COUNT=120 bash bench/ncu_kernels.sh "$tmp/ncu.csv" "sngb|closed_form|sum|reduce" \
    build-gpu/bench/cloth_step 1000 > "$out/ncu_cloth.txt" 2>&1
  python3 - "$out/ncu_cloth.txt" <<'PY'
import collections, statistics, sys
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) >= 3 and parts[1] == "us":
        times[parts[2]].append(float(parts[0]))
for name, t in sorted(times.items()):
    print(f"{statistics.median(t):9.2f} us median of {len(t):3d}  {name}")
PY
fi
./build-gpu/bench/sd_hvp --reps 11 --newton-steps 0 160000 1800000 > "$out/sd_hvp.txt" 2>&1
grep -E "RESULT" "$out/sd_hvp.txt" | cut -c1-230
status=0
if [[ ${SKIP_TESTS:-0} != 1 ]]; then
  OUT="$tmp/tests" bash bench/gpu_tests.sh $suites > "$out/tests.txt" 2>&1 || status=1
  cat "$tmp/tests"/test_*.log >> "$out/tests.txt"
  grep -E "test cases|ERROR" "$out/tests.txt" | head -20
fi
exit $status
