#include <gtest/gtest.h>

#include <set>

#include "occam/simulate.h"

namespace occam {
namespace {

// A small, fast configuration: 64 experts, top-4, 8 EP ranks.
BalanceConfig Small(BalanceMethod method, double zipf) {
  BalanceConfig c;
  c.experts = 64;
  c.top_k = 4;
  c.ep = 8;
  c.method = method;
  c.steps = 600;
  c.tokens_per_step = 1 << 20;
  c.seq_len = 4096;
  c.zipf_s = zipf;
  c.drift = 0.01;
  c.sample_tokens = 512;
  c.seed = 11;
  return c;
}

BalanceResult Simulate(const BalanceConfig& c) {
  auto r = SimulateBalance(c);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : BalanceResult{};
}

constexpr BalanceMethod kAllMethods[] = {BalanceMethod::kAuxFree, BalanceMethod::kAuxLoss,
                                         BalanceMethod::kGlobalAuxLoss, BalanceMethod::kSeqAux,
                                         BalanceMethod::kNone};

TEST(SimulateBalance, UniformAffinitiesKeepEveryMethodBalanced) {
  const BalanceResult skewed = Simulate(Small(BalanceMethod::kNone, 1.2));
  for (BalanceMethod m : kAllMethods) {
    BalanceConfig c = Small(m, 0.0);
    c.drift = 0;
    c.steps = 200;
    const BalanceResult r = Simulate(c);
    // With equal popularity only batch noise is left: a fraction of the
    // skewed imbalance, and long-run loads within a few percent.
    EXPECT_LT(r.max_vio_batch, 0.25 * skewed.max_vio_batch) << BalanceMethodName(m);
    EXPECT_LT(r.max_vio_global, 0.1) << BalanceMethodName(m);
    EXPECT_LT(r.rank_load_max_over_mean, 1.1) << BalanceMethodName(m);
  }
}

TEST(SimulateBalance, AuxFreeDrivesBatchMaxVioDownWithBoundedBias) {
  const BalanceConfig c = Small(BalanceMethod::kAuxFree, 1.2);
  const BalanceResult r = Simulate(c);
  EXPECT_LT(r.max_vio_batch, 0.3 * r.max_vio_batch_first);
  // Bounded: sigmoid scores lie in (0, 1), so no useful bias exceeds 1, and a
  // bias that kept drifting would reach u * steps.
  EXPECT_LT(r.bias_abs_max, 1.0);
  EXPECT_LT(r.bias_abs_max, 0.5 * c.bias_rate * static_cast<double>(c.steps));
  // The bias settles: its size over the last tenth of steps changes little.
  const auto& s = r.series;
  EXPECT_NEAR(s.back().bias_abs_max, s[s.size() * 9 / 10].bias_abs_max, 0.05);

  const BalanceResult none = Simulate(Small(BalanceMethod::kNone, 1.2));
  EXPECT_GT(none.max_vio_batch, 0.7 * none.max_vio_batch_first);
  EXPECT_GT(none.max_vio_batch, 4 * r.max_vio_batch);
  EXPECT_EQ(none.bias_abs_max, 0.0);
}

// The direction of Wang et al. Table 2: aux-free balances the long-run load
// better than a micro-batch aux loss, which balances better than nothing.
TEST(SimulateBalance, AuxLossBalancesLessThanAuxFree) {
  const BalanceResult free = Simulate(Small(BalanceMethod::kAuxFree, 1.2));
  const BalanceResult aux = Simulate(Small(BalanceMethod::kAuxLoss, 1.2));
  const BalanceResult none = Simulate(Small(BalanceMethod::kNone, 1.2));
  EXPECT_LT(free.max_vio_global_final, aux.max_vio_global_final);
  EXPECT_LT(aux.max_vio_global_final, none.max_vio_global_final);
  EXPECT_GT(aux.series.back().displacement_abs_max, 0.0);
}

TEST(SimulateBalance, StrongerAuxLossBalancesMore) {
  BalanceConfig weak = Small(BalanceMethod::kGlobalAuxLoss, 1.2);
  BalanceConfig strong = weak;
  strong.alpha = 10 * weak.alpha;
  EXPECT_LT(Simulate(strong).max_vio_global_final, Simulate(weak).max_vio_global_final);
}

TEST(SimulateBalance, DeterministicForASeed) {
  BalanceConfig c = Small(BalanceMethod::kAuxFree, 1.2);
  c.steps = 50;
  const BalanceResult a = Simulate(c), b = Simulate(c);
  ASSERT_EQ(a.series.size(), b.series.size());
  for (size_t i = 0; i < a.series.size(); ++i) {
    EXPECT_EQ(a.series[i].max_vio_batch, b.series[i].max_vio_batch);
    EXPECT_EQ(a.series[i].bias_abs_max, b.series[i].bias_abs_max);
  }
  c.seed = 12;
  EXPECT_NE(Simulate(c).max_vio_global, a.max_vio_global);
}

TEST(SimulateBalance, GroupLimitedRoutingRuns) {
  BalanceConfig c = Small(BalanceMethod::kAuxFree, 1.2);
  c.groups = 8;
  c.topk_groups = 2;
  const BalanceResult r = Simulate(c);
  EXPECT_LT(r.max_vio_batch, 0.3 * r.max_vio_batch_first);
}

// The fast path (a sample, fluctuation rescaled) against routing every token
// of the batch, on a stationary router (no drift, no balancing): the rank
// imbalance of the batch agrees within the sampling error.
TEST(SimulateBalance, SampledBatchAgreesWithExactBatch) {
  BalanceConfig exact = Small(BalanceMethod::kNone, 0.6);
  exact.drift = 0;
  exact.steps = 160;
  exact.tokens_per_step = 16384;
  exact.seq_len = 512;
  exact.sample_tokens = 16384;
  BalanceConfig sampled = exact;
  sampled.sample_tokens = 1024;
  const BalanceResult e = Simulate(exact), s = Simulate(sampled);
  EXPECT_TRUE(e.exact);
  EXPECT_FALSE(s.exact);
  // Stationary: average the batch metric over all steps after the
  // estimator's warm-up window.
  auto mean_rank = [](const BalanceResult& r) {
    double sum = 0;
    for (size_t i = 32; i < r.series.size(); ++i) sum += r.series[i].rank_load_max_over_mean;
    return sum / static_cast<double>(r.series.size() - 32);
  };
  EXPECT_NEAR(mean_rank(s), mean_rank(e), 0.2 * (mean_rank(e) - 1));
  EXPECT_NEAR(s.max_vio_global, e.max_vio_global, 0.15 * e.max_vio_global);
}

TEST(SimulateBalance, RejectsBadConfigNamingTheFlag) {
  BalanceConfig c = Small(BalanceMethod::kAuxFree, 1.0);
  c.ep = 7;
  auto r = SimulateBalance(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("--ep"), std::string::npos);
  c = Small(BalanceMethod::kAuxFree, -1);
  EXPECT_NE(SimulateBalance(c).status().message().find("zipf"), std::string::npos);
  c = Small(BalanceMethod::kAuxFree, 1);
  c.steps = 1000000;
  c.sample_tokens = 65536;
  EXPECT_NE(SimulateBalance(c).status().message().find("--steps"), std::string::npos);
}

TEST(DefaultMoeImbalance, OrdersMethodsAndIsCached) {
  MoeImbalanceQuery q;
  q.experts = 64;
  q.top_k = 4;
  q.ep = 8;
  q.tokens_per_rank = 4096;
  q.method = BalanceMethod::kAuxFree;
  MoeImbalanceCache cache;
  const auto free1 = cache.Get(q);
  const auto free2 = cache.Get(q);
  ASSERT_TRUE(free1.ok());
  EXPECT_EQ(*free1, *free2);
  EXPECT_EQ(cache.misses(), 1);
  q.method = BalanceMethod::kNone;
  const auto none = cache.Get(q);
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_GT(*free1, 1.0);
  EXPECT_LT(*free1, *none);
  // Another all-to-all size reuses the simulation and equals the direct call;
  // a larger group averages more tokens, so it is better balanced.
  q.tokens_per_rank = 16384;
  const auto none_large = cache.Get(q);
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_DOUBLE_EQ(*none_large, *DefaultMoeImbalance(q));
  EXPECT_LE(*none_large, *none);
  q.ep = 1;
  EXPECT_EQ(*DefaultMoeImbalance(q), 1.0);
  q.ep = 3;
  EXPECT_FALSE(DefaultMoeImbalance(q).ok());
}

// Routing never depends on ep, so one cached simulation serves every EP
// degree; each value must equal that degree's own simulation exactly.
TEST(DefaultMoeImbalance, OneSimulationServesEveryEpDegreeExactly) {
  MoeImbalanceQuery q;
  q.experts = 64;
  q.top_k = 6;
  q.groups = 8;
  q.topk_groups = 3;
  q.method = BalanceMethod::kAuxLoss;
  MoeImbalanceCache cache;
  for (int64_t ep : {64, 2, 16, 8, 32, 4}) {
    for (int64_t tokens : {512, 4096}) {
      q.ep = ep;
      q.tokens_per_rank = tokens;
      const auto cached = cache.Get(q);
      const auto direct = DefaultMoeImbalance(q);
      ASSERT_TRUE(cached.ok() && direct.ok()) << ep;
      EXPECT_DOUBLE_EQ(*cached, *direct) << "ep " << ep << " tokens " << tokens;
    }
  }
  EXPECT_EQ(cache.misses(), 1);
  // An ep that divides no expert count fails as its own simulation would.
  q.ep = 3;
  const auto bad = cache.Get(q);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), DefaultMoeImbalance(q).status().message());
}

TEST(MoeReceiveBufferFactor, DroplessUsesLambdaCapacityCaps) {
  EXPECT_DOUBLE_EQ(MoeReceiveBufferFactor(1.3, 0), 1.3);
  EXPECT_DOUBLE_EQ(MoeReceiveBufferFactor(1.3, 1.25), 1.25);
  EXPECT_DOUBLE_EQ(MoeReceiveBufferFactor(0.9, 0), 1.0);
}

}  // namespace
}  // namespace occam
