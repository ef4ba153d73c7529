#!/usr/bin/env bash
# Installs occam's build dependencies (Debian 12 packages only) and builds it.
# Usage: scripts/setup.sh [build-dir]   (run as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${1:-build}"

PACKAGES=(cmake g++ make nlohmann-json3-dev libyaml-cpp-dev libcpptoml-dev libcli11-dev libfmt-dev
          googletest libgtest-dev libbenchmark-dev clang libclang-rt-14-dev
          python3-dev pybind11-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
