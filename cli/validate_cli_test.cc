// occam validate, run as a user runs it: the JSON keys of doc/json-output.md
// § validate, a user run file, skipped runs with reasons, and bad input
// (exit status 2). No golden text: the predictions move with the cost model;
// the accuracy gate is src/validate/validate_test.cc.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::ExpectGolden;

CliOutput Occam(const std::string& args, bool stdout_only = false) {
  return occam::testing_cli::RunOccamMerged("validate " + args, stdout_only);
}

std::string Data(const std::string& rel) { return std::string(OCCAM_SOURCE_DIR) + "/" + rel; }

TEST(ValidateCli, BundledRunsJsonHasEveryRunAndTheSummary) {
  const CliOutput r = Occam("--json", true);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["runs"].is_array());
  EXPECT_GT(j["runs"].size(), 100u);
  for (const auto& run : j["runs"]) {
    for (const char* key :
         {"id", "metric", "measured", "predicted", "rel_error", "skipped_reason", "filled"}) {
      EXPECT_TRUE(run.contains(key)) << key;
    }
    EXPECT_NE(run["predicted"].is_null(), run["skipped_reason"].is_null()) << run["id"];
  }
  for (const char* key : {"all", "families", "korthikanti", "skipped"}) {
    EXPECT_TRUE(j["summary"].contains(key)) << key;
  }
  EXPECT_TRUE(j["summary"]["all"].contains("median_abs_error"));
  EXPECT_TRUE(j["summary"]["all"].contains("p90_abs_error"));
}

TEST(ValidateCli, UserRunFileWithRelativeErrorAndSkippedReason) {
  const CliOutput r = Occam("--runs " + Data("testdata/runs/three_runs.json") + " --json", true);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 3u);
  int skipped = 0;
  for (const auto& run : j["runs"]) {
    if (run["predicted"].is_null()) {
      ++skipped;
      EXPECT_FALSE(run["skipped_reason"].get<std::string>().empty());
      continue;
    }
    const double m = run["measured"].get<double>();
    const double p = run["predicted"].get<double>();
    const double e = run["rel_error"].get<double>();
    EXPECT_NEAR(e, (p - m) / m, 1e-9);
  }
  EXPECT_EQ(skipped, 1);  // the torchtitan run states no sequence length
}

TEST(ValidateCli, TextOutputListsRunsSkippedAndSummary) {
  const CliOutput r = Occam("--runs " + Data("testdata/runs/three_runs.json") + " --verbose");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("korthikanti2022_175B_selective_sp"), std::string::npos);
  EXPECT_NE(r.out.find("skipped"), std::string::npos);
  EXPECT_NE(r.out.find("seq_len is not stated"), std::string::npos);
  EXPECT_NE(r.out.find("median"), std::string::npos);
  EXPECT_NE(r.out.find("filled"), std::string::npos);
}

TEST(ValidateCli, BadRunFieldSkipsThatRunWithTheKeyPath) {
  // One mistyped field skips its run (doc/validation.md: skipped, never
  // dropped); the file is not rejected.
  const std::string path = Data("testdata/bad/runs_tp_string.json");
  const CliOutput r = Occam("--runs " + path + " --json", true);
  EXPECT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_TRUE(j["runs"][0]["predicted"].is_null());
  EXPECT_NE(j["runs"][0]["skipped_reason"].get<std::string>().find(
                "'[0].parallel.tp' must be an integer or null"),
            std::string::npos)
      << r.out;
}

TEST(ValidateCli, RunFileThatIsNotAListOfRunObjectsExitsTwo) {
  const CliOutput r = Occam("--runs " + Data("testdata/bad/runs-not-objects.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("[1] must be a run object"), std::string::npos) << r.out;
}

TEST(ValidateCli, MissingFileAndBadOverrideExitTwo) {
  EXPECT_EQ(Occam("--runs /nonexistent/runs.json").status, 2);
  const CliOutput r = Occam("--set h100.speed=3");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--set"), std::string::npos);
  EXPECT_EQ(Occam("--set h100.gemm_efficiency=2").status, 2);
}

TEST(ValidateCli, OverrideMovesOnlyItsFamily) {
  const std::string runs = " --runs " + Data("testdata/runs/three_runs.json") + " --json";
  const auto base = nlohmann::json::parse(Occam(runs, true).out);
  const auto slow = nlohmann::json::parse(Occam("--set a100.gemm_efficiency=0.3" + runs, true).out);
  for (size_t i = 0; i < base["runs"].size(); ++i) {
    const auto& b = base["runs"][i];
    const auto& s = slow["runs"][i];
    if (b["predicted"].is_null()) continue;
    if (b["family"] == "a100") {
      EXPECT_GT(s["predicted"].get<double>(), b["predicted"].get<double>());  // step time grows
    } else {
      EXPECT_EQ(s["predicted"], b["predicted"]);
    }
  }
}

TEST(ValidateCli, Fp8RatioOverrideMovesOnlyFp8Runs) {
  EXPECT_EQ(Occam("--set h100.gemm_fp8_ratio=1.5").status, 2);
  EXPECT_EQ(Occam("--set h100.moe_dispatch_host_ms=-1").status, 2);
  const auto base = nlohmann::json::parse(Occam("--json", true).out);
  const auto slow = nlohmann::json::parse(Occam("--set h100.gemm_fp8_ratio=0.5 --json", true).out);
  auto step = [](const nlohmann::json& report, const std::string& id) {
    for (const auto& r : report["runs"]) {
      if (r["id"] == id) return r["predicted_step_time_s"].get<double>();
    }
    ADD_FAILURE() << "no run " << id;
    return 0.0;
  };
  const std::string fp8 = "dgxc_gpt3_175b_fp8_128gpu", bf16 = "dgxc_gpt3_175b_bf16_128gpu";
  EXPECT_GT(step(slow, fp8), step(base, fp8));
  EXPECT_EQ(step(slow, bf16), step(base, bf16));
}

// The number after `label` on the first line that has it.
double NumberAfter(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no '" << label << "' in:\n" << text;
    return 0.0;
  }
  return std::stod(text.substr(at + label.size()));
}

TEST(ValidateCli, ExplainShowsTheEstimateBehindARow) {
  const std::string runs = " --runs " + Data("testdata/runs/three_runs.json");
  const auto report = nlohmann::json::parse(Occam(runs + " --json", true).out);
  double predicted_step = 0;
  for (const auto& r : report["runs"]) {
    if (r["id"] == "korthikanti2022_175B_selective_sp") {
      predicted_step = r["predicted_step_time_s"].get<double>();
    }
  }
  ASSERT_GT(predicted_step, 0.0);
  const CliOutput r = Occam(runs + " --explain korthikanti2022_175B_selective_sp", true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("time breakdown"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory per chip"), std::string::npos) << r.out;
  // The estimate is the row's: the same step time (printed to 4 digits).
  EXPECT_NEAR(NumberAfter(r.out, "step time"), predicted_step, 5e-4 * predicted_step);
  EXPECT_NEAR(NumberAfter(r.out, "step      predicted "), predicted_step, 5e-4 * predicted_step);
  // A step-time run: the measured step is the measured value itself.
  EXPECT_NEAR(NumberAfter(r.out, "the measured value implies "), 13.75, 1e-3);
}

TEST(ValidateCli, ExplainConvertsARateToTheStepItImplies) {
  const CliOutput r = Occam("--explain torchtitan_l31_8b_fsdp_8gpu_bf16", true);
  ASSERT_EQ(r.status, 0) << r.out;
  // 16 sequences of torchtitan's 8192 tokens (the filled seq_len) at 5,762
  // tokens/s on each of 8 GPUs.
  EXPECT_NE(r.out.find("filled    seq_len: 8192"), std::string::npos) << r.out;
  const double implied = 16.0 * 8192.0 / (5762.0 * 8.0);
  EXPECT_NEAR(NumberAfter(r.out, "the measured value implies "), implied, 1e-3 * implied);
}

TEST(ValidateCli, ExplainOutOfSampleUsesTheFoldsCalibration) {
  const std::string runs = " --runs " + Data("testdata/runs/three_runs.json") + " --cv source";
  const auto table = nlohmann::json::parse(Occam(runs + " --json", true).out);
  double oof = 0;
  for (const auto& r : table["runs"]) {
    if (r["id"] == "korthikanti2022_175B_selective_sp") oof = r["predicted"].get<double>();
  }
  ASSERT_GT(oof, 0.0);
  const CliOutput r = Occam(runs + " --explain korthikanti2022_175B_selective_sp", true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("out of sample: the calibration refitted without korthikanti et al. 2022"),
            std::string::npos)
      << r.out;
  EXPECT_NEAR(NumberAfter(r.out, "predicted "), oof, 5e-4 * oof);
}

TEST(ValidateCli, ExplainRefusesUnknownIdsAndOtherOutputs) {
  const CliOutput unknown = Occam("--explain no_such_run");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.out.find("--explain 'no_such_run'"), std::string::npos) << unknown.out;
  EXPECT_EQ(Occam("--explain korthikanti2022_175B_selective_sp --json").status, 2);
  EXPECT_EQ(Occam("--explain korthikanti2022_175B_selective_sp --html x.html").status, 2);
  EXPECT_EQ(Occam("--explain korthikanti2022_175B_selective_sp --fit").status, 2);
}

}  // namespace

// --fit on a run file of one chip family (Korthikanti et al. 2022's nine
// A100 runs): the fitted values, tried with --set on the same runs, give the
// training median the fit reports, and the plateau stays at or below the
// A100's measured one (0.869). --fit prints the fit alone.
TEST(ValidateCli, FitReportsTheMedianItsValuesGive) {
  std::FILE* in = std::fopen(Data("data/runs/published.json").c_str(), "r");
  ASSERT_NE(in, nullptr);
  const auto all = nlohmann::json::parse(in);
  std::fclose(in);
  nlohmann::json korthikanti = nlohmann::json::array();
  for (const auto& r : all) {
    if (r["id"].get<std::string>().rfind("korthikanti2022_", 0) == 0) korthikanti.push_back(r);
  }
  ASSERT_EQ(korthikanti.size(), 9u);
  const std::string path = testing::TempDir() + "korthikanti_runs.json";
  std::FILE* out = std::fopen(path.c_str(), "w");
  ASSERT_NE(out, nullptr);
  std::fputs(korthikanti.dump().c_str(), out);
  std::fclose(out);
  const auto fit = nlohmann::json::parse(Occam("--fit --json --runs " + path, true).out);
  ASSERT_EQ(fit["fits"].size(), 1u);
  const auto& a100 = fit["fits"][0];
  EXPECT_EQ(a100["family"], "a100");
  EXPECT_EQ(a100["training_runs"], 9);
  EXPECT_TRUE(a100["moe_dispatch_host_ms"].is_null());
  const double eff = a100["efficiency"].get<double>();
  EXPECT_LE(eff, 0.869);
  const std::string set =
      " --set a100.gemm_efficiency=" + std::to_string(eff) +
      " --set a100.gemm_half_tokens=" + std::to_string(a100["half_tokens"].get<double>()) +
      " --set a100.gemm_half_width=" + std::to_string(a100["half_width"].get<double>());
  const auto tried = nlohmann::json::parse(Occam("--json --runs " + path + set, true).out);
  EXPECT_NEAR(tried["summary"]["all"]["median_abs_error"].get<double>(),
              a100["training_median_abs_error"].get<double>(), 1e-9);
  const CliOutput both = Occam("--fit --cv source --runs " + path);
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.out.find("--fit"), std::string::npos) << both.out;
  std::remove(path.c_str());
}
