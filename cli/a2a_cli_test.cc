// The a2a_overlap plan field through the built binary: estimate accepts it
// where Megatron-Core's combined 1F1B runs and reports less exposed expert
// all-to-all; every excluded combination exits 2 naming the field; the
// planner's --fix takes it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::RunOccam;

const char* kDeepSeek =
    "--model deepseek-v3 --cluster h800 --chips 2048 --seq-len 4096 --global-batch-seqs 15360 "
    "--moe-imbalance 1.1 ";

// Exposed seconds of the "ep" breakdown item of an estimate's JSON.
double ExposedEp(const nlohmann::json& j) {
  for (const auto& item : j.at("breakdown_s")) {
    if (item.value("axis", "") == "ep") return item.at("exposed_s").get<double>();
  }
  ADD_FAILURE() << "no ep item in " << j.dump();
  return 0;
}

TEST(A2aCli, EstimateHidesExpertAllToAll) {
  const std::string plan = "--plan tp=2,pp=1,ep=64,dp=1024";
  const CliOutput off = RunOccam(std::string("estimate ") + kDeepSeek + plan + " --json");
  const CliOutput on =
      RunOccam(std::string("estimate ") + kDeepSeek + plan + ",a2a_overlap=1 --json");
  ASSERT_EQ(off.status, 0) << off.err;
  ASSERT_EQ(on.status, 0) << on.err;
  const auto j_off = nlohmann::json::parse(off.out);
  const auto j_on = nlohmann::json::parse(on.out);
  EXPECT_LT(ExposedEp(j_on), ExposedEp(j_off));
  EXPECT_LT(j_on.at("step_time_s").get<double>(), j_off.at("step_time_s").get<double>());
  EXPECT_NE(j_on.at("plan").get<std::string>().find("a2a_overlap=1"), std::string::npos);
  EXPECT_EQ(j_off.at("plan").get<std::string>().find("a2a_overlap"), std::string::npos);
}

TEST(A2aCli, ExcludedCombinationsAreBadInput) {
  struct Case {
    const char* plan;
    const char* needle;
  } cases[] = {
      {"tp=2,pp=1,ep=1,dp=1024,a2a_overlap=1", "needs expert parallelism"},
      {"tp=2,pp=8,ep=64,dp=128,schedule=1f1b,a2a_overlap=1", "needs schedule=interleaved"},
      {"tp=1,pp=16,ep=64,dp=128,schedule=dualpipe,a2a_overlap=1", "already overlaps"},
      {"tp=2,pp=1,ep=64,dp=1024,recompute=full,a2a_overlap=1", "recompute=full"},
      {"tp=2,pp=8,vpp=2,ep=64,dp=128,zero=3,schedule=interleaved,a2a_overlap=1", "zero=3"},
      {"tp=2,pp=1,ep=64,dp=1024,a2a_overlap=maybe", "is not one of 1f1b"},
  };
  for (const Case& c : cases) {
    const CliOutput r = RunOccam(std::string("estimate ") + kDeepSeek + "--plan " + c.plan);
    EXPECT_EQ(r.status, 2) << c.plan << ": " << r.err;
    EXPECT_NE(r.err.find("plan field 'a2a_overlap'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  }
  const CliOutput dense = RunOccam(
      "estimate --model llama-3.1-8b --cluster h100 --chips 64 --seq-len 8192 "
      "--global-batch-seqs 512 --plan tp=8,dp=8,a2a_overlap=1");
  EXPECT_EQ(dense.status, 2) << dense.err;
  EXPECT_NE(dense.err.find("plan field 'a2a_overlap': the model is dense"), std::string::npos)
      << dense.err;
}

TEST(A2aCli, PlanFixesTheFlag) {
  // Every other field fixed, so the two plans differ only by the overlap.
  const std::string args = std::string("plan ") + kDeepSeek +
                           "--no-pp --fix tp=2,cp=4,ep=64,mbs=1,zero=2,recompute=selective";
  const CliOutput on = RunOccam(args + ",a2a_overlap=1 --json");
  const CliOutput off = RunOccam(args + ",a2a_overlap=0 --json");
  ASSERT_EQ(on.status, 0) << on.err;
  ASSERT_EQ(off.status, 0) << off.err;
  const auto j_on = nlohmann::json::parse(on.out);
  const auto j_off = nlohmann::json::parse(off.out);
  const std::string best_on = j_on.at("best").at("plan").get<std::string>();
  ASSERT_NE(best_on.find(",a2a_overlap=1"), std::string::npos);
  EXPECT_EQ(j_off.at("best").at("plan").get<std::string>().find("a2a_overlap"), std::string::npos);
  // The layout found with the overlap is faster with it than without it.
  // (The best layout without the overlap may place the axes differently:
  // at ZeRO-2's per-micro-batch reductions this one is bound by the
  // data-parallel tail, and its best order without the overlap keeps the
  // expert-data-parallel reductions inside the nodes.)
  std::string without = best_on;
  without.erase(without.find(",a2a_overlap=1"), std::string(",a2a_overlap=1").size());
  const CliOutput same =
      RunOccam(std::string("estimate ") + kDeepSeek + "--plan " + without + " --json");
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_LT(j_on.at("best").at("step_time_s").get<double>(),
            nlohmann::json::parse(same.out).at("step_time_s").get<double>());
}

}  // namespace
