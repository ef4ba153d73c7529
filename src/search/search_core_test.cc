// The planner engine against the analytic test double: pruning against
// exhaustive search, determinism across thread counts, constraints, and
// that nothing infeasible is recommended.
#include "search/search_core.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "search/enumerate.h"
#include "search/fake_evaluator_test_util.h"
#include "search/ranking.h"

namespace occam::search {
namespace {

using testing::FakeEvaluator;
using testing::SmallCluster;
using testing::SmallDense;
using testing::SmallJob;
using testing::SmallMoe;

struct Case {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
};

std::vector<Case> SmallCases() {
  return {
      {SmallMoe(), SmallCluster(16), SmallJob(64)},
      {SmallMoe(), SmallCluster(32, 6, 12.5), SmallJob(64)},
      {SmallMoe(), SmallCluster(64, 4, 50), SmallJob(128)},
      {SmallDense(), SmallCluster(32), SmallJob(32)},
      {SmallDense(), SmallCluster(64, 2), SmallJob(256)},
  };
}

Result<SearchResult> Search(const Case& c, SearchOptions o = {}, Tuning t = {}) {
  const FakeEvaluator eval(c.model, c.cluster, c.job);
  return RunSearch(c.model, c.cluster, c.job, o, eval, t);
}

// Every field of the answer that a user sees, as one string.
std::string Summary(const SearchResult& r) {
  auto layout = [](const std::optional<LayoutResult>& l) {
    if (!l) return std::string("none");
    return FormatPlan(l->plan) + " " + std::to_string(l->step_time.value()) + " " +
           std::to_string(l->complexity);
  };
  std::string s = layout(r.best) + "|" + layout(r.simplest) + "|" + layout(r.best_without_pp) +
                  "|" + layout(r.best_with_pp) + "|" + r.pp_verdict + "|" +
                  (r.pp_needed ? "needed" : "not needed");
  for (const auto& l : r.top) s += "|" + layout(l);
  return s;
}

TEST(SearchCore, PruningNeverChangesTheAnswer) {
  int64_t pruned = 0;
  for (const Case& c : SmallCases()) {
    SearchOptions o;
    o.top = 5;
    Tuning off;
    off.prune = false;
    auto exhaustive = Search(c, o, off);
    auto pruned_run = Search(c, o);
    ASSERT_TRUE(exhaustive.ok()) << exhaustive.status().message();
    ASSERT_TRUE(pruned_run.ok()) << pruned_run.status().message();
    EXPECT_EQ(Summary(*exhaustive), Summary(*pruned_run)) << c.cluster.num_chips;
    EXPECT_EQ(exhaustive->layouts_pruned_memory + exhaustive->layouts_pruned_bound, 0);
    EXPECT_EQ(exhaustive->layouts_candidates, pruned_run->layouts_candidates);
    pruned += pruned_run->layouts_pruned_memory + pruned_run->layouts_pruned_bound;
  }
  EXPECT_GT(pruned, 0) << "the cases must exercise pruning for this test to mean anything";
}

TEST(SearchCore, ByteIdenticalAcrossThreadCounts) {
  for (const Case& c : SmallCases()) {
    SearchOptions o;
    o.top = 8;
    o.threads = 1;
    auto one = Search(c, o);
    ASSERT_TRUE(one.ok());
    for (int threads : {2, 3, 8}) {
      o.threads = threads;
      auto many = Search(c, o);
      ASSERT_TRUE(many.ok());
      EXPECT_EQ(Summary(*one), Summary(*many)) << threads;
      EXPECT_EQ(one->layouts_evaluated, many->layouts_evaluated);
      EXPECT_EQ(one->layouts_pruned_bound, many->layouts_pruned_bound);
    }
  }
}

// Brute force reference: every candidate of the enumerator, costed, the
// feasible ones sorted by (step time, complexity, plan string).
std::vector<Entry> BruteForce(const Case& c) {
  const FakeEvaluator eval(c.model, c.cluster, c.job);
  const Constraints none;
  std::vector<Entry> all;
  std::vector<Inner> inners;
  for (const Shape& s : EnumerateShapes(c.model, c.cluster, c.job, none)) {
    EnumerateInner(c.model, s, c.cluster, c.job, none, inners);
    for (const Inner& in : inners) {
      PlanSpec p;
      ApplyCandidate(s, in, none, p);
      if (!eval.Validate(p).ok()) continue;
      const QuickEstimate q = eval.Quick(p);
      if (q.fits) all.push_back(Entry{p, q, LayoutComplexity(p, c.cluster)});
    }
  }
  std::sort(all.begin(), all.end(), RanksBefore);
  return all;
}

TEST(SearchCore, AnswersMatchTheExhaustiveRanking) {
  for (const Case& c : SmallCases()) {
    const std::vector<Entry> list = BruteForce(c);
    auto r = Search(c);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->layouts_feasible <= static_cast<int64_t>(list.size()), true);
    ASSERT_EQ(r->top.size(), 10u);
    for (size_t i = 0; i < r->top.size(); ++i) {
      EXPECT_EQ(FormatPlan(r->top[i].plan), FormatPlan(list[i].plan)) << i;
    }
    // Simplest: lowest complexity within 3% of the best, ties to the faster.
    const Seconds limit = list.front().quick.step_time * 1.03;
    const Entry* simplest = nullptr;
    for (const auto& e : list) {
      if (e.quick.step_time > limit) break;
      if (simplest == nullptr || e.complexity < simplest->complexity) simplest = &e;
    }
    EXPECT_EQ(FormatPlan(r->simplest->plan), FormatPlan(simplest->plan));
    for (int cat = 0; cat < 2; ++cat) {
      const Entry* first = nullptr;
      for (const auto& e : list) {
        if (PpCategory(e.plan) == cat) {
          first = &e;
          break;
        }
      }
      const auto& got = cat == 0 ? r->best_without_pp : r->best_with_pp;
      ASSERT_EQ(first != nullptr, got.has_value());
      if (first) {
        EXPECT_EQ(FormatPlan(first->plan), FormatPlan(got->plan));
      }
    }
    // The verdict follows its definition.
    if (r->best_without_pp && r->best_with_pp) {
      const double ratio = r->best_without_pp->step_time / r->best_with_pp->step_time;
      EXPECT_EQ(r->pp_needed, ratio > 1.03) << r->pp_verdict;
    }
  }
}

TEST(SearchCore, NothingInfeasibleIsRecommended) {
  for (const Case& c : SmallCases()) {
    auto r = Search(c);
    ASSERT_TRUE(r.ok());
    const FakeEvaluator eval(c.model, c.cluster, c.job);
    std::vector<LayoutResult> shown = r->top;
    for (const auto* l : {&r->best, &r->simplest, &r->best_with_pp, &r->best_without_pp}) {
      if (*l) shown.push_back(**l);
    }
    for (const auto& l : shown) {
      EXPECT_TRUE(eval.Quick(l.plan).fits) << FormatPlan(l.plan);
      EXPECT_LE(l.memory_per_chip, eval.bounds().capacity());
    }
  }
}

TEST(SearchCore, NothingFitsIsInfeasibleWithTheNeededMemory) {
  const Case c{SmallMoe(), SmallCluster(8, 0.05), SmallJob(64)};
  auto r = Search(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInfeasible);
  EXPECT_NE(r.status().message().find("GB per chip"), std::string::npos);
}

TEST(SearchCore, FixRestrictsEveryLayout) {
  const Case c = SmallCases()[2];
  SearchOptions o;
  o.top = 50;
  o.fix = "ep=4,pp=2";
  auto r = Search(c, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const auto& l : r->top) {
    EXPECT_EQ(l.plan.ep, 4);
    EXPECT_EQ(l.plan.pp, 2);
  }
  EXPECT_FALSE(r->best_without_pp.has_value());
  EXPECT_FALSE(r->pp_needed);
  EXPECT_NE(r->pp_verdict.find("--fix pp=2"), std::string::npos) << r->pp_verdict;
}

TEST(SearchCore, MaxTpAndNoPp) {
  const Case c = SmallCases()[2];
  SearchOptions o;
  o.top = 100;
  o.max_tp = 2;
  o.no_pp = true;
  auto r = Search(c, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const auto& l : r->top) {
    EXPECT_LE(l.plan.tp, 2);
    EXPECT_EQ(l.plan.pp, 1);
    EXPECT_EQ(l.plan.schedule, Schedule::kNone);
  }
  EXPECT_FALSE(r->best_with_pp.has_value());
  EXPECT_NE(r->pp_verdict.find("--no-pp"), std::string::npos);
}

TEST(SearchCore, BadFixNamesTheField) {
  const Case c = SmallCases()[0];
  for (const auto& [fix, field] :
       std::vector<std::pair<std::string, std::string>>{{"ep=abc", "'ep'"},
                                                        {"frob=2", "'frob'"},
                                                        {"stages=1/2", "'stages'"},
                                                        {"tp=2,tp=4", "'tp'"},
                                                        {"schedule=sideways", "'schedule'"}}) {
    SearchOptions o;
    o.fix = fix;
    auto r = Search(c, o);
    ASSERT_FALSE(r.ok()) << fix;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(r.status().message().find("--fix"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(field), std::string::npos) << r.status().message();
  }
  SearchOptions o;
  o.fix = "pp=2";
  o.no_pp = true;
  EXPECT_FALSE(Search(c, o).ok());
  o = {};
  o.fix = "tp=3";  // does not divide 16 chips: a valid request without an answer
  auto r = Search(c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInfeasible);
  EXPECT_NE(r.status().message().find("--fix \"tp=3\""), std::string::npos);
}

TEST(SearchCore, GlobalAuxLossAllowsOnlyGpipe) {
  Case c = SmallCases()[1];
  c.job.balance = BalanceMethod::kGlobalAuxLoss;
  SearchOptions o;
  o.top = 200;
  auto r = Search(c, o);
  ASSERT_TRUE(r.ok());
  for (const auto& l : r->top) {
    EXPECT_TRUE(l.plan.schedule == Schedule::kNone || l.plan.schedule == Schedule::kGpipe);
  }
  ASSERT_GE(r->notes.size(), 1u);  // then the pipeline-model note
  EXPECT_NE(r->notes[0].find("gpipe"), std::string::npos);
}

TEST(SearchCore, TooLargeSearchSaysSoAndSuggestsConstraints) {
  Tuning t;
  t.max_candidates = 10;
  auto r = Search(SmallCases()[0], {}, t);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cap of 10"), std::string::npos);
  EXPECT_NE(r.status().message().find("--fix"), std::string::npos);
}

TEST(SearchCore, CountsAddUp) {
  auto r = Search(SmallCases()[2]);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->layouts_candidates, r->layouts_pruned_memory + r->layouts_pruned_bound +
                                       r->layouts_invalid + r->layouts_evaluated);
  EXPECT_LE(r->layouts_feasible, r->layouts_evaluated);
}

}  // namespace
}  // namespace occam::search
