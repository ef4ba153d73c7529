// The pipeline-parallelism verdict: compares the best layout without PP to
// the best with PP and names the time item that makes the difference.
#pragma once

#include <optional>
#include <string>

#include "occam/search.h"
#include "occam/step.h"
#include "occam/units.h"

namespace occam::search {

struct VerdictInput {
  const Estimate* without_pp = nullptr;  // null: none found (see reasons below)
  const Estimate* with_pp = nullptr;
  double threshold = kPpErrorBand;  // PP is needed iff without-PP is slower by more than this
  // Why a side is missing: "" (nothing fits), or the constraint that excluded it.
  std::string without_pp_excluded_by;  // e.g. "--fix pp=16"
  std::string with_pp_excluded_by;     // e.g. "--no-pp"
  Bytes min_memory_without_pp;         // smallest per-chip need among no-PP layouts
  Bytes capacity;                      // usable HBM per chip
};

struct Verdict {
  bool pp_needed = false;
  std::string sentence;
  std::optional<double> margin;  // without-PP step / with-PP step - 1, when both exist
};

Verdict PipelineVerdict(const VerdictInput& in);

// The breakdown item whose exposed share of the step is largest in `a`
// relative to `b` (items matched by what and axis), or a's extra compute
// (recompute, smaller GEMMs) where that share of a's step is larger still.
// Returns a phrase "exposed dp reduce-scatter over ib (28% of the step, 3%
// in the other layout)" or "more compute (7.100 s against 5.300 s in the
// other layout, recompute full against none)", or "" when nothing is
// larger in `a`.
std::string DominantDifference(const Estimate& a, const Estimate& b);

}  // namespace occam::search
