// What one unit of search work keeps, and how units merge. Layouts are
// ranked by a total order: step time, then complexity, then the plan string
// (FormatPlan), so merging in any order gives the same answer.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "occam/spec.h"
#include "occam/step.h"

namespace occam::search {

struct Entry {
  PlanSpec plan;
  QuickEstimate quick;
  int complexity = 0;
};

// True when a ranks before b.
bool RanksBefore(const Entry& a, const Entry& b);

// Index of the PP category: 0 without pipeline parallelism, 1 with.
inline int PpCategory(const PlanSpec& p) { return p.pp > 1 ? 1 : 0; }

class Ranking {
 public:
  Ranking(int64_t keep_top, double simplicity_threshold)
      : keep_top_(keep_top < 1 ? 1 : keep_top), threshold_(simplicity_threshold) {}

  void Offer(const Entry& e);
  void Merge(const Ranking& other);
  // A layout in category `cat` whose step time exceeds this cannot change
  // the answer of this ranking: it is not among the kept top, not the best of
  // its category, not within the simplicity threshold of the best, and not
  // within kScheduleBand of its category's best (ScheduleBests).
  double PruneAbove(int cat) const;

  const std::vector<Entry>& top() const { return top_; }
  std::optional<Entry> best(int cat) const {
    return best_[cat].empty() ? std::nullopt : std::optional<Entry>(best_[cat].front());
  }
  // The fastest layouts of category `cat`, best first (at most
  // kCategoryKeep): the second pass falls back on them when the best no
  // longer fits under the simulated pipeline.
  const std::vector<Entry>& category(int cat) const { return best_[cat]; }
  static constexpr size_t kCategoryKeep = 4;
  // The fastest layout of each pipeline schedule in category `cat` whose
  // ranking time is within kScheduleBand of the category's fastest: the
  // closed forms err differently per schedule (seen up to 2.8%: Mixtral 8x7B
  // on 32 TPU v5p, interleaved with the combined 1F1B against DualPipeV,
  // exhaustive_test.cc), so one schedule's optimistic closed form must not
  // crowd the others out of the second pass.
  std::vector<Entry> ScheduleBests(int cat) const;
  static constexpr double kScheduleBand = 0.05;
  // Lowest complexity among layouts within the threshold of the best (ties:
  // faster); nullopt when nothing was offered.
  std::optional<Entry> Simplest() const;

 private:
  int64_t keep_top_;
  double threshold_;
  std::vector<Entry> top_;      // sorted by RanksBefore, at most keep_top_
  std::vector<Entry> best_[2];  // sorted by RanksBefore, at most kCategoryKeep
  std::vector<std::optional<Entry>> fastest_by_complexity_;
  std::vector<std::optional<Entry>> fastest_by_schedule_[2];  // indexed by Schedule
};

// Counts and extremes of one unit of work (summed over units).
struct Tally {
  int64_t candidates = 0;
  int64_t pruned_memory = 0;
  int64_t pruned_bound = 0;
  int64_t invalid = 0;
  int64_t evaluated = 0;
  int64_t feasible = 0;
  // Smallest per-chip memory need seen per PP category (a lower bound when
  // the layout was pruned by memory); +inf when none.
  double min_memory[2] = {std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::infinity()};
  std::string first_invalid;  // first ValidatePlan message, for diagnostics

  void Merge(const Tally& other);
};

}  // namespace occam::search
