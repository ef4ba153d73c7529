// The pipeline-parallelism verdict: compares the best layout without PP to
// the best with PP and names the time item that makes the difference.
#pragma once

#include <optional>
#include <string>

#include "occam/step.h"
#include "occam/units.h"

namespace occam::search {

struct VerdictInput {
  const Estimate* without_pp = nullptr;  // null: none found (see reasons below)
  const Estimate* with_pp = nullptr;
  double threshold = 0.13;  // PP is needed iff without-PP is slower by more than this (error band)
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
// relative to `b` (items matched by what and axis; compute excluded).
// Returns a phrase "exposed dp reduce-scatter over ib (28% of the step, 3%
// in the other layout)", or "" when no item is larger in `a`.
std::string DominantDifference(const Estimate& a, const Estimate& b);

}  // namespace occam::search
