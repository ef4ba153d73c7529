// The PP verdict sentence; see verdict.h and doc/search.md §PP verdict.
#include "search/verdict.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <utility>

namespace occam::search {
namespace {

using Key = std::pair<std::string, std::string>;  // (what, axis)

struct Share {
  double fraction = 0;  // exposed / step time
  std::string tier;
};

std::map<Key, Share> Shares(const Estimate& e) {
  std::map<Key, Share> out;
  const double step = e.step_time.value();
  if (step <= 0) return out;
  for (const TimeItem& item : e.breakdown) {
    if (item.what == "compute") continue;
    Share& s = out[{item.what, item.axis}];
    s.fraction += item.exposed.value() / step;
    if (s.tier.empty()) s.tier = item.tier;
  }
  return out;
}

std::string Pct(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

std::string Describe(const Estimate& e) {
  return fmt::format("{} MFU, step {:.3f} s", Pct(e.mfu), e.step_time.value());
}

Seconds ComputeOf(const Estimate& e) {
  Seconds c;
  for (const TimeItem& item : e.breakdown) {
    if (item.what == "compute") c += item.exposed;
  }
  return c;
}

std::string RecomputeOf(const PlanSpec& p) {
  return p.recompute_modules != 0 ? RecomputeModulesName(p.recompute_modules)
                                  : std::string(RecomputeName(p.recompute));
}

}  // namespace

std::string DominantDifference(const Estimate& a, const Estimate& b) {
  const auto sa = Shares(a);
  const auto sb = Shares(b);
  const std::pair<const Key, Share>* pick = nullptr;
  // More compute in `a` (recompute, a smaller GEMM shape) competes with
  // every exposed item, by the time it adds as a share of a's step.
  const Seconds compute_a = ComputeOf(a), compute_b = ComputeOf(b);
  const double more_compute =
      a.step_time.value() > 0 ? (compute_a - compute_b).value() / a.step_time.value() : 0.0;
  double best_diff = more_compute;
  for (const auto& kv : sa) {
    const auto it = sb.find(kv.first);
    const double other = it == sb.end() ? 0.0 : it->second.fraction;
    const double diff = kv.second.fraction - other;
    if (diff > best_diff) {
      best_diff = diff;
      pick = &kv;
    }
  }
  if (pick == nullptr) {
    if (more_compute <= 0) return "";
    const std::string ra = RecomputeOf(a.plan), rb = RecomputeOf(b.plan);
    return fmt::format(
        "more compute ({:.3f} s against {:.3f} s in the other layout, {})", compute_a.value(),
        compute_b.value(),
        ra == rb ? "at the same recompute " + ra : "recompute " + ra + " against " + rb);
  }
  const auto it = sb.find(pick->first);
  const double other = it == sb.end() ? 0.0 : it->second.fraction;
  std::string what = "exposed " + pick->first.first;
  if (!pick->second.tier.empty()) what += " over " + pick->second.tier;
  return fmt::format("{} ({} of the step, {} in the other layout)", what,
                     Pct(pick->second.fraction), Pct(other));
}

Verdict PipelineVerdict(const VerdictInput& in) {
  Verdict v;
  if (in.without_pp == nullptr && !in.without_pp_excluded_by.empty()) {
    v.sentence = "not assessed: " + in.without_pp_excluded_by + " excludes layouts without PP";
    return v;
  }
  if (in.with_pp == nullptr) {
    v.sentence = in.with_pp_excluded_by.empty()
                     ? "pipeline parallelism is not needed here: no layout with PP fits or divides"
                     : "not assessed: " + in.with_pp_excluded_by + " excludes layouts with PP";
    return v;
  }
  const Estimate& pp = *in.with_pp;
  if (in.without_pp == nullptr && std::isinf(in.min_memory_without_pp.value())) {
    v.pp_needed = true;
    v.sentence = fmt::format(
        "pipeline parallelism is needed here: no layout without PP divides the chips, the model "
        "and the global batch; the best layout with PP reaches {}",
        Describe(pp));
    return v;
  }
  if (in.without_pp == nullptr) {
    v.pp_needed = true;
    v.sentence = fmt::format(
        "pipeline parallelism is needed here: no layout without PP fits in memory (the smallest "
        "needs at least {:.1f} GB per chip, {:.1f} GB usable); the best layout with PP reaches {}",
        in.min_memory_without_pp.value() / 1e9, in.capacity.value() / 1e9, Describe(pp));
    return v;
  }
  const Estimate& flat = *in.without_pp;
  const double ratio = flat.step_time / pp.step_time;
  v.margin = ratio - 1.0;
  v.pp_needed = ratio > 1.0 + in.threshold;
  if (v.pp_needed) {
    const std::string why = DominantDifference(flat, pp);
    v.sentence = fmt::format(
        "pipeline parallelism is needed here: the best layout without PP reaches {} vs {} with "
        "PP ({} slower, beyond the {} error band){}",
        Describe(flat), Describe(pp), Pct(ratio - 1.0), Pct(in.threshold),
        why.empty() ? "" : "; without PP the step is held back by " + why);
  } else if (ratio > 1.0) {
    const std::string why = DominantDifference(pp, flat);
    v.sentence = fmt::format(
        "pipeline parallelism is not needed here (within error): the best layout with PP is {} "
        "faster ({} vs {} without PP), inside occam's {} error band{}",
        Pct(ratio - 1.0), Describe(pp), Describe(flat), Pct(in.threshold),
        why.empty() ? "" : "; with PP the step pays " + why);
  } else {
    const std::string why = DominantDifference(pp, flat);
    v.sentence = fmt::format(
        "pipeline parallelism is not needed here: the best layout without PP reaches {}, faster "
        "than the best with PP ({}){}",
        Describe(flat), Describe(pp), why.empty() ? "" : "; with PP the step pays " + why);
  }
  return v;
}

}  // namespace occam::search
