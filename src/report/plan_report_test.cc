#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "occam/report.h"

namespace occam {
namespace {

LayoutResult Layout(const char* plan, double step, double mfu) {
  LayoutResult l;
  l.plan = *ParsePlan(plan);
  l.step_time = Seconds(step);
  l.mfu = mfu;
  l.memory_per_chip = GB(60);
  l.complexity = 3;
  l.bottleneck = "compute-bound";
  return l;
}

SearchResult Result2() {
  SearchResult r;
  r.layouts_evaluated = 10;
  r.layouts_feasible = 4;
  r.top = {Layout("tp=1,pp=2,dp=8,schedule=1f1b", 1.0, 0.4),
           Layout("tp=1,pp=1,dp=16,order=tp/cp/dp/ep/pp", 1.5, 0.3)};
  r.best = r.top[0];
  r.simplest = r.top[0];
  r.best_with_pp = r.top[0];
  r.best_without_pp = r.top[1];
  r.pp_needed = true;
  r.pp_verdict = "pipeline parallelism is needed here: a, b";
  return r;
}

TEST(PlanReport, PlacementNames) {
  EXPECT_EQ(PlacementName(*ParsePlan("tp=1,dp=8")), "default");
  EXPECT_EQ(PlacementName(*ParsePlan("tp=1,dp=8,order=tp/cp/dp/ep/pp")), "ep-outside-dp");
  EXPECT_EQ(PlacementName(*ParsePlan("tp=1,dp=8,order=tp/cp/ep/pp/dp")), "pp-inside-dp");
  EXPECT_EQ(PlacementName(*ParsePlan("tp=1,dp=8,order=dp/tp")), "dp/tp");
  EXPECT_EQ(PlacementName(*ParsePlan("tp=1,dp=8,mesh=compact")), "default+compact");
}

TEST(PlanReport, JsonCarriesTheLayoutsAndTheVerdict) {
  ModelSpec m;
  m.name = "m";
  ClusterSpec c;
  c.name = "c";
  c.num_chips = 16;
  const auto j = nlohmann::json::parse(PlanJson(Result2(), m, c, JobSpec{}, 0.5));
  EXPECT_EQ(j["best"]["plan"], "tp=1,pp=2,dp=8,zero=1,mbs=1,recompute=none,schedule=1f1b");
  EXPECT_EQ(j["best_without_pp"]["placement"], "ep-outside-dp");
  EXPECT_EQ(j["top"].size(), 2u);
  EXPECT_TRUE(j["pp_needed"].get<bool>());
  EXPECT_DOUBLE_EQ(j["search_seconds"].get<double>(), 0.5);
}

TEST(PlanReport, CsvQuotesFieldsWithCommas) {
  SweepRow row;
  row.cluster = "h800";
  row.variant = "scale-up-size=8";
  row.chips = 16;
  row.result = Result2();
  SweepRow bad;
  bad.cluster = "gb200";
  bad.error = "no layout of 2016 chips divides";
  const std::string csv = SweepCsv({row, bad});
  EXPECT_NE(csv.find("\"tp=1,pp=2,dp=8,zero=1,mbs=1,recompute=none,schedule=1f1b\""),
            std::string::npos);
  EXPECT_NE(csv.find("\"pipeline parallelism is needed here: a, b\""), std::string::npos);
  int lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, 3);
  EXPECT_NE(csv.find("\ngb200,,0,"), std::string::npos);
}

}  // namespace
}  // namespace occam
