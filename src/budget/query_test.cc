// Budget queries on the real planner: fixed chips, deadline, chip limit.
#include <gtest/gtest.h>

#include <algorithm>

#include "occam/budget.h"

namespace occam {
namespace {

struct Fixture {
  ModelSpec model = *CatalogModel("llama-3.1-8b");
  JobSpec job;
  ClusterAtChips cluster_at = [](int64_t chips) { return CatalogCluster("h100", chips); };
  BudgetOptions options;
  SearchOptions search;
  Fixture() {
    job.seq_len = 4096;
    job.global_batch_seqs = 256;
    options.tokens = 1e12;
    search.threads = 2;
  }
};

TEST(CandidateChipCounts, FourPerDoublingAscendingWithTheLimit) {
  const auto c = CandidateChipCounts(100);
  const std::vector<int64_t> want = {1,  2,  3,  4,  5,  6,  7,  8,  10, 12, 14, 16,
                                     20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 100};
  EXPECT_EQ(c, want);
  EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
  EXPECT_EQ(CandidateChipCounts(2048).back(), 2048);
}

TEST(RunBudgetQuery, FixedChipsRanksThePlannersLayoutsByTheObjective) {
  Fixture f;
  BudgetQuery q;
  q.chips = 64;
  auto r = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->chips, 64);
  for (size_t i = 1; i < r->layouts.size(); ++i) {
    EXPECT_LE(r->layouts[i - 1].wall.value(), r->layouts[i].wall.value());
  }
  // The answer is one of the planner's layouts at that count.
  SearchOptions top = f.search;
  top.top = q.layouts;
  auto plan = SearchLayouts(f.model, *f.cluster_at(64), f.job, top);
  ASSERT_TRUE(plan.ok());
  const std::string best = FormatPlan(r->best->plan);
  EXPECT_TRUE(std::any_of(plan->top.begin(), plan->top.end(),
                          [&](const LayoutResult& l) { return FormatPlan(l.plan) == best; }));
}

TEST(RunBudgetQuery, DeadlineFindsTheFewestChipsThatFinishInTime) {
  Fixture f;
  BudgetQuery fixed;
  fixed.chips = 64;
  auto at64 = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, fixed);
  ASSERT_TRUE(at64.ok());
  BudgetQuery q;
  q.mode = ChipMode::kDeadline;
  q.days = at64->best->days * 1.001;
  q.max_chips = 256;
  auto r = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LE(r->best->chips, 64);
  EXPECT_LE(r->best->days, q.days);
  // Every smaller count tried misses the deadline (or has no layout).
  for (const auto& row : r->scanned) {
    if (row.chips < r->best->chips) {
      EXPECT_FALSE(row.best.has_value()) << row.chips;
    }
  }
  EXPECT_EQ(r->scanned.back().chips, r->best->chips);
  // Counts too small even at 100% MFU are skipped without a search.
  EXPECT_NE(r->scanned.front().error.find("100% MFU"), std::string::npos)
      << r->scanned.front().error;
}

TEST(RunBudgetQuery, MaxChipsTimeIsNoSlowerThanAnyCountTried) {
  Fixture f;
  BudgetQuery q;
  q.mode = ChipMode::kMaxChips;
  q.max_chips = 128;
  auto r = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const auto& row : r->scanned) {
    if (row.best) {
      EXPECT_LE(r->best->wall.value(), row.best->wall.value()) << row.chips;
    }
  }
  EXPECT_LE(r->best->chips, 128);
}

TEST(RunBudgetQuery, CostNeedsAPriceAndPicksTheCheapestCount) {
  Fixture f;
  BudgetQuery q;
  q.mode = ChipMode::kMaxChips;
  q.max_chips = 128;
  q.objective = BudgetObjective::kCost;
  auto no_price = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, q);
  ASSERT_FALSE(no_price.ok());
  EXPECT_NE(no_price.status().message().find("--price-per-chip-hour"), std::string::npos);
  f.options.price_per_chip_hour = 3.0;
  auto r = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const auto& row : r->scanned) {
    if (row.best) {
      EXPECT_LE(*r->best->money, *row.best->money) << row.chips;
    }
  }
}

TEST(RunBudgetQuery, RejectsAZeroDeadline) {
  Fixture f;
  BudgetQuery q;
  q.mode = ChipMode::kDeadline;
  q.days = 0;
  auto r = RunBudgetQuery(f.model, f.cluster_at, f.job, f.options, f.search, q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("--days"), std::string::npos);
}

}  // namespace
}  // namespace occam
