#!/usr/bin/env bash
# Writes the CFD example's Gmsh meshes from examples/cfd/geometry: sphere_K.msh (a sphere in a
# box, sphere_in_box.geo) and bump_K.msh (the channel with a bump, bump_channel.geo) for
# K = 1 .. REFINEMENTS (default 3), refinement K with mesh size factor 2^(-2(K-1)/3), each with
# about 3.3 times the nodes of the one before (sphere: 1.7 k, 5.4 k, 19 k nodes). ASCII MSH 4.1,
# tetrahedra, physical surfaces "farfield" and "wall". Runs $GMSH, else the gmsh on PATH;
# without either it installs Debian's gmsh (apt-get, as tools/install-deps.sh installs
# packages; PyPI's gmsh wheel links X and OpenGL libraries a minimal Debian lacks) unless
# --no-install is given, when it fails saying how to install it. --only sphere|bump meshes one
# geometry, and only its refinement REFINEMENTS.
#   tools/make_cfd_meshes.sh [--no-install] [--only sphere|bump] OUTDIR [REFINEMENTS]
set -euo pipefail
install=1
only=""
while [[ ${1:-} == --* ]]; do
  case $1 in
    --no-install) install=0; shift ;;
    --only) only=${2:-}; shift 2 ;;
    *) break ;;
  esac
done
if (($# < 1 || $# > 2)) || ! [[ ${2:-3} =~ ^[1-9][0-9]*$ ]] ||
  [[ -n $only && $only != sphere && $only != bump ]]; then
  echo "usage: tools/make_cfd_meshes.sh [--no-install] [--only sphere|bump] OUTDIR [REFINEMENTS]" >&2
  exit 2
fi
out=$1
refinements=${2:-3}
geometry=$(cd "$(dirname "$0")/../examples/cfd/geometry" && pwd)

gmsh=${GMSH:-$(command -v gmsh || true)}
if [[ -z $gmsh ]]; then
  if ((!install)); then
    echo "dualjit: gmsh not found (set GMSH or put it on PATH); install it with" \
      "tools/install-test-deps.sh BUILD_DIR or apt-get install --no-install-recommends gmsh" >&2
    exit 1
  fi
  echo "dualjit: installing gmsh" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends gmsh >/dev/null
  gmsh=$(command -v gmsh)
fi
if [[ ! -x $gmsh ]]; then
  echo "dualjit: GMSH=$gmsh is not an executable" >&2
  exit 1
fi

mkdir -p "$out"
first=1
[[ -n $only ]] && first=$refinements
for ((k = first; k <= refinements; ++k)); do
  size=$(awk -v k="$k" 'BEGIN { printf "%.17g", 2 ^ (-2 * (k - 1) / 3) }')
  for mesh in sphere:sphere_in_box bump:bump_channel; do
    [[ -n $only && ${mesh%%:*} != "$only" ]] && continue
    file=$out/${mesh%%:*}_$k.msh
    rm -f "$file"
    # -v 2: warnings and errors only. Gmsh exits non-zero on an error in the .geo file; the
    # check on the output catches a failed mesh it does not report that way.
    "$gmsh" "$geometry/${mesh#*:}.geo" -3 -format msh41 -setnumber size "$size" -v 2 -o "$file"
    # shellcheck disable=SC2016 # '$' is literal: MSH section keywords
    if [[ $(head -c 11 "$file" 2>/dev/null) != '$MeshFormat' ]] || ! grep -q '^\$EndElements' "$file"; then
      echo "dualjit: gmsh ($gmsh) wrote no mesh to $file" >&2
      exit 1
    fi
  done
done
