#!/usr/bin/env bash
# Installs the Debian packages dctool builds and tests with (README, Install), if any is missing.
# The CUDA toolkit is not installed here: when nvcc is on PATH (or in /usr/local/cuda/bin) the CUDA
# backends are built too; without it the build has the CPU backends only.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config libfftw3-dev libcli11-dev libstb-dev catch2
          python3-numpy python3-scipy python3-pil libjpeg-turbo-progs libjpeg62-turbo-dev libpng-dev
          clang libclang-rt-dev libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
