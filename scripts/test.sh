#!/usr/bin/env bash
# Sets up, builds and runs every test: the release build, then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer (clang), a short fuzz run,
# the page in a headless browser (WebAssembly), then a format check.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, so a slow CI run shows where its time went.
phase_start=$SECONDS
phase() {
  echo "test.sh: $1 took $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}
scripts/setup.sh build
phase "release setup and build"
ctest --test-dir build --output-on-failure -j"$(nproc)"
phase "release tests"

# The sanitizer suite and the fuzzers share one clang build: AddressSanitizer +
# UndefinedBehaviorSanitizer + libFuzzer's coverage on every library, tests and
# fuzz targets alike (one build instead of two; clang builds it in about 60% of
# GCC's time with the sanitizers). -O2 with line tables only: reports keep file
# and line, and the tests and fuzzers run at near release speed.
CC=clang CXX=clang++ cmake -S . -B build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1" -DOCCAM_SANITIZE=ON -DOCCAM_FUZZ=ON \
  -DOCCAM_BUILD_BENCH=OFF > /dev/null
cmake --build build-san -j"$(nproc)"
phase "sanitizer build"
# Left to the release suite above: the cross-validation tests and the
# catalog-is-the-fit test (hundreds of calibration refits), the comparisons of the search against exhaustive
# enumeration (the same code paths as the smaller search tests, repeated over
# every layout; five to over ten minutes each under the sanitizers), and the
# tests that repeat one path many times over: whole searches at 1 to 4
# threads, pruned against unpruned searches, the balance simulation of a whole
# batch against its sample, the step model over a grid of bandwidths and
# FLOP/s, the step-time bounds over random layouts (15 to 38 s each under the
# sanitizers), and the accuracy gates that validate every bundled run again
# (one whole validation, ValidateGate.EveryRunIsPredictedOrSkippedWithAReason,
# stays; 6 to 21 s each).
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-san --output-on-failure -j"$(nproc)" \
  -E '^(CrossValidation|CalibrationFit|PlannerVsExhaustive)\.|Exhaustive|FasterHardwareNeverMakesTheBestLayoutSlower|ByteIdenticalAcrossThreadCounts|PruningNeverChangesTheAnswer|SampledBatchAgreesWithExactBatch|MoreBandwidthOrFlopsIsNeverSlower|Bounds\.NeverAboveTheStepModel|ValidateGate\.(Median|Korthikanti|AtLeast|Reported)|Fp8RatioOverrideMovesOnlyFp8Runs'
phase "sanitizer tests"

# A short fuzz run: the 8 libFuzzer targets, ~22 s each, as many at once as
# there are cores, on the build above.
OCCAM_FUZZ_BUILD=build-san scripts/fuzz.sh 180
phase "fuzz"

# The page (WebAssembly, Emscripten) in headless chromium against the release
# CLI (doc/web.md): a Release-only build of the library for the browser.
scripts/web_test.sh build-web build
phase "page build and test"

if command -v clang-format > /dev/null; then
  files=$(git ls-files '*.h' '*.cc' 2>/dev/null || true)
  if [[ -n "$files" ]]; then
    clang-format --dry-run --Werror $files
  fi
fi
echo "all tests passed"
