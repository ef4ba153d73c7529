#include <gtest/gtest.h>

#include "cost/test_models.h"
#include "occam/cost.h"

namespace occam {
namespace {

ChipSpec H100Like() {
  ChipSpec c;
  c.peak_bf16 = TFlops(989.4);
  c.peak_fp8 = TFlops(1978.9);
  c.hbm_bandwidth = GBps(3350);
  c.gemm_efficiency = 0.8;
  c.gemm_half_tokens = 256;
  return c;
}

TEST(Compute, EfficiencyCurve) {
  const ChipSpec c = H100Like();
  EXPECT_DOUBLE_EQ(GemmEfficiency(c, 256), 0.4);  // half of the plateau at t_half
  EXPECT_NEAR(GemmEfficiency(c, 1e9), 0.8, 1e-6);
  EXPECT_LT(GemmEfficiency(c, 128), GemmEfficiency(c, 4096));
  EXPECT_EQ(GemmEfficiency(c, 0), 0);
}

TEST(Compute, RooflineTakesTheSlowerBound) {
  const ChipSpec c = H100Like();
  const double t = 8192, flops = 2.0 * t * 4096 * 4096, bytes = 2.0 * 4096 * 4096;
  const double eta = 0.8 * t / (t + 256);
  EXPECT_DOUBLE_EQ(GemmTime(c, Precision::kBf16, flops, t, bytes).value(),
                   flops / (989.4e12 * eta));
  // Few tokens: the weight read dominates.
  const double few = 16, small = 2.0 * few * 4096 * 4096;
  const double compute = small / (989.4e12 * 0.8 * few / (few + 256));
  const double big = 20 * bytes;
  ASSERT_LT(compute, big / 3350e9);
  EXPECT_DOUBLE_EQ(GemmTime(c, Precision::kBf16, small, few, big).value(), big / 3350e9);
}

TEST(Compute, Fp8DoublesMatmulPeak) {
  const ChipSpec c = H100Like();
  const double flops = 1e15;
  EXPECT_NEAR(GemmTime(c, Precision::kBf16, flops, 1e6, 0).value() /
                  GemmTime(c, Precision::kFp8, flops, 1e6, 0).value(),
              1978.9 / 989.4, 1e-9);
}

TEST(Compute, Fp8PlateauIsTheMeasuredFractionOfBf16) {
  // H100 MAMF: FP8 1402.6 TF of 1978.9 (70.9%), BF16 794.5 TF of 989.4 (80.3%).
  ChipSpec c = H100Like();
  c.gemm_fp8_ratio = (1402.6 / 1978.9) / (794.5 / 989.4);
  const double flops = 1e15, t = 1e6;
  const double bf16 = GemmTime(c, Precision::kBf16, flops, t, 0).value();
  const double fp8 = GemmTime(c, Precision::kFp8, flops, t, 0).value();
  // Achieved FP8 / BF16 throughput = 1402.6 / 794.5 at the plateau.
  EXPECT_NEAR(bf16 / fp8, 1402.6 / 794.5, 1e-3);
  EXPECT_LT(bf16 / fp8, 1978.9 / 989.4);
}

// FP8 casts: 4 B per element of each matmul's input (forward) and output
// (backward), from the block's shapes. Llama 3 8B: q (h -> 32*128), k, v
// (h -> 8*128 each), o (h -> h), gate and up (h -> f), down (f -> h).
TEST(Compute, Fp8CastBytesFromGemmShapes) {
  const ModelWork w = BuildModelWork(testing::Llama8B(), 8192);
  const double h = 4096, kv = 1024, f = 14336, tokens = 100;
  const double attn = (h + h) + 2 * (h + kv) + (h + h);
  const double mlp = 2 * (h + f) + (f + h);
  EXPECT_NEAR(Fp8CastBytes(w.dense, tokens, 1, 1, 1.0), 4 * tokens * (attn + mlp), 1e-6);
  EXPECT_NEAR(Fp8CastBytes(w.dense, tokens, 4, 1, 1.0), 4 * tokens * (attn + mlp) / 4, 1e-6);
  // Routed copies: top_k * lambda per token over etp.
  const ModelWork m = BuildModelWork(testing::Mixtral8x7B(), 4096);
  const double expert = 2 * (h + f) + (f + h);
  EXPECT_NEAR(Fp8CastBytes(m.moe, tokens, 1, 2, 1.5), 4 * tokens * (attn + 2 * 1.5 * expert / 2),
              1e-6);
}

// Width term: each matmul's FLOPs count 1 + n_half / n, n = min(small side,
// large side / split) (eta_w(n) = n / (n + n_half)).
TEST(Compute, WidthTermPenalisesNarrowGemms) {
  GemmWork mlp;  // SwiGLU MLP h = 4096, f = 14336: gate, up [h x f], down [f x h]
  mlp.AddShape(4096, 14336);
  mlp.AddShape(4096, 14336);
  mlp.AddShape(14336, 4096);
  mlp.flops = 3 * 2.0 * 4096 * 14336;
  ASSERT_EQ(mlp.num_shapes, 1);  // equal shapes merge
  EXPECT_DOUBLE_EQ(mlp.WidthWeightedFlops(8, 0), mlp.flops);
  // tp = 8: n = min(4096, 14336 / 8 = 1792) = 1792.
  EXPECT_DOUBLE_EQ(mlp.WidthWeightedFlops(8, 256), mlp.flops * (1 + 256.0 / 1792));
  // tp = 1: n = 4096.
  EXPECT_DOUBLE_EQ(mlp.WidthWeightedFlops(1, 256), mlp.flops * (1 + 256.0 / 4096));
  // A fine-grained expert (gpt-oss-120b: h = 2880, f_e = 2880) is narrower than a
  // dense MLP of the same hidden size split 2 ways.
  GemmWork expert;
  expert.AddShape(2880, 2880);
  expert.AddShape(2880, 2880);
  expert.flops = 2 * 2.0 * 2880 * 2880;
  EXPECT_DOUBLE_EQ(expert.WidthWeightedFlops(2, 128), expert.flops * (1 + 128.0 / 1440));
  EXPECT_GT(expert.WidthWeightedFlops(2, 128) / expert.flops,
            mlp.WidthWeightedFlops(1, 128) / mlp.flops);
}

TEST(Compute, ShapesBeyondCapacityKeepTheirFlops) {
  GemmWork g;
  for (int i = 1; i <= GemmWork::kMaxShapes + 3; ++i) {
    g.AddShape(64.0 * i, 4096);
    g.flops += 2.0 * 64.0 * i * 4096;
  }
  EXPECT_EQ(g.num_shapes, GemmWork::kMaxShapes);
  double sum = 0;
  for (const GemmWork::Shape& s : g.shapes) sum += s.flops;
  EXPECT_DOUBLE_EQ(sum, g.flops);
}

}  // namespace
}  // namespace occam
