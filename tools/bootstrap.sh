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
  # Cantera for the test kinetics_cantera; without it (no network) that test fails, saying how
  # to install it, and the rest still run.
  tools/install-test-deps.sh "$build" || echo "dualjit: no Cantera: the test kinetics_cantera will fail" >&2
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)"
if [[ $what == demo ]]; then
  exec "$build/tools/dualjit" demo "$@"
fi
cd "$build"
exec ctest --output-on-failure "$@"
