// --html on plan, estimate, sweep, simulate and validate: the file is
// written, holds the command's charts, states the command line and occam's
// version, references nothing outside itself, and leaves the command's
// standard output as it was. A path that cannot be written is bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::ReadWholeFile;
using occam::testing_cli::RunOccam;
using occam::testing_cli::UniqueTempPath;

// Runs `occam <args> --html FILE` and returns the file.
std::string Html(const std::string& args, CliOutput* out = nullptr) {
  const std::string path = UniqueTempPath(".html");
  const CliOutput o = RunOccam(args + " --html " + path);
  EXPECT_EQ(o.status, 0) << o.err;
  if (out != nullptr) *out = o;
  const std::string html = ReadWholeFile(path);
  std::remove(path.c_str());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>")) << html.substr(0, 80);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"version\">occam "), std::string::npos);
  return html;
}

const std::string kModelArgs =
    "--model llama-3.1-8b --cluster h100 --chips 32 --seq-len 4096 --global-batch-seqs 64";

TEST(HtmlCli, PlanWritesEveryChartAndKeepsStdout) {
  CliOutput o;
  const std::string html = Html("plan " + kModelArgs + " --json --top 5", &o);
  for (const char* id : {"id=\"memory-0\"", "id=\"step-split\"", "id=\"top-layouts\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("occam plan --model llama-3.1-8b --cluster h100 --chips 32"),
            std::string::npos);
  // Standard output is the usual JSON.
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j.contains("best"));
}

TEST(HtmlCli, EstimateAndSimulateAndSweep) {
  const std::string plan = " --plan tp=2,pp=2,dp=8,mbs=1,schedule=1f1b";
  std::string html = Html("estimate " + kModelArgs + plan);
  EXPECT_NE(html.find("id=\"memory-0\""), std::string::npos);
  EXPECT_NE(html.find("id=\"step-split\""), std::string::npos);
  html = Html("simulate --schedule 1f1b --stages 4 --microbatches 8 --fwd-ms 10 --bwd-ms 20");
  EXPECT_NE(html.find("id=\"timeline\""), std::string::npos);
  html = Html(
      "sweep --model llama-3.1-8b --clusters h100 --chips 32 --seq-len 4096 "
      "--global-batch-seqs 64 --vary scale-up-size=4,8");
  EXPECT_NE(html.find("id=\"sweep-mfu\""), std::string::npos);
}

TEST(HtmlCli, ValidateOnARunFile) {
  const std::string html =
      Html("validate --runs " + std::string(OCCAM_SOURCE_DIR) + "/testdata/runs/three_runs.json");
  EXPECT_NE(html.find("id=\"validate\""), std::string::npos);
}

TEST(HtmlCli, UnwritablePathIsBadInput) {
  const CliOutput o = RunOccam(
      "simulate --schedule 1f1b --stages 2 --microbatches 4 --fwd-ms 1 "
      "--bwd-ms 2 --html /nonexistent-dir/x.html");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--html: cannot open '/nonexistent-dir/x.html'"), std::string::npos)
      << o.err;
}

}  // namespace
