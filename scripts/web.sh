#!/usr/bin/env bash
# Builds occam for the browser (Debian 12, as root or with sudo available):
# the static page in <build-dir>/web (index.html, app.js, style.css and
# occam.js, which holds the WebAssembly). Open index.html from disk or serve
# the folder as static files; nothing else is needed at run time.
# Usage: scripts/web.sh [build-dir]   (default build-web)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${1:-build-web}"
mkdir -p "$BUILD_DIR"
BUILD_DIR="$(cd "$BUILD_DIR" && pwd)"
DEPS="$BUILD_DIR/deps"

# Emscripten and the header-only libraries, all Debian packages; dpkg-dev
# unpacks yaml-cpp's Debian source package (the only library compiled here).
PACKAGES=(emscripten dpkg-dev cmake make nlohmann-json3-dev libcli11-dev libfmt-dev
          libcpptoml-dev libyaml-cpp-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
if ((${#missing[@]})); then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# yaml-cpp's source, the version of the installed libyaml-cpp-dev, from
# Debian's source archive through a private source list (the system's apt
# configuration is left as it is).
if ! ls -d "$DEPS"/yaml-cpp-*/src > /dev/null 2>&1; then
  version=$(dpkg-query -W -f='${source:Version}' libyaml-cpp-dev)
  mkdir -p "$DEPS/apt/lists/partial"
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$DEPS/apt/sources.list"
  apt_opts=(-qq -o "Dir::Etc::SourceList=$DEPS/apt/sources.list" -o "Dir::Etc::SourceParts=-"
            -o "Dir::State::Lists=$DEPS/apt/lists")
  apt-get "${apt_opts[@]}" update
  (cd "$DEPS" && apt-get "${apt_opts[@]}" source "yaml-cpp=$version")
fi
YAML_CPP="$(ls -d "$DEPS"/yaml-cpp-*/ | head -1)"

# The header-only libraries' folders, without the rest of the host's
# /usr/include (whose libc headers would shadow Emscripten's).
mkdir -p "$DEPS/include"
for h in nlohmann CLI fmt cpptoml.h; do ln -sfn "/usr/include/$h" "$DEPS/include/$h"; done

# Emscripten's JavaScript tools find Debian's node modules (acorn) there.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"

start=$(date +%s)
emcmake cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
  -DOCCAM_WEB_INCLUDE="$DEPS/include" -DOCCAM_YAML_CPP_SOURCE="$YAML_CPP" > /dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target occam_web
echo "built $BUILD_DIR/web in $(($(date +%s) - start)) s; occam.js is" \
  "$(du -k "$BUILD_DIR/web/occam.js" | cut -f1) KiB"
