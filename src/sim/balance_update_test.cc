#include "sim/balance_update.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace occam::balance {
namespace {

TEST(SignBiasUpdate, BalancedLoadIsAFixedPoint) {
  std::vector<double> bias = {0.3, -0.1, 0.0, 0.2};
  const std::vector<double> before = bias;
  SignBiasUpdate({5, 5, 5, 5}, 0.001, &bias);
  EXPECT_EQ(bias, before);
}

TEST(SignBiasUpdate, MovesEachBiasAgainstItsLoad) {
  std::vector<double> bias(3, 0.0);
  SignBiasUpdate({1, 2, 6}, 0.01, &bias);  // mean 3
  EXPECT_DOUBLE_EQ(bias[0], 0.01);
  EXPECT_DOUBLE_EQ(bias[1], 0.01);
  EXPECT_DOUBLE_EQ(bias[2], -0.01);
}

// Loads from a deterministic logit model: load_i = exp(a_i + b_i/T) / sum.
// Iterating the sign rule must drive the loads to balance (the fixed point),
// up to the dither of one step u, and the bias to -T * a_i + const.
TEST(SignBiasUpdate, IterationConvergesToBalance) {
  const std::vector<double> a = {0.8, 0.2, -0.1, -0.9, 0.0};
  const double temperature = 0.1, u = 1e-3;
  std::vector<double> bias(a.size(), 0.0), load(a.size());
  auto loads = [&] {
    double z = 0;
    for (size_t i = 0; i < a.size(); ++i) z += load[i] = std::exp(a[i] + bias[i] / temperature);
    for (double& l : load) l /= z;
  };
  for (int step = 0; step < 5000; ++step) {
    loads();
    SignBiasUpdate(load, u, &bias);
  }
  loads();
  const double max = *std::max_element(load.begin(), load.end());
  // One step of u moves a load by about load * u / T = 2%; allow a few.
  EXPECT_LT(max * a.size() - 1, 4 * u / temperature);
  for (size_t i = 1; i < a.size(); ++i) {
    EXPECT_NEAR(bias[i] - bias[0], -temperature * (a[i] - a[0]), 3 * u);
  }
}

// The analytic gradient against central differences of
// sum_i f_i s'_i with s = Sigmoid(z), s' = s / sum s.
TEST(AuxLossGradient, MatchesFiniteDifferences) {
  const std::vector<double> z = {0.3, -1.2, 0.8, 0.0, -0.4};
  const std::vector<double> f = {1.6, 0.2, 1.9, 0.7, 0.6};
  auto loss = [&](const std::vector<double>& zz) {
    double total = 0, l = 0;
    std::vector<double> s(zz.size());
    for (size_t i = 0; i < zz.size(); ++i) total += s[i] = 1 / (1 + std::exp(-zz[i]));
    for (size_t i = 0; i < zz.size(); ++i) l += f[i] * s[i] / total;
    return l;
  };
  std::vector<float> s(z.size());
  for (size_t i = 0; i < z.size(); ++i) s[i] = static_cast<float>(1 / (1 + std::exp(-z[i])));
  std::vector<double> grad(z.size(), 0.0);
  AddAuxLossLogitGradient(s.data(), f, static_cast<int64_t>(z.size()), &grad);
  const double h = 1e-5;
  for (size_t j = 0; j < z.size(); ++j) {
    auto zp = z, zm = z;
    zp[j] += h;
    zm[j] -= h;
    EXPECT_NEAR(grad[j], (loss(zp) - loss(zm)) / (2 * h), 1e-6) << "expert " << j;
  }
}

}  // namespace
}  // namespace occam::balance
