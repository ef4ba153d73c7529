// Fuzzes run lists (ParseRuns, the `occam validate --runs` format).
// Invariants: errors are input errors naming the file; accepted lists of a
// few runs validate without crashing, each run either predicted (finite,
// positive) or skipped with a reason.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "occam/validate.h"

namespace {
using occam::fuzz::Check;
constexpr std::string_view kOrigin = "fuzz-runs.json";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const occam::Result<std::vector<occam::PublishedRun>> runs = occam::ParseRuns(text, kOrigin);
  if (!runs.ok()) {
    occam::fuzz::CheckInputError(runs.status(), kOrigin);
    return 0;
  }
  if (runs->size() > 2) return 0;  // keep one input fast
  occam::ValidateOptions options;
  options.search_unstated = false;
  const occam::ValidationReport report = occam::ValidateRuns(*runs, options);
  Check(report.runs.size() == runs->size(), "one outcome per run");
  for (const occam::RunValidation& r : report.runs) {
    Check(r.predicted.has_value() != !r.skipped_reason.empty(),
          "a run is either predicted or skipped with a reason");
    if (r.predicted) {
      Check(std::isfinite(*r.predicted) && *r.predicted > 0, "a prediction is finite and > 0");
    }
  }
  return 0;
}
