#include <gtest/gtest.h>

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

}  // namespace
}  // namespace occam
