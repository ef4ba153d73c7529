#include "sim/balance_rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace occam::balance {
namespace {

TEST(BalanceRng, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    differs |= x != c.Next();
  }
  EXPECT_TRUE(differs);
}

// SplitMix64 reference output for seed 1234567 (first value), from the
// published algorithm (Vigna, prng.di.unimi.it/splitmix64.c).
TEST(BalanceRng, SplitMixMatchesReference) {
  SplitMix64 sm(1234567);
  EXPECT_EQ(sm.Next(), 6457827717110365317ull);
  EXPECT_EQ(sm.Next(), 3203168211198807973ull);
}

TEST(BalanceRng, InverseNormalCdfMatchesKnownQuantiles) {
  // Standard normal quantiles from any table: Phi^-1(0.975) = 1.959964,
  // Phi^-1(0.5) = 0, Phi^-1(0.001) = -3.090232.
  EXPECT_NEAR(InverseNormalCdf(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(InverseNormalCdf(0.5), 0.0, 1e-12);
  EXPECT_NEAR(InverseNormalCdf(0.001), -3.090232, 1e-6);
  EXPECT_NEAR(InverseNormalCdf(0.999), 3.090232, 1e-6);
}

TEST(BalanceRng, NormalsHaveUnitVarianceAndZeroMean) {
  Rng rng(3);
  const int n = 200000;
  std::vector<float> x(n);
  rng.Normals(x.data(), n);
  double sum = 0, sq = 0;
  for (float v : x) sum += v, sq += static_cast<double>(v) * v;
  const double mean = sum / n, var = sq / n - mean * mean;
  // Standard error of the mean is 1/sqrt(n) = 0.0022; of the variance
  // sqrt(2/n) = 0.0032. Five standard errors.
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / n));
}

TEST(BalanceRng, UniformAndBelowStayInRange) {
  Rng rng(5);
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.Uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    EXPECT_LT(rng.Below(7), 7u);
  }
}

}  // namespace
}  // namespace occam::balance
