// Parameter counts against the publishers' figures (rounded, within 2%) and
// an exact closed form written out from the config numbers.
#include <gtest/gtest.h>

#include "cost/test_models.h"
#include "occam/cost.h"

namespace occam {
namespace {

using testing::DeepSeekV3;
using testing::GptOss120B;
using testing::KimiK2;
using testing::Llama70B;
using testing::Llama8B;
using testing::Mixtral8x7B;

void ExpectWithin(double got, double published, double tol, const char* what) {
  EXPECT_NEAR(got / published, 1.0, tol) << what << ": got " << got << ", published " << published;
}

TEST(Params, Llama8BExactClosedForm) {
  // Config: V=128256, h=4096, L=32, a=32, a_kv=8, d=128, f=14336, RMSNorm, untied.
  const int64_t V = 128256, h = 4096, L = 32, a = 32, akv = 8, d = 128, f = 14336;
  const int64_t attn = h * a * d + 2 * h * akv * d + a * d * h;
  const int64_t mlp = 3 * h * f;
  const int64_t expected = V * h + L * (attn + mlp + 2 * h) + h + V * h;
  const ParamCounts c = CountParams(Llama8B());
  EXPECT_EQ(c.total, expected);
  EXPECT_EQ(c.embedding, V * h);
  EXPECT_EQ(c.lm_head, V * h);
  EXPECT_EQ(c.active, expected - V * h);  // dense: everything but the lookup table
  EXPECT_EQ(c.mtp, 0);
}

TEST(Params, PublishedFiguresDense) {
  ExpectWithin(CountParams(Llama8B()).total, 8.03e9, 0.02, "Llama 3.1 8B");
  ExpectWithin(CountParams(Llama70B()).total, 70.6e9, 0.02, "Llama 3.1 70B");
}

TEST(Params, PublishedFiguresMixtral) {
  const ParamCounts c = CountParams(Mixtral8x7B());
  ExpectWithin(c.total, 46.7e9, 0.02, "Mixtral total");
  ExpectWithin(c.active, 12.9e9, 0.02, "Mixtral active");
}

TEST(Params, PublishedFiguresDeepSeekV3) {
  const ParamCounts c = CountParams(DeepSeekV3());
  ExpectWithin(c.total, 671e9, 0.02, "DeepSeek-V3 total");
  ExpectWithin(c.active, 37e9, 0.02, "DeepSeek-V3 active");
  // The HF checkpoint (685B) stores the MTP module with its own copies of the
  // embedding and head; our MTP count shares them, so compare total + mtp +
  // those two copies with 685B, and total + mtp alone within 2% as well.
  const double copies = 2.0 * 129280 * 7168;
  ExpectWithin(c.total + c.mtp + copies, 685e9, 0.02, "DeepSeek-V3 HF checkpoint");
  ExpectWithin(c.total + c.mtp, 685e9, 0.02, "DeepSeek-V3 total + MTP");
  EXPECT_GT(c.mtp, 10e9);
  EXPECT_LT(c.mtp_active, c.mtp);
}

TEST(Params, PublishedFiguresKimiK2) {
  const ParamCounts c = CountParams(KimiK2());
  ExpectWithin(c.total, 1.04e12, 0.02, "Kimi K2 total");
  ExpectWithin(c.active, 32e9, 0.02, "Kimi K2 active");
}

TEST(Params, PublishedFiguresGptOss) {
  const ParamCounts c = CountParams(GptOss120B());
  ExpectWithin(c.total, 116.8e9, 0.02, "gpt-oss-120b total");
  ExpectWithin(c.active, 5.1e9, 0.02, "gpt-oss-120b active");
}

TEST(Params, MoeBlockDecomposes) {
  // Mixtral: total - active = L * (E - k) * one expert (3 h f).
  const ParamCounts c = CountParams(Mixtral8x7B());
  const int64_t one = 3LL * 4096 * 14336;
  EXPECT_EQ(c.total - c.active - c.embedding, 32LL * (8 - 2) * one);
}

TEST(Params, TiedEmbeddingsHaveNoHead) {
  ModelSpec m = testing::Gpt(48, 1600, 25, 50257);  // GPT-2 XL shapes
  const ParamCounts c = CountParams(m);
  EXPECT_EQ(c.lm_head, 0);
  // GPT-2 XL: 1,557,611,200 parameters (HF checkpoint, tied head).
  const int64_t h = 1600, L = 48, V = 50257, P = 1024;
  const int64_t block =
      (h * 3 * h + 3 * h) + (h * h + h) + (h * 4 * h + 4 * h) + (4 * h * h + h) + 2 * 2 * h;
  EXPECT_EQ(c.total, V * h + P * h + L * block + 2 * h);
  EXPECT_EQ(c.total, 1557611200);
}

TEST(Params, FirstDenseLayersAndLayerFreq) {
  ModelSpec m = Mixtral8x7B();
  m.moe->first_k_dense = 2;
  m.moe->layer_freq = 2;  // MoE at layers 2, 4, ..., 30: 15 of 32
  const ModelWork w = BuildModelWork(m, 4096);
  EXPECT_EQ(w.MoeLayers(0, 32), 15);
  EXPECT_EQ(w.MoeLayers(0, 3), 1);
}

}  // namespace
}  // namespace occam
