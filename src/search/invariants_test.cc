// Property tests of the planner over random valid inputs (seeded):
//   - the answer does not depend on the thread count, and repeats exactly;
//   - every layout the planner recommends (best, simplest, best with and
//     without PP, the ranked top) fits in memory when estimated on its own,
//     with the step time the planner reported;
//   - a faster cluster (more FLOP/s, HBM, fast-domain or scale-out bandwidth,
//     lower latency, a larger switched fast domain) never makes the planner's
//     best layout, nor its best layout without PP, slower.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "occam/search.h"
#include "occam/step.h"
#include "step/random_specs_test_util.h"

namespace occam {
namespace {

using testing::PrngSource;

struct PlannerCase {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  std::string what;
};

// Random models on small catalog clusters (8 to 64 chips) so that a full
// search stays quick; the job batch is a multiple of every power-of-two dp.
std::vector<PlannerCase> Cases() {
  std::vector<PlannerCase> out;
  PrngSource s(424242);
  const std::vector<std::string> names = CatalogClusterNames();
  while (out.size() < 8 && !names.empty()) {
    PlannerCase c;
    c.model = testing::RandomModel(s);
    const std::string& name = names[s.Range(0, static_cast<int64_t>(names.size()) - 1)];
    const int64_t chips = testing::PowerOfTwo(s, 3, 6);
    Result<ClusterSpec> cluster = CatalogCluster(name, chips);
    if (!cluster.ok()) continue;
    c.cluster = *std::move(cluster);
    c.job.seq_len = testing::PowerOfTwo(s, 10, 13);
    c.job.global_batch_seqs = chips * testing::PowerOfTwo(s, 0, 3);
    if (c.model.moe) c.job.moe_imbalance = 1.2;
    c.what = std::to_string(c.model.num_layers) + " layers, hidden " +
             std::to_string(c.model.hidden) + (c.model.moe ? ", moe" : ", dense") + " on " + name +
             " x" + std::to_string(chips);
    out.push_back(std::move(c));
  }
  return out;
}

std::string Summary(const SearchResult& r) {
  std::string s = std::to_string(r.layouts_candidates) + "/" + std::to_string(r.layouts_evaluated) +
                  "/" + std::to_string(r.layouts_feasible);
  for (const LayoutResult& l : r.top) s += " | " + FormatPlan(l.plan);
  if (r.best) s += " best " + FormatPlan(r.best->plan);
  if (r.simplest) s += " simplest " + FormatPlan(r.simplest->plan);
  return s + (r.pp_needed ? " pp" : " no-pp");
}

TEST(SearchInvariants, ThreadCountDoesNotChangeTheAnswer) {
  for (const PlannerCase& c : Cases()) {
    SearchOptions options;
    options.threads = 1;
    const Result<SearchResult> one = SearchLayouts(c.model, c.cluster, c.job, options);
    options.threads = 4;
    const Result<SearchResult> four = SearchLayouts(c.model, c.cluster, c.job, options);
    const Result<SearchResult> again = SearchLayouts(c.model, c.cluster, c.job, options);
    ASSERT_EQ(one.ok(), four.ok()) << c.what;
    if (!one.ok()) continue;
    ASSERT_TRUE(again.ok()) << c.what;
    EXPECT_EQ(Summary(*one), Summary(*four)) << c.what;
    EXPECT_EQ(Summary(*four), Summary(*again)) << c.what;
    ASSERT_EQ(one->top.size(), four->top.size()) << c.what;
    for (size_t i = 0; i < one->top.size(); ++i) {
      EXPECT_EQ(one->top[i].step_time, four->top[i].step_time) << c.what;
    }
  }
}

void ExpectFits(const PlannerCase& c, const std::optional<LayoutResult>& layout, const char* role) {
  if (!layout) return;
  const Result<Estimate> e = EstimateStep(c.model, c.cluster, c.job, layout->plan);
  ASSERT_TRUE(e.ok()) << c.what << " " << role << " " << FormatPlan(layout->plan) << ": "
                      << e.status().message();
  EXPECT_TRUE(e->fits) << c.what << " " << role << " " << FormatPlan(layout->plan);
  EXPECT_LE(e->memory.total(), e->memory_capacity) << c.what << " " << role;
  EXPECT_NEAR(e->step_time.value(), layout->step_time.value(), 1e-9 * e->step_time.value())
      << c.what << " " << role << " " << FormatPlan(layout->plan);
}

TEST(SearchInvariants, RecommendedLayoutsFitInMemory) {
  int searched = 0;
  for (const PlannerCase& c : Cases()) {
    SearchOptions options;
    options.threads = 2;
    const Result<SearchResult> r = SearchLayouts(c.model, c.cluster, c.job, options);
    if (!r.ok()) continue;  // nothing fits: nothing is recommended
    ++searched;
    ExpectFits(c, r->best, "best");
    ExpectFits(c, r->simplest, "simplest");
    ExpectFits(c, r->best_without_pp, "best without pp");
    ExpectFits(c, r->best_with_pp, "best with pp");
    for (const LayoutResult& l : r->top) ExpectFits(c, l, "top");
  }
  EXPECT_GE(searched, 4);
}

// The planner's best step time on `faster` must not exceed the one on `c`.
// Every layout of `c` is also a layout of `faster` and (step invariants) not
// slower there, so the best cannot be slower, up to the simulated-pipeline
// tolerance of the step invariants (1%).
void ExpectBestNotSlower(const PlannerCase& c, const ClusterSpec& faster, const char* what) {
  SearchOptions options;
  options.threads = 2;
  const Result<SearchResult> base = SearchLayouts(c.model, c.cluster, c.job, options);
  if (!base.ok() || !base->best) return;
  const Result<SearchResult> fast = SearchLayouts(c.model, faster, c.job, options);
  ASSERT_TRUE(fast.ok() && fast->best) << c.what << " " << what;
  EXPECT_LE(fast->best->step_time.value(), base->best->step_time.value() * 1.01)
      << c.what << ": " << what << " made the best layout slower (" << FormatPlan(base->best->plan)
      << " -> " << FormatPlan(fast->best->plan) << ")";
  // The same for the best layout without PP (the other half of the verdict):
  // its memory does not depend on the hardware's speed, so it still fits.
  if (!base->best_without_pp) return;
  ASSERT_TRUE(fast->best_without_pp) << c.what << " " << what;
  EXPECT_LE(fast->best_without_pp->step_time.value(),
            base->best_without_pp->step_time.value() * 1.01)
      << c.what << ": " << what << " made the best layout without PP slower ("
      << FormatPlan(base->best_without_pp->plan) << " -> "
      << FormatPlan(fast->best_without_pp->plan) << ")";
}

TEST(SearchInvariants, FasterHardwareNeverMakesTheBestLayoutSlower) {
  for (const PlannerCase& c : Cases()) {
    ClusterSpec flops = c.cluster;
    flops.chip.peak_bf16 = flops.chip.peak_bf16 * 4;
    flops.chip.peak_fp8 = flops.chip.peak_fp8 * 4;
    ExpectBestNotSlower(c, flops, "4x FLOP/s");
    ClusterSpec hbm = c.cluster;
    hbm.chip.hbm_bandwidth = hbm.chip.hbm_bandwidth * 4;
    ExpectBestNotSlower(c, hbm, "4x HBM bandwidth");
    ClusterSpec links = c.cluster;
    for (TierSpec& t : links.tiers) t.bandwidth = t.bandwidth * 4;
    ExpectBestNotSlower(c, links, "4x link bandwidth");
    ClusterSpec latency = c.cluster;
    for (TierSpec& t : latency.tiers) t.latency = t.latency * 0.25;
    ExpectBestNotSlower(c, latency, "latency / 4");
    ClusterSpec out = c.cluster;
    for (size_t i = 1; i < out.tiers.size(); ++i)
      out.tiers[i].bandwidth = out.tiers[i].bandwidth * 4;
    ExpectBestNotSlower(c, out, "4x scale-out bandwidth");
    ClusterSpec fast_domain = c.cluster;
    fast_domain.tiers[0].bandwidth = fast_domain.tiers[0].bandwidth * 4;
    ExpectBestNotSlower(c, fast_domain, "4x fast-domain bandwidth");
  }
}

// A larger switched fast domain (tier 0 doubled while the next tier still
// holds whole units) never makes the best layout, or the best without PP,
// slower: every layout keeps its groups and none of them gets slower
// (StepInvariants.LargerFastDomainNeverMakesAStepSlower).
TEST(SearchInvariants, LargerFastDomainNeverMakesTheBestLayoutSlower) {
  for (const PlannerCase& c : Cases()) {
    const auto& tiers = c.cluster.tiers;
    if (tiers.size() < 2 || tiers[0].kind != TierKind::kSwitch) continue;
    const int64_t size = tiers[0].size * 2;
    if (size > tiers[1].size || tiers[1].size % size != 0) continue;
    ClusterSpec larger = c.cluster;
    larger.tiers[0].size = size;
    ExpectBestNotSlower(c, larger, "a fast domain twice as large");
  }
}

}  // namespace
}  // namespace occam
