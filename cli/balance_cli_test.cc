// `occam balance` end to end: JSON keys, CSV series, golden text output,
// determinism and exit status 2 with a named flag on bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::ReadWholeFile;
using occam::testing_cli::RunOccam;
using occam::testing_cli::UniqueTempPath;

CliOutput RunBalance(const std::string& args) { return RunOccam("balance " + args); }

const std::string kSmall =
    "--experts 64 --topk 4 --groups 8 --topk-groups 2 --ep 8 --steps 40 "
    "--tokens-per-step 256k --skew zipf:1.2 --seed 3";

TEST(BalanceCli, JsonHasDocumentedKeysAndSeries) {
  const CliOutput o = RunBalance(kSmall + " --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  for (const char* key : {"max_vio_batch", "max_vio_global", "rank_load_max_over_mean",
                          "straggler_factor", "series", "method"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["series"].size(), 40u);
  EXPECT_EQ(j["method"], "aux-free");
  EXPECT_GE(j["rank_load_max_over_mean"].get<double>(), 1.0);
}

TEST(BalanceCli, CsvHasOneRowPerStep) {
  const std::string path = UniqueTempPath(".csv");
  const CliOutput o = RunBalance(kSmall + " --csv " + path);
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string csv = ReadWholeFile(path);
  int lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, 41);
  EXPECT_EQ(csv.rfind("step,max_vio_batch", 0), 0u);
}

TEST(BalanceCli, SameSeedSameOutput) {
  EXPECT_EQ(RunBalance(kSmall + " --json").out, RunBalance(kSmall + " --json").out);
}

// Golden text output; OCCAM_UPDATE_GOLDEN=1 rewrites the file.
TEST(BalanceCli, TextMatchesGolden) {
  const CliOutput o = RunBalance(kSmall + " --method aux-loss --alpha 0.001");
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string path = std::string(OCCAM_SOURCE_DIR) + "/testdata/golden/balance_aux_loss.txt";
  const char* update = std::getenv("OCCAM_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << o.out;
  }
  EXPECT_EQ(o.out, ReadWholeFile(path))
      << "rerun with OCCAM_UPDATE_GOLDEN=1 after a deliberate change";
}

TEST(BalanceCli, BadInputExitsTwoNamingTheFlag) {
  struct Case {
    std::string args, flag;
  };
  for (const Case& c :
       {Case{"--experts 256 --ep 7", "--ep"}, Case{"--method magic", "--method"},
        Case{"--skew pareto:2", "--skew"}, Case{"--tokens-per-step 1Q", "--tokens-per-step"},
        Case{"--groups 8 --topk-groups 9", "--topk-groups"}, Case{"--bias-rate -1", "--bias-rate"},
        Case{"--steps 0", "--steps"}}) {
    const CliOutput o = RunBalance(c.args);
    EXPECT_EQ(o.status, 2) << c.args;
    EXPECT_NE(o.err.find(c.flag), std::string::npos) << c.args << ": " << o.err;
  }
}

}  // namespace
