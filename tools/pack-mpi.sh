#!/usr/bin/env bash
# Packs Debian's OpenMPI, PETSc and METIS (installed here by tools/install-deps.sh) with the
# shared libraries they load into .mpi/debian-mpi-petsc.tar.xz, for a GPU machine that has none
# of them (bench/mpi_gpu.sh unpacks it there). The C and C++ runtimes are the target's own.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .mpi
list=$(mktemp)
packages="petsc-dev libpetsc-real3.18-dev libpetsc3.18-dev-common libpetsc-real3.18 openmpi-bin
  libopenmpi-dev libopenmpi3 openmpi-common libpmix2 libmetis-dev libmetis5 pkgconf pkgconf-bin
  libpkgconf3"
for p in $packages; do
  dpkg -L "$p" | grep -v -e /share/doc -e /share/man | while read -r f; do
    if [[ -f $f ]]; then echo "$f"; fi
  done
done > "$list.files"
# The libraries those files load, but not the C/C++ runtime (the target's own is newer).
while read -r f; do
  if file -L "$f" | grep -q ELF; then ldd "$f" 2>/dev/null | awk '/=>/ {print $3}' || true; fi
done < "$list.files" | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux-x86-64)\.so' |
  while read -r l; do echo "$l"; readlink -f "$l"; done > "$list.libs"
# petsc-dev's pkg-config files are links that update-alternatives made, in no package's list.
ls /usr/lib/x86_64-linux-gnu/pkgconfig/{petsc,PETSc}.pc >> "$list.files"
sort -u "$list.files" "$list.libs" | sed 's|^/||' > "$list"
(cd / && tar -chf - -T "$list") | xz -T0 -6 > .mpi/debian-mpi-petsc.tar.xz
rm -f "$list" "$list.files" "$list.libs"
ls -l .mpi/debian-mpi-petsc.tar.xz
