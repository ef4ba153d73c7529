#include "search/ranking.h"

#include <algorithm>

namespace occam::search {

bool RanksBefore(const Entry& a, const Entry& b) {
  if (a.quick.step_time != b.quick.step_time) return a.quick.step_time < b.quick.step_time;
  if (a.complexity != b.complexity) return a.complexity < b.complexity;
  return FormatPlan(a.plan) < FormatPlan(b.plan);
}

namespace {

// Inserts `e` into the sorted list `v` of at most `keep` entries; equal
// entries (the same layout offered again by a merge) are kept once.
void KeepSorted(std::vector<Entry>& v, const Entry& e, size_t keep) {
  if (v.size() >= keep && !RanksBefore(e, v.back())) return;
  auto pos = std::upper_bound(v.begin(), v.end(), e, RanksBefore);
  const bool duplicate = pos != v.begin() && !RanksBefore(*(pos - 1), e);
  if (!duplicate) v.insert(pos, e);
  if (v.size() > keep) v.pop_back();
}

}  // namespace

void Ranking::Offer(const Entry& e) {
  KeepSorted(top_, e, static_cast<size_t>(keep_top_));
  KeepSorted(best_[PpCategory(e.plan)], e, kCategoryKeep);
  const auto c = static_cast<size_t>(std::max(0, e.complexity));
  if (fastest_by_complexity_.size() <= c) fastest_by_complexity_.resize(c + 1);
  auto& slot = fastest_by_complexity_[c];
  if (!slot || RanksBefore(e, *slot)) slot = e;
  auto& by_schedule = fastest_by_schedule_[PpCategory(e.plan)];
  const auto sched = static_cast<size_t>(e.plan.schedule);
  if (by_schedule.size() <= sched) by_schedule.resize(sched + 1);
  if (!by_schedule[sched] || RanksBefore(e, *by_schedule[sched])) by_schedule[sched] = e;
}

void Ranking::Merge(const Ranking& other) {
  for (const Entry& e : other.top_) Offer(e);
  for (const auto& cat : other.best_) {
    for (const Entry& e : cat) Offer(e);
  }
  for (const auto& s : other.fastest_by_complexity_) {
    if (s) Offer(*s);
  }
  for (const auto& cat : other.fastest_by_schedule_) {
    for (const auto& s : cat) {
      if (s) Offer(*s);
    }
  }
}

double Ranking::PruneAbove(int cat) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (top_.empty() || static_cast<int64_t>(top_.size()) < keep_top_ ||
      best_[cat].size() < kCategoryKeep) {
    return kInf;
  }
  const double kth = top_.back().quick.step_time.value();
  const double near_best = top_.front().quick.step_time.value() * (1.0 + threshold_);
  const double cat_kth = best_[cat].back().quick.step_time.value();
  const double schedule_band = best_[cat].front().quick.step_time.value() * (1.0 + kScheduleBand);
  return std::max({kth, near_best, cat_kth, schedule_band});
}

std::vector<Entry> Ranking::ScheduleBests(int cat) const {
  std::vector<Entry> out;
  if (best_[cat].empty()) return out;
  const Seconds limit = best_[cat].front().quick.step_time * (1.0 + kScheduleBand);
  for (const auto& slot : fastest_by_schedule_[cat]) {
    if (slot && slot->quick.step_time <= limit) out.push_back(*slot);
  }
  return out;
}

std::optional<Entry> Ranking::Simplest() const {
  if (top_.empty()) return std::nullopt;
  const Seconds limit = top_.front().quick.step_time * (1.0 + threshold_);
  for (const auto& slot : fastest_by_complexity_) {
    if (slot && slot->quick.step_time <= limit) return slot;
  }
  return top_.front();
}

void Tally::Merge(const Tally& o) {
  candidates += o.candidates;
  pruned_memory += o.pruned_memory;
  pruned_bound += o.pruned_bound;
  invalid += o.invalid;
  evaluated += o.evaluated;
  feasible += o.feasible;
  for (int i = 0; i < 2; ++i) min_memory[i] = std::min(min_memory[i], o.min_memory[i]);
  if (first_invalid.empty()) first_invalid = o.first_invalid;
}

}  // namespace occam::search
