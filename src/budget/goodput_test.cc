// The checkpoint interval and goodput closed forms against the papers'
// stated optima, a numerical optimum, a renewal-process derivation and a
// Monte Carlo simulation of failures.
#include "budget/goodput.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace occam::budget {
namespace {

constexpr double kMin = 60, kHour = 3600;

TEST(Goodput, YoungIntervalIsSqrtTwoDeltaM) {
  // delta = 5 min, M = 24 h: sqrt(2 * 300 * 86400) = 7200 s = 120 min.
  EXPECT_NEAR(YoungInterval(Seconds(300), Seconds(86400)).value(), 7200.0, 1e-9);
  EXPECT_NEAR(YoungInterval(Seconds(2), Seconds(50)).value(), std::sqrt(200.0), 1e-12);
}

TEST(Goodput, DalyIntervalMatchesThePapersOptima) {
  // Daly 2006, delta = 5 min, R = 10 min: tau_opt = 117, 57 and 9.1 min for
  // M = 24 h, 6 h and 15 min (the paper's figure captions).
  EXPECT_NEAR(DalyInterval(Seconds(5 * kMin), Seconds(24 * kHour)).value() / kMin, 117, 0.5);
  EXPECT_NEAR(DalyInterval(Seconds(5 * kMin), Seconds(6 * kHour)).value() / kMin, 57, 0.5);
  EXPECT_NEAR(DalyInterval(Seconds(5 * kMin), Seconds(15 * kMin)).value() / kMin, 9.1, 0.05);
  // delta >= 2M: checkpoint once per MTBF.
  EXPECT_EQ(DalyInterval(Seconds(100), Seconds(40)).value(), 40);
}

// Wall time per unit of compute, Daly's model, written out independently.
double WallPerCompute(double tau, double delta, double m, double r) {
  return m * std::exp(r / m) * (std::exp((tau + delta) / m) - 1) / tau;
}

TEST(Goodput, DalyIntervalIsNearTheNumericalOptimum) {
  for (double m : {15 * kMin, 2 * kHour, 6 * kHour, 24 * kHour}) {
    const double delta = 5 * kMin, r = 10 * kMin;
    // Golden-section search of the wall time over tau in (0, 4M].
    double lo = 1, hi = 4 * m;
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 200; ++i) {
      const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
      if (WallPerCompute(a, delta, m, r) < WallPerCompute(b, delta, m, r)) {
        hi = b;
      } else {
        lo = a;
      }
    }
    const double best = (lo + hi) / 2;
    const double daly = DalyInterval(Seconds(delta), Seconds(m)).value();
    EXPECT_NEAR(daly / best, 1.0, 0.01) << "M = " << m;
    // At Daly's interval the wall time is within 0.01% of the optimum.
    EXPECT_NEAR(WallPerCompute(daly, delta, m, r) / WallPerCompute(best, delta, m, r), 1.0, 1e-4);
  }
}

TEST(Goodput, EqualsTheRenewalProcessDerivation) {
  // One segment of w = tau + delta, failures at rate 1/M. It succeeds with
  // p = e^(-w/M); a failed attempt lasts E[X | X < w] = M - w p / (1 - p),
  // then a restart of R that is itself retried until it completes, taking
  // E_R = M (e^(R/M) - 1) (the same renewal argument with no checkpoint).
  // Expected attempts (1 - p)/p fail before the success.
  for (double m : {15 * kMin, 6 * kHour, 1000 * kHour}) {
    const double tau = 40 * kMin, delta = 3 * kMin, r = 12 * kMin, w = tau + delta;
    const double p = std::exp(-w / m);
    const double fail_len = m - w * p / (1 - p);
    const double restart = m * (std::exp(r / m) - 1);
    const double segment = w + (1 - p) / p * (fail_len + restart);
    EXPECT_NEAR(DalyGoodput(Seconds(tau), Seconds(delta), Seconds(m), Seconds(r)), tau / segment,
                1e-9)
        << "M = " << m;
  }
}

TEST(Goodput, MatchesASimulatedRunWithFailures) {
  // Monte Carlo: 1000 h of compute in 1 h segments, 5 min checkpoints,
  // 10 min restarts, M = 6 h (about 190 failures per run).
  const double tau = kHour, delta = 5 * kMin, r = 10 * kMin, m = 6 * kHour, work = 1000 * kHour;
  std::mt19937_64 rng(12345);
  std::exponential_distribution<double> next_failure(1.0 / m);
  double total = 0;
  const int runs = 200;
  for (int run = 0; run < runs; ++run) {
    double wall = 0, done = 0;
    while (done < work) {
      const double x = next_failure(rng);  // time to the next failure (memoryless)
      if (x >= tau + delta) {
        wall += tau + delta;
        done += tau;
        continue;
      }
      wall += x;
      // Restart; a failure during it starts it again.
      for (double y = next_failure(rng); y < r; y = next_failure(rng)) wall += y;
      wall += r;
    }
    total += wall;
  }
  const double simulated = work / (total / runs);
  const double closed = DalyGoodput(Seconds(tau), Seconds(delta), Seconds(m), Seconds(r));
  EXPECT_NEAR(simulated, closed, 0.005);
}

TEST(Goodput, WithoutFailuresOnlyCheckpointsCost) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(DalyGoodput(Seconds(3600), Seconds(36), Seconds(inf), Seconds(600)), 3600.0 / 3636.0,
              1e-15);
}

TEST(Goodput, MoreFailuresNeverRaiseGoodput) {
  double previous = 1;
  for (double m = 1000 * kHour; m > kMin; m *= 0.8) {
    const Seconds delta(30), r(600);
    const double g = DalyGoodput(DalyInterval(delta, Seconds(m)), delta, Seconds(m), r);
    EXPECT_LE(g, previous) << "M = " << m;
    previous = g;
  }
}

}  // namespace
}  // namespace occam::budget
