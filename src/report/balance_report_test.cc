#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "occam/report.h"

namespace occam {
namespace {

BalanceResult TwoSteps() {
  BalanceResult r;
  r.max_vio_batch = 0.25;
  r.max_vio_global = 0.5;
  r.rank_load_max_over_mean = 1.125;
  r.straggler_factor = 1.2;
  r.series = {{0, 1.5, 1.25, 1.3, 0.0, 0.0}, {1, 0.75, 1.1, 1.15, 0.001, 0.0}};
  return r;
}

TEST(BalanceReport, JsonHasTheDocumentedKeys) {
  BalanceConfig c;
  c.method = BalanceMethod::kGlobalAuxLoss;
  const auto j = nlohmann::json::parse(BalanceJson(c, TwoSteps()));
  EXPECT_EQ(j["max_vio_batch"].get<double>(), 0.25);
  EXPECT_EQ(j["max_vio_global"].get<double>(), 0.5);
  EXPECT_EQ(j["rank_load_max_over_mean"].get<double>(), 1.125);
  EXPECT_EQ(j["method"], "global-aux-loss");
  EXPECT_TRUE(j["requires_all_forward_first"].get<bool>());
  ASSERT_EQ(j["series"].size(), 2u);
  EXPECT_EQ(j["series"][1]["max_vio_batch"].get<double>(), 0.75);
  EXPECT_EQ(j["series"][1]["step"].get<int>(), 1);
}

TEST(BalanceReport, CsvHasHeaderAndOneRowPerStep) {
  const std::string csv = BalanceCsv(TwoSteps());
  EXPECT_EQ(csv.rfind("step,max_vio_batch,", 0), 0u);
  EXPECT_NE(csv.find("\n1,0.75,1.1,1.15,0.001,0\n"), std::string::npos);
  int lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, 3);
}

TEST(BalanceReport, TextNamesMetricsAndScheduleRestriction) {
  BalanceConfig c;
  c.method = BalanceMethod::kGlobalAuxLoss;
  const std::string t = BalanceText(c, TwoSteps());
  EXPECT_NE(t.find("MaxVio_global"), std::string::npos);
  EXPECT_NE(t.find("straggler factor"), std::string::npos);
  EXPECT_NE(t.find("all-forward-all-backward"), std::string::npos);
}

}  // namespace
}  // namespace occam
