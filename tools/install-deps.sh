#!/usr/bin/env bash
# Installs what the build needs from Debian's packages; a no-op when all is present.
set -euo pipefail
packages=(cmake make g++ pkg-config libeigen3-dev libspdlog-dev libfmt-dev doctest-dev libyaml-cpp-dev
  libmetis-dev libopenmpi-dev openmpi-bin petsc-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "dualjit: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
cuda=${CUDAToolkit_ROOT:-/usr/local/cuda}
if [[ ! -f "$cuda/include/nvrtc.h" ]]; then
  echo "dualjit: the CUDA toolkit (NVRTC) was not found at $cuda; set CUDAToolkit_ROOT" >&2
  exit 1
fi
