// The planner's engine, independent of the cost model: enumerates
// candidates, prunes them by the cheap bounds, evaluates the rest in
// parallel through a LayoutEvaluator, and merges the per-chunk results in a
// total order so the answer is the same for every thread count.
#pragma once

#include <cstdint>

#include "occam/search.h"
#include "search/evaluator.h"

namespace occam::search {

// The documented cap on candidate layouts of one search (doc/search.md):
// about 4-8 s on one core at the target evaluation rate (a torus cluster
// doubles the count: both rank mappings).
constexpr int64_t kMaxCandidates = 8'000'000;

struct Tuning {
  bool prune = true;  // memory and step-time bounds; off = exhaustive
  int64_t max_candidates = kMaxCandidates;
  // Shapes per unit of work. Fixed (never derived from the thread count):
  // the bound used for pruning is local to a chunk, so the chunking decides
  // what is evaluated and must not depend on the machine.
  int64_t shapes_per_chunk = 4;
};

Result<SearchResult> RunSearch(const ModelSpec& model, const ClusterSpec& cluster,
                               const JobSpec& job, const SearchOptions& options,
                               const LayoutEvaluator& evaluator, const Tuning& tuning = {});

}  // namespace occam::search
