#!/usr/bin/env bash
# Device calls for the row groups' shared frontier (jit/shared_values.h): the nodes several row
# groups need, computed once per cell by a values pass, values and first-order components, and
# loaded by the groups.
# GRI-3.0, full effort, (T, Y) Jacobian in rows of 2. Stages, in order, as arguments (default
# all; a device call that would not fit them all runs a few, the build kept from the last):
#   tests     test_backends' and test_examples' GPU cases (DUALJIT_REQUIRE_GPU=1);
#   shared    test_backends' GPU case of the shared frontier alone;
#   jacobian  kinetics_rates at CELLS with --share-values off, then on (default);
#   ignition  the batched ignition (BDF, IGNITION_CELLS reactors) off, then on;
#   hexane    n-hexane's sparse dw/dC at 1e4 cells, off, then on;
#   peers     bench/kinetics_peers.sh with JAX on the same states (shared values on);
#   profile   Nsight Compute's duration of every Jacobian launch, off and on, at 1e5 cells.
# Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OUT=$OUT bash bench/shared_values_gpu.sh [STAGE ...]
#     (CELLS, default 100000; IGNITION_CELLS, default 100000; PEER_CELLS, "100000 1000000")
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
stages=${*:-tests jacobian ignition peers profile}
source bench/gpu_build.sh
t0=$(date +%s)
gpu_build "$out" kinetics_rates kinetics_ignition test_backends test_examples || exit 1
echo "built in $(($(date +%s) - t0)) s"
export DUALJIT_CACHE_DIR=$PWD/build-gpu/cache
for stage in $stages; do
  case $stage in
    tests)
      DUALJIT_REQUIRE_GPU=1 timeout 300 ./build-gpu/tests/test_backends -ts=gpu \
        > "$out/tests_backends.txt" 2>&1
      echo "test_backends rc=$?"
      tail -3 "$out/tests_backends.txt"
      DUALJIT_REQUIRE_GPU=1 timeout 200 ./build-gpu/tests/test_examples -ts=gpu \
        -tc="*ReactorCells*,*ignition*" > "$out/tests_examples.txt" 2>&1
      echo "test_examples rc=$?"
      grep -E "MESSAGE|ERROR" -A2 "$out/tests_examples.txt" | head -20
      tail -3 "$out/tests_examples.txt"
      ;;
    shared)
      DUALJIT_REQUIRE_GPU=1 timeout 100 ./build-gpu/tests/test_backends -ts=gpu \
        -tc="*shared*" > "$out/tests_shared.txt" 2>&1
      echo "shared frontier GPU case rc=$?"
      tail -3 "$out/tests_shared.txt"
      ;;
    jacobian)
      for share in off on; do
        timeout 150 ./build-gpu/bench/kinetics_rates --effort full --rows 2 --share-values $share \
          --reps 7 ${CELLS:-100000} > "$out/jacobian_$share.txt" 2>&1
        echo "share values $share (rc=$?):"
        grep -E "RESULT|registers|launch" "$out/jacobian_$share.txt" | cut -c1-300 | head -40
      done
      ;;
    ignition)
      for share in off on; do
        timeout 120 ./build-gpu/bench/kinetics_ignition --method bdf --effort full --rows 2 \
          --share-values $share ${IGNITION_CELLS:-100000} > "$out/ignition_$share.txt" 2>&1
        echo "ignition, share values $share (rc=$?):"
        grep -E "RESULT|reactors/s|stage|Jacobian" "$out/ignition_$share.txt" | cut -c1-300
      done
      ;;
    hexane)
      # n-hexane's sparse dw/dC in rows of 80 (16 launches, default effort), the mechanism in
      # $MECHANISM_DIR (default .mech, an ignored folder carried to the device).
      for share in off on; do
        timeout 240 ./build-gpu/bench/kinetics_rates --mechanism \
          "${MECHANISM_DIR:-.mech}/n-hexane-NUIG-2015.yaml" --outputs sparse --rows 80 \
          --share-values $share --reps 5 10000 > "$out/hexane_$share.txt" 2>&1
        echo "n-hexane sparse, share values $share (rc=$?):"
        grep -E "RESULT kinetics_dualjit" "$out/hexane_$share.txt" | cut -c1-300
        grep -E "RESULT kinetics_compile" "$out/hexane_$share.txt" | grep -oE \
          "(kernel|flops|registers|spill_bytes|first_call_s)=[^ ]+" | tr '\n' ' ' | cut -c1-1500
        echo
      done
      ;;
    peers)
      SKIP="cantera canterax" RATES_FLAGS="--effort full --rows 2" REPS=5 BUILD_DIR=build-gpu \
        OUT=$out/peers timeout 240 bash bench/kinetics_peers.sh ${PEER_CELLS:-100000 1000000} \
        > "$out/peers.txt" 2>&1
      grep -E "RESULT kinetics_(dualjit|jax)" "$out/peers.txt" | cut -c1-400
      head -40 "$out/peers/summary.txt" 2>/dev/null
      ;;
    profile)
      # The heat-release group's launch is the last: k26_27 without a values pass, k27_28 with.
      for share in off on; do
        NCU_COUNT=16 timeout 200 bash bench/ncu_kernels.sh "$out/ncu_$share" "_jacobian_" \
          ./build-gpu/bench/kinetics_rates --effort full --rows 2 --share-values $share \
          --reps 1 --outputs all 100000 > "$out/ncu_$share.txt" 2>&1
        echo "profile, share values $share (rc=$?):"
        tail -16 "$out/ncu_$share.txt"
        last=$([[ $share == on ]] && echo _k27_28 || echo _k26_27)
        NCU_COUNT=1 NCU_SECTIONS="SpeedOfLight WarpStateStats Occupancy MemoryWorkloadAnalysis" \
          timeout 200 bash bench/ncu_kernels.sh "$out/ncu_sections_$share.txt" "$last" \
          ./build-gpu/bench/kinetics_rates --effort full --rows 2 --share-values $share \
          --reps 1 --outputs all 100000 > /dev/null 2>&1
        echo "sections of $last (rc=$?):"
        grep -E "Duration|Throughput|Stall|Registers|Occupancy|Hit Rate|Warp Cycles|Issued" \
          "$out/ncu_sections_$share.txt" | head -40
      done
      ;;
    *) echo "unknown stage $stage" ;;
  esac
  echo "$stage done at $(($(date +%s) - t0)) s"
done
