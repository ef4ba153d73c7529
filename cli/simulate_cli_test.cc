// occam simulate, run as a user runs it: golden text output, the JSON keys of
// doc/json-output.md § simulate, the trace's structure, and bad input (exit
// status 2). OCCAM_UPDATE_GOLDEN=1 rewrites the golden files.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::ExpectGolden;

// Runs `occam simulate <args>`; stderr joins stdout unless `stdout_only`.
CliOutput Simulate(const std::string& args, bool stdout_only = false) {
  return occam::testing_cli::RunOccamMerged("simulate " + args, stdout_only);
}

TEST(SimulateCli, OneFOneBTextGolden) {
  const CliOutput r =
      Simulate("--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 10 --bwd-ms 20");
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectGolden("simulate_1f1b.txt", r.out);
}

// 1F1B bubble (p-1)/(m+p-1) of the makespan (arXiv:2104.04473 §2.2).
TEST(SimulateCli, JsonHasThePerStageKeys) {
  const int p = 4, m = 8;
  const CliOutput r = Simulate(
      "--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 10 --bwd-ms 20 "
      "--act 2GB --json",
      true);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j.at("makespan_s").get<double>(), (m + p - 1) * 0.030, 1e-12);
  EXPECT_NEAR(j.at("bubble_fraction").get<double>(), double(p - 1) / (m + p - 1), 1e-12);
  ASSERT_EQ(j.at("peak_inflight_microbatches").size(), 4u);
  EXPECT_EQ(j.at("peak_inflight_microbatches")[0].get<int>(), p);
  ASSERT_EQ(j.at("peak_activation_bytes").size(), 4u);
  EXPECT_NEAR(j.at("peak_activation_bytes")[0].get<double>(), p * 2e9, 1);
}

TEST(SimulateCli, TraceHasAProcessPerStageAndComputeAndCommThreads) {
  const std::string path = occam::testing_cli::UniqueTempPath(".json");
  const CliOutput r = Simulate(
      "--schedule interleaved --stages 4 --vpp 2 --microbatches 8 --fwd-ms 10 "
      "--bwd-ms 20 --p2p-ms 0.5 --trace " +
      path);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.at("traceEvents").is_array());
  std::set<int> pids, named_pids;
  std::set<std::pair<int, int>> tids, named_tids;
  for (const auto& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "X") {
      pids.insert(e.at("pid").get<int>());
      tids.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
      EXPECT_GE(e.at("ts").get<double>(), 0);
      EXPECT_GE(e.at("dur").get<double>(), 0);
    } else if (ph == "M" && e.at("name") == "process_name") {
      named_pids.insert(e.at("pid").get<int>());
    } else if (ph == "M" && e.at("name") == "thread_name") {
      named_tids.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
    }
  }
  EXPECT_EQ(pids, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(named_pids, pids);
  for (int pid = 0; pid < 4; ++pid) {
    for (int tid = 0; tid < 3; ++tid) {  // compute, send, recv all used and named
      EXPECT_TRUE(tids.count({pid, tid})) << pid << "/" << tid;
      EXPECT_TRUE(named_tids.count({pid, tid})) << pid << "/" << tid;
    }
  }
  std::remove(path.c_str());
}

// Model mode: chunk costs from the step layer; one entry per stage.
TEST(SimulateCli, ModelModeReportsActivationBytesPerStage) {
  const CliOutput r = Simulate(
      "--model deepseek-v3 --cluster h800 --chips 2048 --plan "
      "\"tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,recompute=none,schedule=dualpipe\" "
      "--seq-len 4096 --global-batch-seqs 15360 --json",
      true);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schedule"), "dualpipe");
  EXPECT_EQ(j.at("microbatches").get<int>(), 15360 / 128);
  EXPECT_EQ(j.at("parameter_copies").get<int>(), 2);
  ASSERT_EQ(j.at("peak_activation_bytes").size(), 16u);
  for (const auto& b : j.at("peak_activation_bytes")) EXPECT_GT(b.get<double>(), 0);
  EXPECT_EQ(j.at("chunks").size(), 16u);
}

TEST(SimulateCli, ModelModeGlobalAuxLossRejects1F1B) {
  const CliOutput r = Simulate(
      "--model deepseek-v3 --cluster h800 --chips 2048 --plan "
      "\"tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,recompute=none,schedule=1f1b\" "
      "--seq-len 4096 --global-batch-seqs 15360 --balance global-aux-loss");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("afab"), std::string::npos) << r.out;
}

TEST(SimulateCli, BadInputIsExitTwoWithAMessage) {
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"--stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2", "--schedule"},
      {"--schedule zigzag --stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2", "zigzag"},
      {"--schedule interleaved --stages 4 --microbatches 6 --fwd-ms 1 --bwd-ms 2", "divisible"},
      {"--schedule dualpipe --stages 3 --microbatches 12 --fwd-ms 1 --bwd-ms 2", "even"},
      {"--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 0 --bwd-ms 2", "--fwd-ms"},
      {"--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2 --wgrad-ms 3",
       "--wgrad-ms"},
      {"--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2 --global-aux-loss",
       "gpipe"},
      {"--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2 --act 2XB", "--act"},
      {"--schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2 --trace /nonexistent/t",
       "--trace"},
      {"--model deepseek-v3 --cluster h800 --chips 2048", "--plan"},
      {"--model deepseek-v3 --cluster h800 --chips 2048 --plan \"pp=16,schedule=1f1b\" "
       "--fwd-ms 3",
       "uniform"},
  };
  for (const Case& c : cases) {
    const CliOutput r = Simulate(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out;
  }
  EXPECT_EQ(Simulate("--schedule gpipe --stages 4 --microbatches 8 --fwd-ms 1 --bwd-ms 2 "
                     "--global-aux-loss")
                .status,
            0);
}

}  // namespace
