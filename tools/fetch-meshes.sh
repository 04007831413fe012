#!/usr/bin/env bash
# Real triangle meshes for the energies' demos and benchmarks, from Debian's libcgal-demo package
# (its data.tar.gz): downloaded with `apt-get download` (no root, nothing installed) and the named
# meshes extracted once into a cache folder, whose path is printed. A no-op for meshes already
# there.
#   tools/fetch-meshes.sh [NAME...]   (default: mannequin-devil armadillo bunny00)
# The folder: $DUALJIT_MESH_DIR, else ${XDG_CACHE_HOME:-~/.cache}/dualjit/meshes.
set -euo pipefail
names=("$@")
((${#names[@]})) || names=(mannequin-devil armadillo bunny00)
dir=${DUALJIT_MESH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dualjit/meshes}
mkdir -p "$dir"
missing=()
for n in "${names[@]}"; do [[ -s "$dir/$n.off" ]] || missing+=("$n"); done
if ((${#missing[@]})); then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download -qq libcgal-demo >/dev/null) ||
    { echo "fetch-meshes: apt-get download libcgal-demo failed" >&2; exit 1; }
  dpkg-deb -x "$work"/libcgal-demo_*.deb "$work/deb"
  data=$(find "$work/deb" -name data.tar.gz | head -1)
  [[ -n $data ]] || { echo "fetch-meshes: no data.tar.gz in libcgal-demo" >&2; exit 1; }
  for n in "${missing[@]}"; do
    tar xzf "$data" -C "$work" --wildcards "*/meshes/$n.off" 2>/dev/null ||
      { echo "fetch-meshes: libcgal-demo has no meshes/$n.off" >&2; exit 1; }
    mv "$(find "$work" -path "*/meshes/$n.off" | head -1)" "$dir/$n.off.tmp"
    mv "$dir/$n.off.tmp" "$dir/$n.off"  # published whole, never half-written
  done
fi
echo "$dir"
