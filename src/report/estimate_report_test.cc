// EstimateText / EstimateJson render what the Estimate holds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "occam/report.h"

namespace occam {
namespace {

Estimate Sample() {
  Estimate e;
  e.step_time = Seconds(2.0);
  e.tokens_per_s = 1e6;
  e.tokens_per_s_per_chip = 1e6 / 64;
  e.mfu = 0.4;
  e.hfu = 0.5;
  e.params_total = 8'000'000'000;
  e.params_active = 7'500'000'000;
  e.memory.weights = GB(2);
  e.memory.grads = GB(4);
  e.memory.optimizer = GB(1.5);
  e.memory.activations = GB(30);
  e.memory.other = GB(0.5);
  e.memory_capacity = GB(76);
  e.fits = true;
  e.breakdown.push_back(TimeItem{"compute", "", "", Seconds(1.5), Seconds(1.5)});
  e.breakdown.push_back(
      TimeItem{"tp all-gather/reduce-scatter", "tp", "nvlink", Seconds(0.5), Seconds(0.5)});
  e.bottleneck = "compute-bound";
  return e;
}

ModelSpec Model() {
  ModelSpec m;
  m.name = "m";
  m.num_layers = 2;
  m.hidden = 64;
  m.vocab = 100;
  m.attention.num_heads = 4;
  m.attention.num_kv_heads = 4;
  m.attention.head_dim = 16;
  m.ffn_hidden = 128;
  return m;
}

TEST(EstimateReport, JsonHasTheDocumentedKeys) {
  ClusterSpec cl;
  cl.name = "c";
  cl.num_chips = 64;
  JobSpec job;
  job.global_batch_seqs = 512;
  const auto j = nlohmann::json::parse(EstimateJson(Sample(), Model(), cl, job));
  for (const char* k : {"step_time_s", "tokens_per_s", "tokens_per_s_per_chip", "mfu", "hfu",
                        "model_flops_per_token", "params_total", "params_active",
                        "memory_per_chip_bytes", "fits", "breakdown_s", "bottleneck"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  const auto& m = j["memory_per_chip_bytes"];
  EXPECT_DOUBLE_EQ(m["total"].get<double>(), 38e9);
  EXPECT_DOUBLE_EQ(m["weights"].get<double>() + m["grads"].get<double>() +
                       m["optimizer"].get<double>() + m["activations"].get<double>() +
                       m["other"].get<double>(),
                   m["total"].get<double>());
  EXPECT_EQ(j["breakdown_s"].size(), 2u);
  EXPECT_EQ(j["breakdown_s"][1]["tier"], "nvlink");
  EXPECT_DOUBLE_EQ(j["step_time_s"].get<double>(), 2.0);
}

TEST(EstimateReport, TextSaysWhetherItFits) {
  ClusterSpec cl;
  cl.name = "c";
  cl.num_chips = 64;
  JobSpec job;
  job.global_batch_seqs = 512;
  Estimate e = Sample();
  EXPECT_NE(EstimateText(e, Model(), cl, job).find("fits (76.00 GB usable)"), std::string::npos);
  e.fits = false;
  const std::string t = EstimateText(e, Model(), cl, job);
  EXPECT_NE(t.find("does not fit (needs 38.00 GB, chip has 76.00 GB usable)"), std::string::npos);
  EXPECT_NE(t.find("bottleneck: compute-bound"), std::string::npos);
}

}  // namespace
}  // namespace occam
