// The planner on the real step model: pruning against exhaustive search on
// small catalog cases, determinism, and the public entry point.
#include "occam/search.h"

#include <gtest/gtest.h>

#include "search/search_core.h"
#include "search/step_evaluator.h"

namespace occam {
namespace {

struct Case {
  const char* model;
  const char* cluster;
  int64_t chips;
  int64_t seqs;
};

std::string Summary(const SearchResult& r) {
  std::string s = r.pp_verdict;
  for (const auto* l : {&r.best, &r.simplest, &r.best_without_pp, &r.best_with_pp}) {
    s += "|" + (*l ? FormatPlan((*l)->plan) : std::string("none"));
  }
  for (const auto& l : r.top) s += "|" + FormatPlan(l.plan);
  return s;
}

TEST(SearchLayouts, PruningMatchesExhaustiveSearchOnTheStepModel) {
  for (const Case& c :
       {Case{"llama-3.1-8b", "h100", 32, 64}, Case{"deepseek-v2-lite", "h100", 32, 128},
        Case{"mixtral-8x7b", "tpu-v5p", 64, 64}}) {
    auto model = CatalogModel(c.model);
    auto cluster = CatalogCluster(c.cluster, c.chips);
    ASSERT_TRUE(model.ok() && cluster.ok()) << c.model << " " << c.cluster;
    JobSpec job;
    job.seq_len = 4096;
    job.global_batch_seqs = c.seqs;
    job.moe_imbalance = model->moe ? 1.2 : 0.0;  // keep the routing simulation out of the test
    auto step = StepModel::Create(*model, *cluster, job);
    ASSERT_TRUE(step.ok()) << step.status().message();
    const search::StepModelEvaluator eval(*step);
    SearchOptions o;
    o.top = 10;
    search::Tuning off;
    off.prune = false;
    auto exhaustive = search::RunSearch(*model, *cluster, job, o, eval, off);
    auto pruned = search::RunSearch(*model, *cluster, job, o, eval);
    ASSERT_TRUE(exhaustive.ok()) << exhaustive.status().message();
    ASSERT_TRUE(pruned.ok()) << pruned.status().message();
    EXPECT_EQ(Summary(*exhaustive), Summary(*pruned)) << c.model;
    // Nothing infeasible is recommended.
    for (const auto& l : pruned->top) {
      auto e = step->Evaluate(l.plan);
      ASSERT_TRUE(e.ok());
      EXPECT_TRUE(e->fits) << FormatPlan(l.plan);
      EXPECT_DOUBLE_EQ(e->step_time.value(), l.step_time.value());
    }
    o.threads = 1;
    auto one = search::RunSearch(*model, *cluster, job, o, eval);
    o.threads = 3;
    auto three = search::RunSearch(*model, *cluster, job, o, eval);
    ASSERT_TRUE(one.ok() && three.ok());
    EXPECT_EQ(Summary(*one), Summary(*three));
    EXPECT_EQ(one->layouts_evaluated, three->layouts_evaluated);
  }
}

TEST(SearchLayouts, RejectsBadThresholds) {
  auto model = CatalogModel("llama-3.1-8b");
  auto cluster = CatalogCluster("h100", 16);
  ASSERT_TRUE(model.ok() && cluster.ok());
  JobSpec job;
  job.global_batch_seqs = 32;
  SearchOptions o;
  o.simplicity_threshold = -1;
  auto r = SearchLayouts(*model, *cluster, job, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace occam
