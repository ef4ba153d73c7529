// Materialised attention (JobSpec::attention = materialized) against the
// tensors Korthikanti et al. 2022 Table 1 lists: the score-matrix HBM traffic
// counted pass by pass, the full (unskipped) score matmuls, and the hidden
// dropout passes.
#include <gtest/gtest.h>

#include "cost/test_models.h"
#include "occam/cost.h"

namespace occam {
namespace {

constexpr int64_t kSeq = 2048;

BlockWork Block(bool flash, bool dropout) {
  const ModelSpec m = testing::Gpt(24, 2048, 16, 51200);
  ActivationOptions o;
  o.flash_attention = flash;
  o.dropout = dropout;
  return BuildModelWork(m, kSeq, o).dense;
}

TEST(AttentionImpl, FlashWritesNoScores) {
  const BlockWork b = Block(true, false);
  EXPECT_EQ(b.score_bytes_fwd, 0.0);
  EXPECT_EQ(b.score_bytes_bwd, 0.0);
}

TEST(AttentionImpl, ScoreTrafficPerPass) {
  const double a = 16, s = kSeq;
  // 2 B per score element. Forward: S written, S read + P written, P read by
  // PV = 4 passes. Backward: dP written, P read for dV, dP + P read and dS
  // written, dS read twice (dQ, dK) = 7 passes.
  const BlockWork plain = Block(false, false);
  EXPECT_DOUBLE_EQ(plain.score_bytes_fwd, a * s * 2 * 4);
  EXPECT_DOUBLE_EQ(plain.score_bytes_bwd, a * s * 2 * 7);
  // Dropout on P: read P and write P' (2 B each) plus a 1 B mask, forward and
  // backward alike.
  const BlockWork drop = Block(false, true);
  EXPECT_DOUBLE_EQ(drop.score_bytes_fwd - plain.score_bytes_fwd, a * s * 5);
  EXPECT_DOUBLE_EQ(drop.score_bytes_bwd - plain.score_bytes_bwd, a * s * 5);
}

TEST(AttentionImpl, MaterialisedScoresAreComputedWhole) {
  // QK^T and PV over the full s x s square (the causal mask is applied to it):
  // 2 matmuls x 2 FLOPs x a x s x d per token, twice FlashAttention's causal
  // (s + 1) / 2 span.
  const double a = 16, d = 128, s = kSeq;
  EXPECT_DOUBLE_EQ(Block(false, false).attn_core.flops, 4 * a * s * d);
  EXPECT_DOUBLE_EQ(Block(true, false).attn_core.flops, 4 * a * d * (s + 1) / 2);
}

TEST(AttentionImpl, HiddenDropoutAddsTwoMaskedPasses) {
  // Two hidden dropouts per block: read h, write h (2 B each), write a 1 B mask.
  const double h = 2048;
  EXPECT_DOUBLE_EQ(Block(true, true).elementwise_bytes - Block(true, false).elementwise_bytes,
                   2 * (2 + 2 + 1) * h);
}

TEST(AttentionImpl, OptionsFollowTheJob) {
  JobSpec job;
  EXPECT_TRUE(ActivationOptionsOf(job).flash_attention);
  EXPECT_FALSE(ActivationOptionsOf(job).dropout);
  job.attention = AttentionImpl::kMaterialized;
  job.dropout = true;
  EXPECT_FALSE(ActivationOptionsOf(job).flash_attention);
  EXPECT_TRUE(ActivationOptionsOf(job).dropout);
}

}  // namespace
}  // namespace occam
