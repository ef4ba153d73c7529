// occam estimate, run as a user runs it: golden text and JSON output, the
// JSON keys of doc/json-output.md § estimate, and bad layouts (exit 2).
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

// Runs `occam estimate <args>`; stderr joins stdout unless `stdout_only`.
CliOutput Estimate(const std::string& args, bool stdout_only = false) {
  return occam::testing_cli::RunOccamMerged("estimate " + args, stdout_only);
}

const char* kDeepSeek =
    "--model deepseek-v3 --cluster h800 --chips 2048 --seq-len 4096 --global-batch-seqs 15360 "
    "--plan tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,recompute=none,schedule=1f1b";
const char* kLlamaTpu =
    "--model llama-3.1-70b --cluster tpu-v5p --chips 256 --seq-len 8192 --global-batch-seqs 256 "
    "--plan tp=4,dp=64,zero=3,mbs=1,recompute=full";

TEST(EstimateCli, DeepSeekV3OnH800Golden) {
  const CliOutput r = Estimate(kDeepSeek);
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectGolden("estimate_deepseek_v3_h800.txt", r.out);
}

TEST(EstimateCli, Llama70BOnTpuV5pJsonGolden) {
  const CliOutput r = Estimate(std::string(kLlamaTpu) + " --json", true);
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectGolden("estimate_llama70b_tpu_v5p.json", r.out);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"step_time_s", "tokens_per_s", "tokens_per_s_per_chip", "mfu", "hfu",
                        "model_flops_per_token", "params_total", "params_active",
                        "memory_per_chip_bytes", "fits", "breakdown_s", "bottleneck"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  // tokens/s x step time = tokens per step.
  EXPECT_NEAR(j["tokens_per_s"].get<double>() * j["step_time_s"].get<double>(), 256.0 * 8192,
              1e-6 * 256 * 8192);
  EXPECT_LE(j["mfu"].get<double>(), j["hfu"].get<double>());
}

// --cross-entropy reaches the job: Megatron-LM's unfused vocab-parallel loss
// makes more passes over the logits than the fused one, the JSON says which
// ran, and the memory is the same.
// Llama 3.1 8B data-parallel over 8 chips, --json, with `args` (cluster,
// batch and the flag under test); an empty object when it fails.
nlohmann::json Llama8bDp8Json(const std::string& args) {
  const CliOutput r = Estimate(
      "--model llama-3.1-8b --chips 8 --plan tp=1,pp=1,dp=8,zero=1,mbs=1 --json " + args, true);
  EXPECT_EQ(r.status, 0) << r.out;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(EstimateCli, CrossEntropyFlagReachesTheJob) {
  auto run = [](const std::string& impl) {
    return Llama8bDp8Json("--cluster h100 --seq-len 8192 --global-batch-seqs 8 --cross-entropy " +
                          impl);
  };
  const auto fused = run("fused"), unfused = run("vocab_parallel");
  ASSERT_TRUE(fused.contains("job") && unfused.contains("job"));
  EXPECT_EQ(fused["job"]["cross_entropy"], "fused");
  EXPECT_EQ(unfused["job"]["cross_entropy"], "vocab_parallel");
  EXPECT_GT(unfused["step_time_s"].get<double>(), fused["step_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(unfused["memory_per_chip_bytes"]["total"].get<double>(),
                   fused["memory_per_chip_bytes"]["total"].get<double>());
}

TEST(EstimateCli, GradAccumulationFusionFlagReachesTheJob) {
  auto run = [](const std::string& flag) {
    return Llama8bDp8Json("--cluster a100 --seq-len 4096 --global-batch-seqs 32" + flag);
  };
  const auto fused = run(""), unfused = run(" --no-grad-accumulation-fusion");
  ASSERT_TRUE(fused.contains("job") && unfused.contains("job"));
  EXPECT_EQ(fused["job"]["grad_accumulation_fusion"], true);
  EXPECT_EQ(unfused["job"]["grad_accumulation_fusion"], false);
  EXPECT_GT(unfused["step_time_s"].get<double>(), fused["step_time_s"].get<double>());
}

TEST(EstimateCli, LayoutThatDoesNotDivideIsBadInput) {
  const CliOutput r = Estimate(
      "--model llama-3.1-8b --cluster h100 --chips 64 --seq-len 8192 --global-batch-seqs 512 "
      "--plan tp=8,dp=4");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("plan field"), std::string::npos) << r.out;
}

TEST(EstimateCli, BatchNotDivisibleByMicroBatchesIsBadInput) {
  const CliOutput r = Estimate(
      "--model llama-3.1-8b --cluster h100 --chips 64 --seq-len 8192 --global-batch-seqs 100 "
      "--plan tp=8,dp=8,mbs=1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("plan field"), std::string::npos) << r.out;
}

TEST(EstimateCli, ExpertsOnADenseModelIsBadInput) {
  const CliOutput r = Estimate(
      "--model llama-3.1-8b --cluster h100 --chips 64 --seq-len 8192 --global-batch-seqs 512 "
      "--plan tp=8,dp=8,ep=2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("'ep'"), std::string::npos) << r.out;
}

TEST(EstimateCli, MissingPlanIsBadInput) {
  const CliOutput r = Estimate("--model llama-3.1-8b --cluster h100 --chips 8");
  EXPECT_EQ(r.status, 2) << r.out;
}

}  // namespace
