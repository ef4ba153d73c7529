#!/usr/bin/env bash
# Builds the page (scripts/web.sh) and the native CLI, then tests the page in
# headless chromium against the CLI (web/tests/page_test.py).
# Usage: scripts/web_test.sh [web-build-dir] [native-build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
WEB_BUILD="${1:-build-web}"
BUILD="${2:-build}"
if ! command -v chromium > /dev/null; then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
fi
scripts/web.sh "$WEB_BUILD"
[[ -x "$BUILD/occam" ]] || scripts/setup.sh "$BUILD"
OCCAM_WEB_DIR="$WEB_BUILD/web" OCCAM_BINARY="$BUILD/occam" python3 -m unittest -v web/tests/page_test.py
