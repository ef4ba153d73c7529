// occam collective, run as a user runs it: golden text output, the JSON keys
// of doc/json-output.md § collective, and bad input (exit status 2).
// OCCAM_UPDATE_GOLDEN=1 rewrites the golden files.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::ExpectGolden;

// Runs `occam collective <args>`; stderr joins stdout unless `json_only`.
CliOutput Occam(const std::string& args, bool json_only = false) {
  return occam::testing_cli::RunOccamMerged("collective " + args, json_only);
}

CliOutput OccamStdout(const std::string& args) { return Occam(args, true); }

TEST(CollectiveCli, H100TwoNodeAllReduceGolden) {
  const CliOutput r = Occam("--cluster h100 --chips 16 --op all-reduce --bytes 1GiB --group 0-15");
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectGolden("collective_h100_allreduce.txt", r.out);
}

TEST(CollectiveCli, TpuTwoAxesAllGatherGolden) {
  const CliOutput r =
      Occam("--cluster tpu-v5p --chips 4096 --op all-gather --bytes 512MiB --axes x,y");
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectGolden("collective_tpu_v5p_allgather_xy.txt", r.out);
}

TEST(CollectiveCli, ExpertAllToAllGolden) {
  const CliOutput r = Occam(
      "--cluster h800 --chips 256 --op all-to-all --bytes 235M --max-nodes 4 --topk 8 "
      "--imbalance 1.3");
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectGolden("collective_h800_dispatch.txt", r.out);
}

TEST(CollectiveCli, JsonHasTheDocumentedKeys) {
  const CliOutput r = OccamStdout("--cluster h100 --chips 8 --op all-reduce --bytes 1GiB --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"time_s", "algbw_gbps", "busbw_gbps", "algorithm", "limiting_tier",
                          "limiting_tier_index", "op", "bytes", "group", "tiers", "cluster"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["algorithm"], "nvls");
  // algbw = bytes / time; busbw = algbw * 2(n-1)/n (nccl-tests).
  const double algbw = 1073741824.0 / j["time_s"].get<double>() / 1e9;
  EXPECT_NEAR(j["algbw_gbps"].get<double>(), algbw, 1e-6);
  EXPECT_NEAR(j["busbw_gbps"].get<double>(), algbw * 2 * 7 / 8, 1e-6);
}

TEST(CollectiveCli, ForcedRingIsSlowerThanNvlsOnH100) {
  const auto best = nlohmann::json::parse(
      OccamStdout("--cluster h100 --chips 8 --op all-reduce --bytes 1GiB --json").out);
  const auto ring = nlohmann::json::parse(
      OccamStdout("--cluster h100 --chips 8 --op all-reduce --bytes 1GiB --algorithm ring --json")
          .out);
  EXPECT_EQ(ring["algorithm"], "ring");
  EXPECT_GT(ring["time_s"].get<double>(), best["time_s"].get<double>());
}

TEST(CollectiveCli, BadInputExitsTwoWithOneMessage) {
  const std::string base = "--cluster h100 --chips 32 ";
  const std::pair<std::string, std::string> cases[] = {
      {"--op alltoall --bytes 1G", "--op: 'alltoall'"},
      {"--op all-reduce --bytes -5", "--bytes"},
      {"--op all-reduce --bytes 1G --group 4-11", "not aligned"},
      {"--op all-reduce --bytes 1G --group 0-63", "does not exist"},
      {"--op all-reduce --bytes 1G --group-size 32 --stride 2", "--group-size"},
      {"--op all-reduce --bytes 1G --axes x", "--axes applies to torus"},
      {"--op all-reduce --bytes 1G --group 0-7 --group-size 8", "give one of"},
      {"--op all-reduce --bytes 1G --imbalance 2", "all-to-all only"},
      {"--op all-to-all --bytes 1G --imbalance 0.5", "--imbalance"},
      {"--op all-to-all --bytes 1G --max-nodes 4", "needs --topk"},
      {"--op all-gather --bytes 1G --algorithm nvls", "does not apply"},
      {"--op all-reduce --bytes 1G --algorithm fastest", "--algorithm: 'fastest'"},
      {"--op send-recv --bytes 1G", "two ranks"},
  };
  for (const auto& [args, needle] : cases) {
    const CliOutput r = Occam(base + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(needle), std::string::npos) << args << ": " << r.out;
  }
  const CliOutput axes =
      Occam("--cluster tpu-v5p --chips 4096 --op all-gather --bytes 1G --axes x,z");
  EXPECT_EQ(axes.status, 2);
  EXPECT_NE(axes.out.find("not adjacent"), std::string::npos) << axes.out;
}

}  // namespace
