#!/usr/bin/env bash
# Installs what the tests need beyond the build: Debian's gmsh, which test_examples runs
# (through tools/make_cfd_meshes.sh) to mesh the CFD example's geometry, and Cantera 3.2 from
# PyPI in a virtual environment, BUILD_DIR/python, for the ctest test kinetics_cantera (it writes
# the kinetics references with it). gmsh and python3-venv come from Debian, as
# tools/install-deps.sh installs packages. A no-op when gmsh is on PATH and that environment
# already has Cantera 3.2.
#   tools/install-test-deps.sh BUILD_DIR
set -euo pipefail
if (($# != 1)); then
  echo "usage: tools/install-test-deps.sh BUILD_DIR" >&2
  exit 2
fi
venv=$1/python
python=$venv/bin/python3
has_cantera() {
  [[ -x $python ]] && "$python" -c 'import sys, cantera; sys.exit(not cantera.__version__.startswith("3.2"))' 2>/dev/null
}
debian=()
command -v gmsh >/dev/null || debian+=(gmsh)
# Debian's python3 has no venv (nor ensurepip) without python3-venv.
if ! has_cantera && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  debian+=(python3-venv)
fi
if ((${#debian[@]})); then
  echo "dualjit: installing ${debian[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${debian[@]}" >/dev/null
fi
has_cantera && exit 0
echo "dualjit: installing Cantera 3.2 into $venv" >&2
[[ -x $python ]] || python3 -m venv "$venv"
"$python" -m pip install -q --disable-pip-version-check 'cantera==3.2.*'
has_cantera || { echo "dualjit: Cantera 3.2 did not import from $python" >&2; exit 1; }
