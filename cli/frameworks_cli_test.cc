// --emit and --from, run as a user runs them: exit codes, the configuration
// on stdout, errors naming the key, file or missing fact (exit 2).
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::RunOccam;

const std::string kData = std::string(OCCAM_SOURCE_DIR) + "/testdata/frameworks/";
const char* kLlama =
    "--model llama-3.1-8b --cluster h100 --chips 16 --seq-len 4096 --global-batch-seqs 64 ";

TEST(FrameworksCli, EstimateEmitsEachFramework) {
  const std::string plan = "--plan tp=2,pp=2,dp=4,zero=1,mbs=1,schedule=1f1b ";
  CliOutput r = RunOccam(std::string("estimate ") + kLlama + plan + "--emit megatron");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("--tensor-model-parallel-size 2"), std::string::npos);
  // torchtitan and MaxText cannot express this plan (ZeRO-1; 1F1B): they say
  // so and print the nearest plan's configuration.
  r = RunOccam(std::string("estimate ") + kLlama + plan + "--emit torchtitan");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("torchtitan cannot express this plan"), std::string::npos);
  EXPECT_NE(r.out.find("[parallelism]"), std::string::npos);
  EXPECT_NE(r.out.find("--parallelism.tensor_parallel_degree"), std::string::npos);
  r = RunOccam(std::string("estimate ") + kLlama + plan + "--emit maxtext");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Nearest plan maxtext can express"), std::string::npos);
  EXPECT_NE(r.out.find("ici_tensor_parallelism"), std::string::npos);
}

TEST(FrameworksCli, WithoutFlagsOutputIsUnchanged) {
  const std::string args = std::string("estimate ") + kLlama + "--plan tp=2,pp=1,dp=8,zero=1,mbs=1";
  const CliOutput r = RunOccam(args);
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find("configuration for"), std::string::npos);
}

TEST(FrameworksCli, PlanEmitsTheBestLayout) {
  const CliOutput r = RunOccam(std::string("plan ") + kLlama + "--top 3 --emit maxtext");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("maxtext configuration for"), std::string::npos);
}

TEST(FrameworksCli, BadEmitName) {
  const CliOutput r = RunOccam(std::string("estimate ") + kLlama + "--plan tp=2,dp=8 --emit nemo");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--emit: 'nemo'"), std::string::npos);
}

TEST(FrameworksCli, EstimateFromMegatronScript) {
  const CliOutput r =
      RunOccam("estimate --from megatron " + kData + "megatron-llama3.1-70b.sh --cluster h100");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("tp=8,pp=2,vpp=8,dp=4"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("fastest megatron can express"), std::string::npos);
}

TEST(FrameworksCli, EstimateFromTorchtitanNeedsChips) {
  const std::string file = kData + "torchtitan-llama3-70b.toml";
  CliOutput r = RunOccam("estimate --from torchtitan " + file + " --cluster h100");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give --chips"), std::string::npos) << r.err;
  r = RunOccam("estimate --from torchtitan " + file + " --cluster h100 --chips 64");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(FrameworksCli, FromWithoutClusterNamesIt) {
  const CliOutput r =
      RunOccam("estimate --from maxtext " + kData + "maxtext-deepseek3-671b.yml --chips 2048");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give --cluster"), std::string::npos) << r.err;
}

TEST(FrameworksCli, PlanFromMaxText) {
  const CliOutput r = RunOccam("plan --from maxtext " + kData +
                               "maxtext-deepseek3-671b.yml --cluster tpu-v5p --chips 2048 --top 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("The configuration read: tp=1,pp=1,dp=2048"), std::string::npos);
}

TEST(FrameworksCli, UnknownLayoutKeysExit2) {
  const struct {
    const char* fmt;
    const char* file;
    const char* key;
  } cases[] = {
      {"megatron", "bad/megatron-unknown-layout-flag.args", "--pipeline-model-parallel-split-rank"},
      {"torchtitan", "bad/torchtitan-unknown-parallelism.toml", "pipeline_parallel_split_points"},
      {"maxtext", "bad/maxtext-unmodelled-axis.yml", "ici_tensor_transpose_parallelism"},
  };
  for (const auto& c : cases) {
    const CliOutput r = RunOccam(std::string("estimate --from ") + c.fmt + " " + kData + c.file +
                                 " --model llama-3.1-8b --cluster h100 --chips 16");
    EXPECT_EQ(r.status, 2) << c.file;
    EXPECT_NE(r.err.find(c.key), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
  }
}

TEST(FrameworksCli, HarmlessUnknownKeyWarns) {
  const CliOutput r = RunOccam("estimate --from torchtitan " + kData +
                               "torchtitan-warning.toml --cluster h100 --chips 16");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos);
  EXPECT_NE(r.err.find("model.tokenizer_path"), std::string::npos);
}

}  // namespace
