#!/usr/bin/env bash
# Sets up, builds and runs every test: the release build, then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer, a short fuzz run, then a format check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)"

# -O1 with line tables only: the sanitizers' reports keep file and line, and the
# build takes about a third less time than -O2 with full debug information.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DOCCAM_SANITIZE=ON -DOCCAM_BUILD_BENCH=OFF > /dev/null
cmake --build build-asan -j"$(nproc)"
# The cross-validation tests (hundreds of calibration refits) and the planner's
# exhaustive full-model comparisons run in the release suite above; under the
# sanitizers they take five to over ten minutes each.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" \
  -E '^(CrossValidation|PlannerVsExhaustive)\.'

# A short fuzz run (three minutes over the 8 libFuzzer targets, ~22 s each), when clang is
# installed.
if command -v clang++ > /dev/null; then
  scripts/fuzz.sh 180
fi

if command -v clang-format > /dev/null; then
  files=$(git ls-files '*.h' '*.cc' 2>/dev/null || true)
  if [[ -n "$files" ]]; then
    clang-format --dry-run --Werror $files
  fi
fi
echo "all tests passed"
