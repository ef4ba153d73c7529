// `occam budget` end to end: documented JSON keys, the three chip modes,
// inputs shown with their sources, and bad input (exit status 2 naming the
// flag).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::RunOccam;

// A small dense case that searches in well under a second.
const std::string kBudget =
    "budget --model llama-3.1-8b --cluster h100 --tokens 1T --seq-len 4096 "
    "--global-batch-seqs 256 --threads 2";

TEST(BudgetCli, FixedChipsJsonHasTheDocumentedKeys) {
  const CliOutput o = RunOccam(kBudget + " --chips 64 --top 5 --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["mode"], "chips");
  EXPECT_EQ(j["best"]["chips"], 64);
  EXPECT_LE(j["layouts"].size(), 5u);
  EXPECT_TRUE(j["best"]["money"].is_null());  // no price given, none invented
  const auto& g = j["best"]["goodput"];
  EXPECT_GT(g["goodput"].get<double>(), 0.0);
  EXPECT_LT(g["goodput"].get<double>(), 1.0);
  // days = wall / 86400 and chip-hours = chips x wall / 3600.
  const double wall = j["best"]["wall_s"];
  EXPECT_NEAR(j["best"]["days"].get<double>(), wall / 86400, 1e-9);
  EXPECT_NEAR(j["best"]["chip_hours"].get<double>(), 64 * wall / 3600, 1e-6);
  bool saw_tokens = false;
  for (const auto& i : j["inputs"]) {
    EXPECT_FALSE(i["source"].get<std::string>().empty()) << i["key"];
    if (i["key"] == "tokens") {
      saw_tokens = true;
      EXPECT_EQ(i["value"].get<double>(), 1e12);
      EXPECT_EQ(i["default"], false);
    }
  }
  EXPECT_TRUE(saw_tokens);
}

TEST(BudgetCli, PriceGivesMoney) {
  const CliOutput o = RunOccam(kBudget + " --chips 64 --top 3 --price-per-chip-hour 2.5 --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_NEAR(j["best"]["money"].get<double>(), 2.5 * j["best"]["chip_hours"].get<double>(), 1e-6);
}

TEST(BudgetCli, DeadlineAndMaxChipsScanChipCounts) {
  const CliOutput fixed = RunOccam(kBudget + " --chips 64 --top 3 --json");
  ASSERT_EQ(fixed.status, 0) << fixed.err;
  const double days = nlohmann::json::parse(fixed.out)["best"]["days"].get<double>() * 1.001;
  const CliOutput o =
      RunOccam(kBudget + " --top 3 --max-chips 128 --days " + std::to_string(days) + " --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["mode"], "days");
  EXPECT_LE(j["best"]["chips"].get<int>(), 64);
  EXPECT_LE(j["best"]["days"].get<double>(), days);
  const CliOutput m = RunOccam(kBudget + " --top 3 --max-chips 128");
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.out.find("chip counts tried"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("default: "), std::string::npos);
}

TEST(BudgetCli, EstimateAndPlanAddTheWholeRunWithTokens) {
  const std::string job =
      " --model llama-3.1-8b --cluster h100 --chips 64 --seq-len 4096 "
      "--global-batch-seqs 256";
  const CliOutput plain = RunOccam("estimate" + job + " --plan dp=64 --json");
  const CliOutput with = RunOccam("estimate" + job + " --plan dp=64 --tokens 1T --json");
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_EQ(with.status, 0) << with.err;
  const auto p = nlohmann::json::parse(plain.out);
  auto w = nlohmann::json::parse(with.out);
  EXPECT_FALSE(p.contains("budget"));
  ASSERT_TRUE(w.contains("budget"));
  // The whole run of the estimated layout: compute = tokens / tokens_per_s.
  const auto& run = w["budget"]["run"];
  EXPECT_NEAR(run["compute_s"].get<double>(), 1e12 / p["tokens_per_s"].get<double>(), 1e-6);
  EXPECT_GT(w["budget"]["inputs"].size(), 5u);
  w.erase("budget");
  EXPECT_EQ(w, p);  // the estimate itself is unchanged
  const CliOutput plan = RunOccam("plan" + job + " --top 3 --tokens 1T");
  ASSERT_EQ(plan.status, 0) << plan.err;
  EXPECT_NE(plan.out.find("whole run (--tokens)"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("goodput"), std::string::npos);
}

TEST(BudgetCli, BadInputExitsTwoNamingTheFlag) {
  struct Case {
    std::string args;
    std::string flag;
  };
  const std::string base =
      "budget --model llama-3.1-8b --cluster h100 --seq-len 4096 "
      "--global-batch-seqs 256 ";
  for (const Case& c : {
           Case{"--tokens=-5T --chips 64", "--tokens"},
           Case{"--tokens 1T --chips 64 --price-per-chip-hour nan", "--price-per-chip-hour"},
           Case{"--tokens 1T --days 0", "--days"},
           Case{"--tokens 1T --chips 64 --objective speed", "--objective"},
           Case{"--tokens 1T --chips 64 --objective cost", "--price-per-chip-hour"},
           Case{"--tokens 1T --chips 64 --days 3", "--chips"},
           Case{"--tokens 1T --chips 64 --pue 0.5", "--pue"},
       }) {
    const CliOutput o = RunOccam(base + c.args);
    EXPECT_EQ(o.status, 2) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.flag), std::string::npos) << c.args << "\n" << o.err;
    EXPECT_TRUE(o.out.empty()) << c.args;
  }
}

}  // namespace
