// Model FLOPs per token against an independent closed form: 6 x active
// matmul parameters (Kaplan et al. 2020 §2.1) + the causal attention term
// 3 x 2 x L x a x (d_qk + d_v) x s/2.
#include <gtest/gtest.h>

#include "cost/test_models.h"
#include "occam/cost.h"

namespace occam {
namespace {

TEST(Flops, DenseMatchesSixNPlusAttention) {
  const ModelSpec m = testing::Llama8B();
  const int64_t s = 8192;
  const ParamCounts c = CountParams(m);
  const double norms = (2.0 * 32 + 1) * 4096;  // 2 per block + final norm: not matmuls
  const double closed = 6.0 * (c.active - norms) + 3.0 * 2 * 32 * 32 * (128 + 128) * s / 2.0;
  EXPECT_NEAR(ModelFlopsPerToken(m, s).value() / closed, 1.0, 0.01);
}

TEST(Flops, MoeWithMtpMatchesSixNPlusAttention) {
  const ModelSpec m = testing::DeepSeekV3();
  const int64_t s = 4096;
  const ParamCounts c = CountParams(m);
  // Matmul parameters a token runs through: main model + MTP module (whose
  // head matmul reuses the shared head, so V*h counts again).
  const double matmul = static_cast<double>(c.active + c.mtp_active) + 7168.0 * 129280;
  const double attention = 3.0 * 2 * (61 + 1) * 128 * (192 + 128) * s / 2.0;
  const double closed = 6.0 * matmul + attention;
  EXPECT_NEAR(ModelFlopsPerToken(m, s).value() / closed, 1.0, 0.01);
}

TEST(Flops, CausalHalvesAndWindowLimitsTheSpan) {
  AttentionSpec full;
  EXPECT_DOUBLE_EQ(CausalSpan(full, 4096), 4097.0 / 2);
  AttentionSpec sliding;
  sliding.sliding_window = 128;
  sliding.sliding_fraction = 1.0;
  // Mean of min(i, 128) over i = 1..4096.
  double sum = 0;
  for (int i = 1; i <= 4096; ++i) sum += i < 128 ? i : 128;
  EXPECT_NEAR(CausalSpan(sliding, 4096), sum / 4096, 1e-9);
  sliding.sliding_fraction = 0.5;
  EXPECT_NEAR(CausalSpan(sliding, 4096), 0.5 * sum / 4096 + 0.5 * 4097.0 / 2, 1e-9);
}

TEST(Flops, MoeCountsTopKNotAllExperts) {
  ModelSpec m = testing::Mixtral8x7B();
  const double before = ModelFlopsPerToken(m, 4096).value();
  m.moe->num_experts = 64;  // more experts, same top-k: same FLOPs (router aside)
  const double after = ModelFlopsPerToken(m, 4096).value();
  const double router_delta = 3.0 * 32 * 2.0 * 4096 * (64 - 8);
  EXPECT_NEAR(after - before, router_delta, 1.0);
}

TEST(Flops, GemmWorkShapes) {
  const ModelWork w = BuildModelWork(testing::Llama8B(), 4096);
  // q, k, v, o: 2 * h * (a d + 2 a_kv d + a d) per token.
  EXPECT_DOUBLE_EQ(w.dense.attn_proj.flops, 2.0 * 4096 * (4096 + 2 * 1024 + 4096));
  EXPECT_DOUBLE_EQ(w.dense.mlp.flops, 2.0 * 3 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(w.head.flops, 2.0 * 4096 * 128256);
}

}  // namespace
}  // namespace occam
