#include "sim/balance_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace occam::balance {
namespace {

TEST(BalanceStats, MaxVioIsWangEq4) {
  // loads 2, 4, 6: mean 4, max 6 -> (6 - 4) / 4.
  EXPECT_DOUBLE_EQ(MaxVio({2, 4, 6}), 0.5);
  EXPECT_DOUBLE_EQ(MaxOverMean({2, 4, 6}), 1.5);
  EXPECT_DOUBLE_EQ(MaxVio({3, 3, 3}), 0.0);
  EXPECT_DOUBLE_EQ(MaxVio({}), 0.0);
}

// Two sequences of two tokens over 2 units with K = 1:
//   seq 0: units 0, 0 -> m = (1, 0), within variance 0
//   seq 1: units 0, 1 -> m = (0.5, 0.5), within (unbiased) 0.5 for each unit
TEST(BalanceStats, TallyMeanBetweenWithin) {
  UnitTally t(2);
  const int32_t u0 = 0, u1 = 1;
  t.AddToken(&u0, 1);
  t.AddToken(&u0, 1);
  t.EndSequence();
  t.AddToken(&u0, 1);
  t.AddToken(&u1, 1);
  t.EndSequence();
  EXPECT_EQ(t.sequences(), 2);
  EXPECT_EQ(t.Mean(), (std::vector<double>{0.75, 0.25}));
  // Between: sample variance of (1, 0.5) and of (0, 0.5) = 0.125.
  EXPECT_DOUBLE_EQ(t.Between()[0], 0.125);
  EXPECT_DOUBLE_EQ(t.Between()[1], 0.125);
  // Within: mean over sequences of (0, 0.5) = 0.25.
  EXPECT_DOUBLE_EQ(t.Within()[0], 0.25);
}

TEST(BalanceStats, TallyCountsAUnitChosenTwiceByOneToken) {
  UnitTally t(2);
  const int32_t picks[3] = {1, 1, 0};  // K = 3, two choices on unit 1
  t.AddToken(picks, 3);
  t.AddToken(picks, 3);
  t.EndSequence();
  EXPECT_EQ(t.Mean(), (std::vector<double>{1.0, 2.0}));
  EXPECT_DOUBLE_EQ(t.Within()[1], 0.0);
}

// When the batch is exactly the sample (same sequences, same tokens per
// sequence), the rebuilt load is the sample's own load: gamma = 1.
TEST(BalanceStats, RebuildOfTheSampledBatchIsTheSample) {
  UnitTally t(3);
  const int32_t seqs[3][4] = {{0, 1, 1, 2}, {2, 2, 0, 1}, {1, 0, 0, 0}};
  LoadEstimator est(3, 8);
  for (int step = 0; step < 2; ++step) {
    t.Reset();
    for (const auto& s : seqs) {
      for (int j = 0; j < 4; ++j) t.AddToken(&s[j], 1);
      t.EndSequence();
    }
    est.Observe(t, 4);
  }
  const auto rebuilt = est.Rebuild({3, 4});
  const auto mean = t.Mean();
  for (int u = 0; u < 3; ++u) EXPECT_NEAR(rebuilt[u], mean[u], 1e-12);
}

// A batch far larger than the sample keeps the expected load (the running
// mean pi of the steps seen) and shrinks the fluctuation around it: the
// rebuilt load lies strictly between pi and the last sample.
TEST(BalanceStats, RebuildShrinksFluctuationForLargerBatches) {
  LoadEstimator est(2, 4);
  UnitTally t(2);
  const int32_t u0 = 0, u1 = 1;
  std::vector<double> means;
  for (int step = 0; step < 2; ++step) {
    t.Reset();
    for (int q = 0; q < 4; ++q) {
      for (int j = 0; j < 4; ++j) t.AddToken((q * j + step) % 3 == 0 ? &u0 : &u1, 1);
      t.EndSequence();
    }
    est.Observe(t, 4);
    means.push_back(t.Mean()[0]);
  }
  const double pi = 0.5 * (means[0] + means[1]), last = means[1];
  ASSERT_NE(pi, last);
  EXPECT_NEAR(est.Rebuild({4, 4})[0], last, 1e-9);
  const double large = est.Rebuild({4000, 4096})[0];
  EXPECT_GT(std::abs(large - last), 0.0);
  EXPECT_LT(std::abs(large - pi), std::abs(last - pi));
}

}  // namespace
}  // namespace occam::balance
