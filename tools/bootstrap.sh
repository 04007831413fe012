#!/usr/bin/env bash
# The README's two commands: install what is missing, build, then either run the main job
# on its built-in default problem (demo) or run the whole test suite (test).
#   tools/bootstrap.sh demo [dualjit demo options]
#   tools/bootstrap.sh test [ctest options]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
case "$what" in
  demo | test) shift ;;
  *) echo "usage: tools/bootstrap.sh demo|test [options]" >&2; exit 2 ;;
esac
tools/install-deps.sh
build=${DUALJIT_BUILD_DIR:-build}
if [[ $what == test ]]; then
  # gmsh for test_examples' Gmsh meshes and Cantera for the test kinetics_cantera; without
  # them (no network) those tests fail, saying how to install them, and the rest still run.
  tools/install-test-deps.sh "$build" ||
    echo "dualjit: gmsh or Cantera missing: test_examples' Gmsh cases or kinetics_cantera will fail" >&2
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)"
if [[ $what == demo ]]; then
  exec "$build/tools/dualjit" demo "$@"
fi
cd "$build"
exec ctest --output-on-failure "$@"
