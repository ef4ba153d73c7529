// occam list, run as a user runs it: golden text tables, the JSON keys of
// doc/json-output.md § list checked against the catalog, and bad input.
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
#include "occam/spec.h"

namespace {

using occam::testing_cli::CliOutput;
using occam::testing_cli::ExpectGolden;

CliOutput Occam(const std::string& args, bool stdout_only = false) {
  return occam::testing_cli::RunOccamMerged("list " + args, stdout_only);
}

TEST(ListCli, TextTablesGolden) {
  for (const char* what : {"models", "chips", "clusters"}) {
    const CliOutput r = Occam(what);
    ASSERT_EQ(r.status, 0) << r.out;
    ExpectGolden(std::string("list_") + what + ".txt", r.out);
  }
}

TEST(ListCli, ModelsJsonMatchesTheCatalog) {
  const CliOutput r = Occam("models --json", true);
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["models"].size(), occam::CatalogModelNames().size());
  for (const auto& m : j["models"]) {
    const auto spec = occam::CatalogModel(m["name"].get<std::string>());
    ASSERT_TRUE(spec.ok());
    EXPECT_EQ(m["layers"], spec->num_layers);
    EXPECT_EQ(m["hidden"], spec->hidden);
    EXPECT_EQ(m["moe"].is_null(), !spec->moe.has_value());
  }
  // DeepSeek-V3 (arXiv:2412.19437 §4.2): 61 layers, 256 routed experts, top-8.
  EXPECT_EQ(j["models"][0]["name"], "deepseek-v3");
  EXPECT_EQ(j["models"][0]["layers"], 61);
  EXPECT_EQ(j["models"][0]["moe"]["experts"], 256);
  EXPECT_EQ(j["models"][0]["attention"], "mla");
}

TEST(ListCli, ChipsAndClustersJson) {
  const CliOutput chips = Occam("chips --json", true);
  ASSERT_EQ(chips.status, 0);
  const auto c = nlohmann::json::parse(chips.out);
  ASSERT_EQ(c["chips"].size(), occam::CatalogChipKeys().size());
  for (const auto& chip : c["chips"]) {
    for (const char* key : {"key", "name", "is_tpu", "peak_bf16_tflops", "peak_fp8_tflops",
                            "hbm_gb", "hbm_tbps", "gemm_efficiency", "gemm_half_tokens"}) {
      EXPECT_TRUE(chip.contains(key)) << key;
    }
    if (chip["key"] == "h100") {
      EXPECT_DOUBLE_EQ(chip["peak_bf16_tflops"].get<double>(), 989.4);
    }
  }
  const CliOutput clusters = Occam("clusters --json", true);
  ASSERT_EQ(clusters.status, 0);
  const auto k = nlohmann::json::parse(clusters.out);
  ASSERT_EQ(k["clusters"].size(), occam::CatalogClusterNames().size());
  for (const auto& cl : k["clusters"]) {
    ASSERT_FALSE(cl["tiers"].empty());
    // Innermost first: tier sizes never shrink outward.
    for (size_t i = 1; i < cl["tiers"].size(); ++i) {
      EXPECT_GE(cl["tiers"][i]["size"], cl["tiers"][i - 1]["size"]);
    }
  }
}

TEST(ListCli, UnknownCategoryIsBadInput) {
  const CliOutput r = Occam("gpus");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("models,chips,clusters"), std::string::npos) << r.out;
  EXPECT_EQ(Occam("").status, 2);
}

}  // namespace
