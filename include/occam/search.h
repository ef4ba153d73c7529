// The planner: enumerate layouts, prune what cannot divide or fit, evaluate
// in parallel, rank by throughput, and name the simplest layout within a
// threshold of the best and whether pipeline parallelism is needed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "occam/spec.h"
#include "occam/status.h"
#include "occam/step.h"

namespace occam {

// occam's own error band for comparing two layouts: the out-of-sample
// (leave-one-source-out) median |error| of `occam validate --cv source` on
// the bundled runs (doc/validation.md, "Out of sample"; checked against it by
// src/validate/validate_cv_test.cc). The PP verdict calls PP needed only when
// the best layout with PP is faster by more than this.
inline constexpr double kPpErrorBand = 0.08;

struct SearchOptions {
  int64_t top = 10;                    // layouts kept in `top`
  double simplicity_threshold = 0.03;  // simplest layout within this of the best step time
  std::string fix;                     // plan fields fixed by the user ("ep=64,pp=16")
  int64_t max_tp = 0;                  // 0 = no limit
  bool no_pp = false;
  int threads = 0;  // 0 = hardware concurrency
  // PP is needed iff the best without PP is slower by more than this.
  double pp_threshold = kPpErrorBand;
};

struct LayoutResult {
  PlanSpec plan;
  Seconds step_time;
  double mfu = 0;
  Bytes memory_per_chip;
  int complexity = 0;  // see doc/search.md
  std::string bottleneck;
};

struct SearchResult {
  int64_t layouts_candidates = 0;     // enumerated (every field divides)
  int64_t layouts_pruned_memory = 0;  // skipped: memory lower bound exceeds HBM
  int64_t layouts_pruned_bound = 0;   // skipped: step-time lower bound cannot beat what is kept
  int64_t layouts_invalid = 0;        // rejected by ValidatePlan
  int64_t layouts_evaluated = 0;      // costed (EvaluateQuick)
  int64_t layouts_feasible = 0;       // costed and fit in memory
  std::optional<LayoutResult> best;
  std::optional<LayoutResult> simplest;
  std::optional<LayoutResult> best_without_pp;
  std::optional<LayoutResult> best_with_pp;
  bool pp_needed = false;
  std::string pp_verdict;
  // Step time of the best layout without PP over the best with PP, minus 1
  // (> 0: PP is faster); unset when one side is missing.
  std::optional<double> pp_margin;
  double pp_error_band = 0;  // the threshold the verdict used (options.pp_threshold)
  std::vector<LayoutResult> top;
  std::vector<std::string> notes;  // restrictions the search applied, e.g. by job.balance
};

Result<SearchResult> SearchLayouts(const ModelSpec& model, const ClusterSpec& cluster,
                                   const JobSpec& job, const SearchOptions& options);

// ---------------------------------------------------------------- sweep ---

// What a sweep varies (doc/search.md §Sweep). Cluster variants rebuild the
// cluster; job variants rebuild the job.
enum class SweepVary {
  kNone,
  kScaleUpSize,        // chips in the innermost (fast) tier unit
  kScaleOutGbps,       // per-chip bandwidth (GB/s, one direction) of every outer tier
  kGlobalBatchTokens,  // tokens per step (sequence length kept)
  kSeqLen,             // sequence length (tokens per step kept)
};

struct SweepSpec {
  SweepVary vary = SweepVary::kNone;
  std::vector<double> values;
};

// Parses "--vary" text: "scale-up-size=8,16,72", "scale-out-gbps=25,50",
// "global-batch-tokens=4M,16M", "seq-len=4096,8192"; "" = no variation.
Result<SweepSpec> ParseSweepVary(const std::string& text);
std::string SweepVaryName(SweepVary v);

// The cluster with its innermost tier unit resized to `size` chips at the
// same per-chip bandwidth. The chip count is rounded down to whole units;
// outer tiers are re-cut to multiples of the new unit (tiers that no longer
// hold more than one unit are dropped); a torus unit gets a balanced 3D shape.
Result<ClusterSpec> WithScaleUpSize(const ClusterSpec& cluster, int64_t size);
// The cluster with every tier outside the innermost at `gbps` GB/s per chip.
Result<ClusterSpec> WithScaleOutBandwidth(const ClusterSpec& cluster, double gbps);

struct SweepRow {
  std::string cluster;  // cluster name
  std::string variant;  // "scale-up-size=72", "" when nothing varies
  int64_t chips = 0;
  JobSpec job;
  std::optional<SearchResult> result;  // empty when the search had no answer
  std::string error;                   // why (infeasible or no divisible layout)
};

// One search per (cluster, variant), clusters outermost. A variant without
// an answer (nothing fits, nothing divides) becomes a row with `error`; other
// errors (bad constraints) are returned.
Result<std::vector<SweepRow>> RunSweep(const ModelSpec& model,
                                       const std::vector<ClusterSpec>& clusters, const JobSpec& job,
                                       const SweepSpec& sweep, const SearchOptions& options);

// The complexity score of a layout (documented in doc/search.md).
int LayoutComplexity(const PlanSpec& plan, const ClusterSpec& cluster);

}  // namespace occam
