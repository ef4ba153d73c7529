// Metric conversions agree with each source's own published formula.
#include "validate/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace occam::validate {
namespace {

// A GPT of Narayanan et al. 2021 shape: MHA, GeLU MLP of 4h.
ModelSpec Gpt(int64_t layers, int64_t hidden, int64_t heads, int64_t vocab) {
  ModelSpec m;
  m.num_layers = layers;
  m.hidden = hidden;
  m.vocab = vocab;
  m.attention.num_heads = heads;
  m.attention.num_kv_heads = heads;
  m.attention.head_dim = hidden / heads;
  m.ffn_hidden = 4 * hidden;
  m.gated_mlp = false;
  return m;
}

PublishedRun RunWith(std::string basis, std::string definition) {
  PublishedRun r;
  r.measured.flops_basis = basis;
  r.measured.definition = definition;
  return r;
}

TEST(Metrics, NarayananHardwareFlopsMatchEquation3) {
  // Narayanan et al. 2021 Eq. 3: F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)).
  const double B = 512, s = 2048, l = 24, h = 2304, V = 51200;
  const double expected = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  const PublishedRun run = RunWith("hardware", "F = 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h))");
  const FlopsConvention c = ConventionFor(run, Recompute::kFull, Precision::kBf16);
  EXPECT_EQ(c.layer_passes, 4);
  EXPECT_FALSE(c.causal);
  const double got = SourceFlopsPerToken(Gpt(24, 2304, 24, 51200), 2048, c) * B * s;
  EXPECT_NEAR(got / expected, 1.0, 1e-12);
}

TEST(Metrics, MaxTextCausalAndNonCausalAttention) {
  // MaxText: 6·N·tokens + 12·heads·layers·head_dim·s²·batch (non-causal) or
  // half of the attention term (causal); N = matmul weights incl. the tied head.
  ModelSpec m = Gpt(32, 5120, 32, 32768);
  m.attention.head_dim = 256;
  m.ffn_hidden = 32768;
  const double s = 2048;
  const double n = 32 * (4.0 * 5120 * 32 * 256 + 2.0 * 5120 * 32768) + 5120.0 * 32768;
  const double attn_full = 12.0 * 32 * 32 * 256 * s;  // per token
  const PublishedRun noncausal = RunWith("model", "attention counted non-causal");
  const PublishedRun causal = RunWith("model", "causal attention FLOPs");
  const auto c1 = ConventionFor(noncausal, Recompute::kFull, Precision::kBf16);
  const auto c2 = ConventionFor(causal, Recompute::kFull, Precision::kBf16);
  EXPECT_NEAR(SourceFlopsPerToken(m, 2048, c1) / (6 * n + attn_full), 1.0, 1e-12);
  EXPECT_NEAR(SourceFlopsPerToken(m, 2048, c2) / (6 * n + attn_full / 2), 1.0, 1e-12);
}

TEST(Metrics, MoeCountsActiveExpertsOnly) {
  ModelSpec m = Gpt(2, 1024, 8, 1000);
  m.gated_mlp = true;
  m.moe = MoeSpec{};
  m.moe->num_experts = 8;
  m.moe->top_k = 2;
  m.moe->expert_ffn = 4096;
  const FlopsConvention c;  // 3 passes, full attention
  // Per layer: 4·h² attention weights; 2 active gated experts (3·h·f_e each)
  // and the router h·E. FLOPs = 2 per weight per token, over 2 layers.
  const double weights = 4.0 * 1024 * 1024 + 2 * 3.0 * 1024 * 4096 + 1024.0 * 8;
  const double attention = 4.0 * 128 * 1024;  // 4·s·a·d, full
  const double expected = 3 * 2 * (2 * weights + attention) + 3 * 2.0 * 1024 * 1000;
  EXPECT_NEAR(SourceFlopsPerToken(m, 128, c) / expected, 1.0, 1e-12);
}

TEST(Metrics, Fp8PeakOnlyWhereTheSourceSaysSo) {
  const PublishedRun dgxc =
      RunWith("model", "peak 989 TFLOP/s for BF16 runs and 1979 TFLOP/s for FP8 runs");
  EXPECT_TRUE(ConventionFor(dgxc, Recompute::kNone, Precision::kFp8).fp8_peak);
  EXPECT_FALSE(ConventionFor(dgxc, Recompute::kNone, Precision::kBf16).fp8_peak);
  EXPECT_FALSE(ConventionFor(RunWith("model", "MFU"), Recompute::kNone, Precision::kFp8).fp8_peak);
}

TEST(Metrics, Equation3AlwaysCountsTheRecomputeForward) {
  const PublishedRun run = RunWith("hardware", "same FLOP accounting as Table 1 (Eq. 3)");
  EXPECT_EQ(ConventionFor(run, Recompute::kNone, Precision::kBf16).layer_passes, 4);
  EXPECT_EQ(ConventionFor(run, Recompute::kSelective, Precision::kBf16).attention_extra_passes, 0);
}

TEST(Metrics, ModelBasisIgnoresRecompute) {
  const auto c = ConventionFor(RunWith("model", ""), Recompute::kFull, Precision::kBf16);
  EXPECT_EQ(c.layer_passes, 3);
  EXPECT_EQ(c.attention_extra_passes, 0);
  const auto sel = ConventionFor(RunWith("hardware", ""), Recompute::kSelective, Precision::kBf16);
  EXPECT_EQ(sel.layer_passes, 3);
  EXPECT_EQ(sel.attention_extra_passes, 1);
}

TEST(Metrics, ConversionsFromStepTime) {
  const double t = 2.0, tokens = 1e6, fpt = 1e9, peak = 1e15;
  const int64_t n = 100;
  EXPECT_DOUBLE_EQ(MetricFromStepTime(MetricKind::kStepTimeS, t, tokens, fpt, n, peak), 2.0);
  EXPECT_DOUBLE_EQ(MetricFromStepTime(MetricKind::kTflopsPerChip, t, tokens, fpt, n, peak),
                   1e15 / (2.0 * 100) / 1e12);
  EXPECT_DOUBLE_EQ(MetricFromStepTime(MetricKind::kMfuPct, t, tokens, fpt, n, peak),
                   100.0 * 1e15 / (2.0 * 100 * 1e15));
  EXPECT_DOUBLE_EQ(MetricFromStepTime(MetricKind::kTokensPerSPerChip, t, tokens, fpt, n, peak),
                   1e6 / 200.0);
  EXPECT_DOUBLE_EQ(
      MetricFromStepTime(MetricKind::kChipHoursPerTrillionTokens, t, tokens, fpt, n, peak),
      100 * 2.0 / 3600 * 1e12 / 1e6);
}

TEST(Metrics, ReportedTokensPerSecondBesideAFlopMetric) {
  PublishedRun r;
  r.measured.kind = MetricKind::kTflopsPerChip;
  r.measured.value = 205;
  EXPECT_EQ(ReportedTokensPerSecondPerChip(r), 0.0);  // none reported
  r.measured.extra = {{"training_days_300B_tokens", 90}, {"tokens_per_s_per_gpu", 8901}};
  EXPECT_EQ(ReportedTokensPerSecondPerChip(r), 8901.0);
  r.measured.extra = {{"tokens_per_s_per_device", 692}};
  EXPECT_EQ(ReportedTokensPerSecondPerChip(r), 692.0);
  // Not for metrics that are already throughput or time.
  r.measured.kind = MetricKind::kTokensPerSPerChip;
  EXPECT_EQ(ReportedTokensPerSecondPerChip(r), 0.0);
  r.measured.kind = MetricKind::kStepTimeS;
  EXPECT_EQ(ReportedTokensPerSecondPerChip(r), 0.0);
}

}  // namespace
}  // namespace occam::validate
