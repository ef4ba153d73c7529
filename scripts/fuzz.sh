#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and fuzzes each one
# briefly, as many targets at once as there are cores; each target gets
# seconds-in-total / 8 seconds. Usage: scripts/fuzz.sh [seconds-in-total]   (default 60)
# OCCAM_FUZZ_BUILD=<dir> fuzzes an existing build configured with -DOCCAM_FUZZ=ON
# (scripts/test.sh's build-san, which also holds the sanitizer tests) instead
# of configuring build-fuzz/.
# Longer runs, the corpus layout and what was found: doc/hardening.md.
# A crash leaves its input in build-fuzz/artifacts/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
TOTAL="${1:-60}"
BUILD="${OCCAM_FUZZ_BUILD:-build-fuzz}"
TARGETS=(fuzz_plan fuzz_model fuzz_cluster fuzz_job fuzz_runs fuzz_estimate fuzz_pipeline fuzz_flags)

if ! command -v clang++ > /dev/null; then
  echo "fuzz.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
if [[ -z "${OCCAM_FUZZ_BUILD:-}" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DOCCAM_FUZZ=ON -DOCCAM_BUILD_TESTS=OFF \
    -DOCCAM_BUILD_BENCH=OFF > /dev/null
elif ! grep -q '^OCCAM_FUZZ:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz.sh: $BUILD is not a build configured with -DOCCAM_FUZZ=ON (clang)" >&2
  exit 2
fi
cmake --build "$BUILD" -j"$(nproc)" --target "${TARGETS[@]}"

# Seeds: fuzz/corpus/<name>/ plus the bundled data files for the parsers.
seeds_for() {
  case "$1" in
    model) echo fuzz/corpus/model data/models ;;
    cluster) echo fuzz/corpus/cluster data/clusters ;;
    runs) echo fuzz/corpus/runs data/runs ;;
    *) echo "fuzz/corpus/$1" ;;
  esac
}

per=$((TOTAL / ${#TARGETS[@]}))
((per >= 1)) || per=1
mkdir -p "$BUILD/artifacts"

# One target: fuzzes it, then prints its executions; status 1 on a finding.
fuzz_one() {
  local t="$1" name="${1#fuzz_}"
  local work="$BUILD/corpus/$name"  # new inputs go here, not into the repository
  mkdir -p "$work"
  local rc=0
  # shellcheck disable=SC2046
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/fuzz/$t" -seed=1 -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$name-" \
    "$work" $(seeds_for "$name") > "$BUILD/$name.log" 2>&1 || rc=1
  if ((rc)); then
    echo "fuzz.sh: $t FAILED; see $BUILD/$name.log and $BUILD/artifacts/" >&2
  fi
  local execs
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD/$name.log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz.sh: $t: $execs executions in ${per}s"
  return "$rc"
}

# The targets in parallel slots, one per core (each fuzzer is one process).
slots=$(nproc)
status=0
pids=()
for t in "${TARGETS[@]}"; do
  fuzz_one "$t" &
  pids+=("$!")
  if ((${#pids[@]} >= slots)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit "$status"
