// The model of a published run: a catalog match by architecture, or a model
// built from `arch` (MLA and MoE included) whose parameter counts follow from
// the architecture formula written out here.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "occam/cost.h"
#include "validate/run_setup.h"
#include "validate/run_test_util.h"

namespace occam::validate {
namespace {

using testing::BundledRun;
using testing::HasFilled;

constexpr char kDeepSeekRun[] = "mbridge_2604_gb200_dsv3_mxfp8_256gpu";
constexpr char kKimiRun[] = "mbridge_2604_gb300_kimi_k2_mxfp8_256gpu";
constexpr char kQwenRun[] = "mbridge_2604_h100_qwen3_30b_16gpu";

// The DeepSeek-V3 run with a vocabulary no catalog model has, so that the
// model is built from its `arch`.
PublishedRun UncataloguedMlaRun() {
  PublishedRun run = BundledRun(kDeepSeekRun);
  run.model = "an MLA model";
  run.arch.vocab = 100000;
  return run;
}

TEST(RunModel, MlaRunsMatchTheCatalogByArchitecture) {
  for (const char* id : {kDeepSeekRun, kKimiRun}) {
    std::vector<std::pair<std::string, std::string>> filled;
    auto m = BuildModel(BundledRun(id), &filled);
    ASSERT_TRUE(m.ok()) << id << ": " << m.status().message();
    EXPECT_EQ(m->attention.kind, AttentionKind::kMla) << id;
    EXPECT_EQ(m->mtp_layers, 0) << id;  // not part of the run's arch
    EXPECT_TRUE(HasFilled(filled, "model")) << id;
  }
  std::vector<std::pair<std::string, std::string>> filled;
  EXPECT_EQ(BuildModel(BundledRun(kDeepSeekRun), &filled)->name, "deepseek-v3");
  EXPECT_EQ(BuildModel(BundledRun(kKimiRun), &filled)->name, "kimi-k2");
}

TEST(RunModel, CatalogMatchIgnoresTheName) {
  // The same architecture under another name still finds the catalog config.
  PublishedRun run = BundledRun(kDeepSeekRun);
  run.model = "a 671B MoE";
  std::vector<std::pair<std::string, std::string>> filled;
  auto m = BuildModel(run, &filled);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->name, "deepseek-v3");
}

TEST(RunModel, MlaMoeModelFromArchHasTheFormulaParameterCounts) {
  const PublishedRun run = UncataloguedMlaRun();
  std::vector<std::pair<std::string, std::string>> filled;
  auto m = BuildModel(run, &filled);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, "occam");
  ASSERT_EQ(m->attention.kind, AttentionKind::kMla);
  ASSERT_TRUE(m->moe.has_value());
  const RunArch& a = run.arch;
  const int64_t h = a.hidden, H = a.heads, L = a.layers, V = *a.vocab;
  const int64_t qr = *a.mla->q_lora_rank, kr = a.mla->kv_lora_rank;
  const int64_t dn = a.mla->qk_nope_head_dim, dr = a.mla->qk_rope_head_dim;
  const int64_t dv = a.mla->v_head_dim;
  const int64_t E = a.moe->experts, K = a.moe->active_experts, S = *a.moe->shared_experts;
  const int64_t f = a.moe->expert_ffn, F = *a.ffn, dense = *a.moe->dense_layers;
  // DeepSeek-V2 §2.1: q down (+ its norm) and up; joint kv down with the
  // decoupled rope key (+ norm) and up to per-head k_nope and v; output.
  const int64_t attention =
      (h * qr + qr + qr * H * (dn + dr)) + (h * (kr + dr) + kr + kr * H * (dn + dv)) + H * dv * h;
  const int64_t norms = 2 * h;
  const int64_t expert = 3 * h * f;  // SwiGLU: gate, up, down
  const int64_t moe_layer = attention + norms + E * h + (E + S) * expert;
  const int64_t dense_layer = attention + norms + 3 * h * F;
  const int64_t total = dense * dense_layer + (L - dense) * moe_layer + 2 * V * h + h;
  const int64_t active = total - V * h - (L - dense) * (E - K) * expert;
  const ParamCounts c = CountParams(*m);
  // The formula has no router score-correction bias (at most E per MoE layer).
  const double bias_bound = static_cast<double>(E * (L - dense));
  EXPECT_NEAR(static_cast<double>(c.total), static_cast<double>(total), bias_bound);
  EXPECT_NEAR(static_cast<double>(c.active), static_cast<double>(active), bias_bound);
  EXPECT_EQ(c.mtp, 0);
}

TEST(RunModel, MoeModelFromArchHasTheFormulaParameterCounts) {
  // Qwen3-30B-A3B: no catalog config; GQA attention, 128 experts, no shared
  // experts, no dense layers.
  const PublishedRun& run = BundledRun(kQwenRun);
  std::vector<std::pair<std::string, std::string>> filled;
  auto m = BuildModel(run, &filled);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, "occam");
  ASSERT_TRUE(m->moe.has_value());
  const RunArch& a = run.arch;
  const int64_t h = a.hidden, H = a.heads, G = *a.kv_heads, d = *a.head_dim;
  const int64_t L = a.layers, V = *a.vocab;
  const int64_t E = a.moe->experts, K = a.moe->active_experts, f = a.moe->expert_ffn;
  const int64_t attention = h * H * d + 2 * h * G * d + H * d * h;  // q, k, v, o
  const int64_t expert = 3 * h * f;
  const int64_t layer = attention + 2 * h + E * h + E * expert;
  const int64_t total = L * layer + 2 * V * h + h;
  const ParamCounts c = CountParams(*m);
  EXPECT_EQ(c.total, total);
  EXPECT_EQ(c.active, total - V * h - L * (E - K) * expert);
  // The model card's 30.5B total and 3.3B activated (the card counts the
  // input embedding among the activated weights; ParamCounts::active does not).
  EXPECT_NEAR(static_cast<double>(c.total) / 30.5e9, 1.0, 0.01);
  EXPECT_NEAR(static_cast<double>(c.active + c.embedding) / 3.3e9, 1.0, 0.03);
}

TEST(RunModel, MissingFactsAreSkipReasonsNamingTheField) {
  std::vector<std::pair<std::string, std::string>> filled;
  PublishedRun no_ffn = UncataloguedMlaRun();
  no_ffn.arch.ffn.reset();  // the three dense layers need it
  auto m = BuildModel(no_ffn, &filled);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("arch.ffn"), std::string::npos) << m.status().message();

  PublishedRun bad_kv = UncataloguedMlaRun();
  bad_kv.arch.kv_heads = 8;
  m = BuildModel(bad_kv, &filled);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("arch.kv_heads"), std::string::npos) << m.status().message();
}

TEST(RunModel, DeepSeekRunsAreSetUp) {
  auto s = BuildRunSetup(BundledRun(kDeepSeekRun));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->plan.ep, 64);
  EXPECT_EQ(s->plan.pp, 4);
  EXPECT_EQ(s->plan.dp, 256 / 4);
}

}  // namespace
}  // namespace occam::validate
