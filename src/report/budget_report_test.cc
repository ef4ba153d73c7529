// occam budget output: every documented JSON key, unknown values as null,
// every input in the text with its source.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "occam/report.h"

namespace occam {
namespace {

BudgetResult Sample() {
  BudgetResult r;
  r.query.chips = 16;
  RunBudget run;
  run.plan.dp = 16;
  run.chips = 16;
  run.chips_allocated = 16;
  run.compute = Seconds(86400);
  run.wall = Seconds(90000);
  run.days = 90000.0 / 86400;
  run.chip_hours = 16 * 25.0;
  run.goodput.goodput = 0.96;
  run.goodput.mtbf = Seconds(std::numeric_limits<double>::infinity());
  r.best = run;
  r.layouts = {run};
  r.inputs = {{"tokens", 1e12, "tokens", false, "given"},
              {"chip_watts", NAN, "W", true, "not published for tpu-v5p: give --chip-watts"},
              {"pue", 1.1, "", true, "Google fleet PUE 2023 (GOOG_ENV24)"}};
  return r;
}

TEST(BudgetReport, JsonHasTheDocumentedKeys) {
  const ModelSpec model = *CatalogModel("llama-3.1-8b");
  const ClusterSpec cluster = *CatalogCluster("h100", 16);
  JobSpec job;
  job.global_batch_seqs = 64;
  const auto j = nlohmann::json::parse(BudgetJson(Sample(), model, cluster, job, 0.5));
  for (const char* k : {"model", "cluster", "chip", "seq_len", "global_batch_seqs",
                        "global_batch_tokens", "precision", "objective", "mode", "query", "best",
                        "layouts", "scanned", "inputs", "notes", "search_seconds"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["mode"], "chips");
  const auto& best = j["best"];
  for (const char* k : {"plan", "chips", "chips_allocated", "step_time_s", "mfu", "tokens_per_s",
                        "steps", "compute_s", "wall_s", "days", "chip_hours", "energy_chip_mwh",
                        "energy_facility_mwh", "money", "checkpoint", "goodput"}) {
    EXPECT_TRUE(best.contains(k)) << k;
  }
  EXPECT_TRUE(best["money"].is_null());
  EXPECT_TRUE(best["goodput"]["mtbf_s"].is_null());  // no failures
  EXPECT_EQ(best["goodput"]["goodput"], 0.96);
  EXPECT_TRUE(j["inputs"][1]["value"].is_null());
  EXPECT_EQ(j["inputs"][2]["default"], true);
}

TEST(BudgetReport, TextShowsEveryInputWithItsSource) {
  const ModelSpec model = *CatalogModel("llama-3.1-8b");
  const ClusterSpec cluster = *CatalogCluster("h100", 16);
  JobSpec job;
  job.global_batch_seqs = 64;
  const std::string s = BudgetText(Sample(), model, cluster, job, 0.5);
  EXPECT_NE(s.find("default: Google fleet PUE 2023 (GOOG_ENV24)"), std::string::npos) << s;
  EXPECT_NE(s.find("not published for tpu-v5p"), std::string::npos);
  EXPECT_NE(s.find("not priced"), std::string::npos);
  EXPECT_NE(s.find("MTBF none"), std::string::npos);
}

}  // namespace
}  // namespace occam
