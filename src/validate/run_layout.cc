// Layout choice for a run's unstated knobs (run_layout.h): candidates in
// the stated order of preference, the first that fits, and the notes of how
// each open knob was filled. Policies: doc/validation.md.
#include "validate/run_layout.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "validate/validate_internal.h"

namespace occam::validate {

// Layers on the first and last of `pp` ranks of `v` chunks each as
// Megatron-LM splits them: evenly when pp*v divides the layers (its default:
// --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split off, the embedding and the loss ride
// on the end stages; megatron/training/arguments.py), else the uneven ends a
// run must then have set (--decoder-first-pipeline-num-layers /
// --decoder-last-pipeline-num-layers, with the rules of
// megatron/core/transformer/transformer_config.py): ends holding no more
// than a middle rank, as many layers as those rules allow, the two ends as
// close as possible, the last (loss) end the smaller on a tie. nullopt when
// no such split exists.
std::optional<std::pair<int64_t, int64_t>> MegatronEnds(int64_t layers, int64_t pp, int64_t v) {
  if (pp < 2 || v < 1) return std::nullopt;
  if (layers % (pp * v) == 0) return std::pair{layers / pp, layers / pp};
  std::optional<std::pair<int64_t, int64_t>> best;
  auto better = [&](int64_t f, int64_t l) {
    if (!best) return true;
    const auto [bf, bl] = *best;
    if (f + l != bf + bl) return f + l > bf + bl;
    if (std::llabs(f - l) != std::llabs(bf - bl)) return std::llabs(f - l) < std::llabs(bf - bl);
    return l < bl;
  };
  for (int64_t f = v; f < layers; f += v) {
    for (int64_t l = v; f + l <= layers; l += v) {
      const int64_t middle = layers - f - l;
      if (pp == 2) {
        if (middle != 0) continue;
      } else {
        const int64_t per_rank = middle / (pp - 2);
        if (middle % ((pp - 2) * v) != 0 || per_rank < std::max(f, l)) continue;
      }
      if (better(f, l)) best = std::pair{f, l};
    }
  }
  return best;
}

namespace {

std::vector<int64_t> PowersOfTwo(int64_t max) {
  std::vector<int64_t> v;
  for (int64_t x = 1; x <= max; x *= 2) v.push_back(x);
  return v;
}

// Interleaving degrees worth trying for `pp` stages of `layers` layers:
// every v >= 2 for which Megatron-LM has a split (MegatronEnds).
std::vector<int64_t> VppChoices(int64_t layers, int64_t pp) {
  std::vector<int64_t> v;
  for (int64_t x = 2; x * pp <= layers && v.size() < 12; ++x) {
    if (MegatronEnds(layers, pp, x)) v.push_back(x);
  }
  return v;
}

// A Megatron-family run whose source states no split: Megatron's (MegatronEnds),
// where one exists for the layout; else occam's default split.
void SetFrameworkSplit(const RunSetup& s, PlanSpec* p) {
  if (!IsMegatronFamily(s.framework) || p->pp < 2 || !p->stage_layers.empty()) return;
  if (p->schedule != Schedule::k1F1B && p->schedule != Schedule::kInterleaved) return;
  const int64_t v = p->schedule == Schedule::kInterleaved ? p->vpp : 1;
  if (auto ends = MegatronEnds(s.model.num_layers, p->pp, v)) {
    p->first_layers = ends->first;
    p->last_layers = ends->second;
  }
}

// (schedule, vpp) pairs for one pp, in the order they are tried: the
// framework's default schedule alone, interleaving alone where the run's
// stated flags imply it (InterleavedImpliedByFlags), else 1F1B; then
// interleaving with the fewest virtual stages first.
std::vector<std::pair<Schedule, int64_t>> ScheduleChoices(const RunSetup& s, int64_t pp) {
  if (pp == 1) return {{Schedule::kNone, 1}};
  const OpenKnobs& o = s.open;
  const bool interleaved = s.order.schedule == Schedule::kInterleaved;
  if (o.schedule && s.order.schedule && !interleaved) return {{*s.order.schedule, 1}};
  std::vector<std::pair<Schedule, int64_t>> out;
  if (o.schedule && !interleaved) out.emplace_back(Schedule::k1F1B, 1);
  if (o.schedule || (o.vpp && s.plan.schedule == Schedule::kInterleaved)) {
    for (int64_t v : VppChoices(s.model.num_layers, pp)) {
      out.emplace_back(Schedule::kInterleaved, v);
    }
    return out;
  }
  out.emplace_back(s.plan.schedule, s.plan.vpp);
  return out;
}

// A candidate with its place in the order of preference (smaller first).
struct Candidate {
  PlanSpec plan;
  std::vector<int64_t> rank;
};

// Where `v` stands in `order` (its index).
template <typename T>
int64_t IndexIn(const std::vector<T>& order, T v) {
  return static_cast<int64_t>(std::find(order.begin(), order.end(), v) - order.begin());
}

// Preference among layouts that differ only in unstated knobs
// (doc/validation.md, "Unstated fields"): fully sharded data parallelism
// (ZeRO-3) where the framework does not default to it only after every
// model-parallel size (Narayanan et al. 2021 takeaway 2: model parallelism
// as large as memory needs, data parallelism to scale out; §5.2: PTD-P
// outruns ZeRO-3 without model parallelism by 70% at 2x the GPUs), then
// the smallest model-parallel size
// tp*pp, tensor parallelism within the scale-up domain before pipeline
// stages (Narayanan et al. 2021 §3.3, takeaways 1 and 2), the fewest expert
// ranks, then the framework's defaults (ZeRO stage, recompute, schedule,
// expert TP) before the alternatives, then the smallest micro-batch.
std::vector<int64_t> PreferenceRank(const RunSetup& s, const PlanSpec& p, int64_t etp_choice) {
  const int64_t domain = s.cluster.tiers.empty() ? 1 : s.cluster.tiers.front().size;
  const int zero_stated = s.order.zero_follows_pp && p.zero == 2 ? 3 : p.zero;
  const bool sharded_beyond_default = zero_stated == 3 && s.order.zero.front() != 3;
  return {sharded_beyond_default ? 1 : 0,
          p.tp * p.pp,
          p.tp > domain ? 1 : 0,
          p.pp,
          p.ep,
          IndexIn(s.order.zero, zero_stated),
          IndexIn(s.order.recompute, p.recompute),
          p.schedule == Schedule::kInterleaved ? p.vpp : 0,
          p.mbs,
          IndexIn(s.order.etp_over_tp, etp_choice)};
}

// Every candidate layout: the stated fields with each open knob varied,
// sorted by preference.
std::vector<Candidate> Candidates(const RunSetup& s) {
  const OpenKnobs& o = s.open;
  const PlanSpec& base = s.plan;
  const int64_t n = s.cluster.num_chips;
  const std::vector<int64_t> tps = o.tp ? PowersOfTwo(16) : std::vector<int64_t>{base.tp};
  const std::vector<int64_t> pps = o.pp ? PowersOfTwo(64) : std::vector<int64_t>{base.pp};
  std::vector<Candidate> out;
  for (int64_t tp : tps) {
    if (tp < s.min_tp) continue;
    for (int64_t pp : pps) {
      if (n % (tp * pp * base.cp) != 0) continue;
      const int64_t dp = n / (tp * pp * base.cp);
      const int64_t per_rank = s.job.global_batch_seqs / dp;
      std::vector<int64_t> mbss = {base.mbs};
      if (s.per_chip_batch) mbss = {std::max<int64_t>(1, per_rank)};
      if (o.mbs) mbss = PowersOfTwo(std::max<int64_t>(1, std::min<int64_t>(16, per_rank)));
      std::vector<int64_t> eps = {base.ep};
      if (o.ep && s.model.moe) eps = PowersOfTwo(std::min<int64_t>(s.model.moe->num_experts, 64));
      for (auto [schedule, vpp] : ScheduleChoices(s, pp)) {
        for (int64_t ep : eps) {
          for (int64_t mbs : mbss) {
            for (Recompute r : s.order.recompute) {
              for (int zero : s.order.zero) {
                // Without data parallelism every ZeRO stage is the same layout.
                if (dp == 1 && zero != s.order.zero.front()) continue;
                for (int64_t etp_over_tp : s.order.etp_over_tp) {
                  PlanSpec p = base;
                  p.tp = tp;
                  p.pp = pp;
                  p.dp = dp;
                  p.ep = ep;
                  p.etp = etp_over_tp == 1 ? tp : 1;
                  p.schedule = schedule;
                  p.vpp = vpp;
                  p.mbs = mbs;
                  p.recompute = r;
                  p.zero = zero == 3 && s.order.zero_follows_pp && pp > 1 ? 2 : zero;
                  if (p.hsdp >= dp || p.zero != 3) p.hsdp = 0;
                  SetFrameworkSplit(s, &p);
                  out.push_back({p, PreferenceRank(s, p, etp_over_tp)});
                }
              }
            }
          }
        }
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
  return out;
}

std::string Gb(Bytes b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", b.value() / 1e9);
  return buf;
}

// Whether the run leaves a choice among layouts: an open knob, or expert TP
// = tp or 1 where tp may exceed 1. A closest recipe's heavier recompute
// policies are not one: they are tried only where its own policy does not
// fit.
bool ChoiceLeft(const RunSetup& s) {
  const OpenKnobs& o = s.open;
  const bool etp = s.order.etp_over_tp.size() > 1 && (o.tp || s.plan.tp > 1);
  return o.tp || o.pp || o.ep || o.vpp || o.schedule || o.mbs || o.recompute || o.zero || etp;
}

}  // namespace

// The first valid candidate, in the order of preference, that fits in
// memory; a layout with nothing left to choose is taken as stated (the run
// did run). With several valid layouts and none fitting, an error naming the
// closest one.
// `search` off: the first valid candidate, unevaluated for memory.
Result<Choice> ChooseLayout(const StepModel& sm, const RunSetup& s, bool search) {
  const std::vector<Candidate> candidates = Candidates(s);
  std::optional<Choice> first_valid, closest;
  Status first_error;
  int64_t valid = 0;
  std::set<std::string> seen;
  for (const Candidate& c : candidates) {
    Status st = ValidatePlan(s.model, s.cluster, s.job, c.plan);
    if (!st.ok()) {
      if (first_error.ok()) first_error = st;
      continue;
    }
    // Choices that coincide (expert TP = tp or 1 when tp is 1) are one layout.
    if (!seen.insert(FormatPlan(c.plan)).second) continue;
    const QuickEstimate q = sm.EvaluateQuick(c.plan);
    if (!std::isfinite(q.step_time.value()) || q.step_time.value() <= 0) continue;
    ++valid;
    Choice here{c.plan, q, 0, valid};
    if (!first_valid) first_valid = here;
    if (!search) break;
    if (q.fits) {
      here.evaluated = static_cast<int64_t>(candidates.size());
      return here;
    }
    if (!closest || q.memory_total < closest->quick.memory_total) closest = here;
  }
  if (!first_valid) {
    if (!first_error.ok()) return first_error;
    return Infeasible("no layout could be evaluated");
  }
  // More than one valid layout left to choose from, and none fits: the run
  // states too little to say which one it ran. One valid layout is what the
  // run states (with its framework's defaults): it did run, so it is taken;
  // so is a closest recipe's first choice when no knob is open and none of
  // the heavier policies that follow it fits either.
  if (search && valid > 1 && ChoiceLeft(s)) {
    return Infeasible("no layout fits occam's memory model: the closest, " +
                      FormatPlan(closest->plan) + ", needs " + Gb(closest->quick.memory_total) +
                      " per chip of " + Gb(s.cluster.chip.hbm) + " (of " + std::to_string(valid) +
                      " valid layouts)");
  }
  first_valid->evaluated = valid;
  return *first_valid;
}

// Records how each open knob was filled.
void NoteFilled(const RunSetup& s, const Choice& c, RunValidation* out) {
  const std::string how = " (preference " + std::to_string(c.position) +
                          " of the valid layouts: the first that fits occam's memory model)";
  const OpenKnobs& o = s.open;
  const PlanSpec& p = c.plan;
  if (o.tp) out->filled.emplace_back("parallel.tp", std::to_string(p.tp) + how);
  if (o.pp) out->filled.emplace_back("parallel.pp", std::to_string(p.pp) + how);
  if (o.ep) out->filled.emplace_back("parallel.ep", std::to_string(p.ep) + how);
  if (s.order.etp_over_tp.size() > 1 && p.ep > 1 && p.tp > 1) {
    out->filled.emplace_back(
        "parallel.etp",
        std::to_string(p.etp) + (p.etp == p.tp ? " (= tp, Megatron-Core's default)" : how));
  }
  if (o.schedule && p.pp > 1) {
    out->filled.emplace_back("parallel.schedule", std::string(ScheduleName(p.schedule)) + how);
  }
  if (o.vpp && p.pp > 1 && p.schedule == Schedule::kInterleaved) {
    out->filled.emplace_back("parallel.vpp", std::to_string(p.vpp) + how);
  }
  if (p.first_layers > 0) {
    out->filled.emplace_back(
        "pipeline split",
        "first_layers=" + std::to_string(p.first_layers) +
            ", last_layers=" + std::to_string(p.last_layers) +
            " (Megatron-LM's split: even over pp*vpp when it divides the layers, the embedding "
            "and the loss on the end stages; else the fewest-layer ends its rules allow)");
  }
  if (o.mbs) out->filled.emplace_back("micro_batch", std::to_string(p.mbs) + how);
  if (s.per_chip_batch && !o.mbs) {
    out->filled.emplace_back(
        "micro_batch",
        std::to_string(p.mbs) + " per data-parallel rank (the source counts per chip)");
  }
  if (o.recompute) {
    out->filled.emplace_back("parallel.recompute", std::string(RecomputeName(p.recompute)) + how);
  } else if (p.recompute != s.order.recompute.front()) {
    out->filled.emplace_back(
        "parallel.recompute",
        std::string(RecomputeName(p.recompute)) + " (the closest recipe's " +
            std::string(RecomputeName(s.order.recompute.front())) +
            " does not fit occam's memory model at the row's layout; the lightest heavier "
            "policy that fits)");
  }
  if (o.zero) out->filled.emplace_back("parallel.zero", std::to_string(p.zero) + how);
  if (!c.quick.fits && c.evaluated > 0) {
    out->memory_fits = false;
    out->filled.emplace_back("memory", "the stated layout does not fit occam's memory model (" +
                                           Gb(c.quick.memory_total) + " per chip of " +
                                           Gb(s.cluster.chip.hbm) + ")");
  }
}

}  // namespace occam::validate
