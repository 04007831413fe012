# Sourced by the device scripts: gpu_build OUT_DIR TARGET... configures build-gpu (Release,
# tests and benchmarks) and builds the targets, logs in OUT_DIR. The GPU machines carry no
# yaml-cpp: YAML_CPP_ROOT, a Debian package unpacked there (see README's GPU section), brings
# the kinetics in, and its library directory is exported on LD_LIBRARY_PATH for the runs.
# Where .mpi/debian-mpi-petsc.tar.xz travelled (tools/pack-mpi.sh; carry ".mpi"), Debian's
# OpenMPI, PETSc and METIS are unpacked into / first, without replacing anything there, so the
# same tree builds the distributed targets too.
gpu_build() {
  local out=$1
  shift
  if [[ -f .mpi/debian-mpi-petsc.tar.xz && ! -e /tmp/dualjit-mpi-unpacked ]]; then
    tar -xJf .mpi/debian-mpi-petsc.tar.xz -C / --skip-old-files && ldconfig &&
      touch /tmp/dualjit-mpi-unpacked || return 1
  fi
  local yaml=()
  if [[ -n ${YAML_CPP_ROOT:-} ]]; then
    yaml=(-Dyaml-cpp_DIR="$YAML_CPP_ROOT/usr/lib/x86_64-linux-gnu/cmake/yaml-cpp")
    export LD_LIBRARY_PATH="$YAML_CPP_ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDUALJIT_BUILD_TESTS=ON \
    -DDUALJIT_BUILD_BENCH=ON ${yaml[@]+"${yaml[@]}"} > "$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j16 --target "$@" > "$out/build.log" 2>&1 ||
    { grep -m20 -A3 error "$out/build.log" "$out/cmake.log"; return 1; }
}

# gpu_start TARGET...: what every device script does first: OUT_DIR from $OUT (default gpu-out)
# as `out`, the clock started as `t0`, the targets built (gpu_build) and the build's seconds
# printed.
gpu_start() {
  out=$(realpath -m "${OUT:-gpu-out}")
  mkdir -p "$out"
  t0=$(date +%s)
  gpu_build "$out" "$@" || return 1
  echo "built in $(($(date +%s) - t0)) s"
}

# gpu_build_both OUT_DIR OLD_TREE TARGET...: the targets in this tree's build-gpu (logs in
# OUT_DIR) and in OLD_TREE's (logs in OUT_DIR/old), for the scripts that compare two trees in
# one call.
gpu_build_both() {
  local out=$1 old=$2
  shift 2
  mkdir -p "$out/old"
  gpu_build "$out" "$@" && (cd "$old" && gpu_build "$out/old" "$@")
}

# gpu_start_both TARGET...: gpu_start for the scripts that compare this tree with the tree
# OLD_TREE names (which must be set), as `old`: the targets built in both (gpu_build_both).
gpu_start_both() {
  out=$(realpath -m "${OUT:-gpu-out}")
  old=${OLD_TREE:?OLD_TREE names the tree to compare with}
  mkdir -p "$out"
  t0=$(date +%s)
  gpu_build_both "$out" "$old" "$@" || return 1
  echo "built in $(($(date +%s) - t0)) s"
}

# ab_rounds OUT_DIR OLD_TREE TAG FIELDS PROGRAM [ARGS...]: build-gpu/bench/PROGRAM ARGS in
# OLD_TREE and in this tree, each twice, alternating, each tree with its own kernel cache; logs
# in OUT_DIR/TAG_{old,new}_ROUND.txt, and per run the RESULT lines' fields whose names match the
# regex FIELDS.
ab_rounds() {
  local out=$1 old=$2 tag=$3 fields=$4 program=$5
  shift 5
  local round tree name log
  for round in 1 2; do
    for tree in "$old" .; do
      name=$([[ $tree == . ]] && echo new || echo old)
      log="$out/${tag}_${name}_$round.txt"
      DUALJIT_CACHE_DIR=$tree/build-gpu/cache timeout 150 "$tree/build-gpu/bench/$program" "$@" \
        > "$log" 2>&1
      echo "$name, round $round (rc=$?): $(grep -E '^RESULT' "$log" |
        grep -oE "($fields)=[^ ]+" | paste -sd' ' | fold -w 200)"
    done
  done
}

# gpu_tests SECONDS BINARY [ARGS...]: build-gpu/tests/BINARY ARGS under a time limit with
# DUALJIT_REQUIRE_GPU=1 (a missing GPU fails), its log in $out/tests_BINARY.txt (BINARY without
# test_), its exit status and doctest's summary printed.
gpu_tests() {
  local limit=$1 binary=$2
  shift 2
  local log="$out/tests_${binary#test_}.txt"
  DUALJIT_REQUIRE_GPU=1 timeout "$limit" "./build-gpu/tests/$binary" "$@" > "$log" 2>&1
  echo "$binary rc=$? at $(($(date +%s) - t0)) s"
  grep -E "ERROR|test cases|assertions" "$log" | cut -c1-200 | tail -6
}
