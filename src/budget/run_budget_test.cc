// The whole run of one layout against the closed forms, and its
// monotonicity in failures and chips.
#include <gtest/gtest.h>

#include <cmath>

#include "budget/goodput.h"
#include "occam/budget.h"

namespace occam {
namespace {

// Llama 3.1 8B: 8,030,261,248 parameters (Hugging Face model card).
constexpr double kLlama8bParams = 8030261248.0;

struct DpLayout {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  Estimate e;
};

// A pure data-parallel ZeRO-1 layout on `chips` H100 at `per_chip` tokens/s
// per chip: the optimizer state (12 B/param) is sharded over every chip.
DpLayout Make(int64_t chips, double per_chip = 3000) {
  DpLayout s;
  s.model = *CatalogModel("llama-3.1-8b");
  s.cluster = *CatalogCluster("h100", chips);
  s.job.seq_len = 4096;
  s.job.global_batch_seqs = 4096;
  s.e.plan.dp = chips;
  s.e.fits = true;
  s.e.tokens_per_s = per_chip * static_cast<double>(chips);
  s.e.step_time = Seconds(s.job.global_batch_tokens() / s.e.tokens_per_s);
  s.e.memory.optimizer = Bytes(12.0 * kLlama8bParams / static_cast<double>(chips));
  return s;
}

BudgetAssumptions Assume(const ChipSpec& chip, double tokens, BudgetOptions o = {}) {
  o.tokens = tokens;
  return *ResolveBudget(o, chip);
}

TEST(BudgetRun, FollowsTheClosedForms) {
  DpLayout s = Make(1024);
  BudgetOptions o;
  o.price_per_chip_hour = 2.0;
  const BudgetAssumptions a = Assume(s.cluster.chip, 15e12, o);
  auto r = BudgetRun(s.e, s.model, s.cluster, s.job, a);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Checkpoint: 14 B/param (bf16 weights + fp32 master, m, v) at 2 TB/s.
  const double total = 14 * kLlama8bParams;
  EXPECT_NEAR(r->checkpoint.total.value(), total, 1);
  EXPECT_NEAR(r->checkpoint.write.value(), total / 2e12, 1e-9);
  EXPECT_EQ(r->checkpoint.stall.value(), r->checkpoint.write.value());
  // Failures: 1024 chips and 128 nodes at Llama 3's rates.
  const double per_hour = 1024 * 268.0 / 21233664.0 + 128 * 151.0 / (2048.0 * 1296.0);
  EXPECT_NEAR(r->goodput.mtbf.value(), 3600 / per_hour, 1e-6);
  const double m = 3600 / per_hour, d = total / 2e12, restart = 600 + d;
  EXPECT_NEAR(r->checkpoint.young.value(), std::sqrt(2 * d * m), 1e-6);
  const double tau = budget::DalyInterval(Seconds(d), Seconds(m)).value();
  EXPECT_NEAR(r->checkpoint.interval.value(), tau, 1e-9);
  const double g = tau / (m * std::exp(restart / m) * std::expm1((tau + d) / m));
  EXPECT_NEAR(r->goodput.goodput, g, 1e-12);
  const double compute = 15e12 / (3000.0 * 1024);
  EXPECT_NEAR(r->compute.value(), compute, 1e-6);
  EXPECT_NEAR(r->wall.value(), compute / g, 1e-6);
  EXPECT_NEAR(r->days, compute / g / 86400, 1e-9);
  EXPECT_NEAR(r->chip_hours, 1024 * compute / g / 3600, 1e-6);
  EXPECT_NEAR(*r->money, 2.0 * r->chip_hours, 1e-6);
  // Energy at TDP throughout (model-card convention), then host share and PUE.
  const double chip_mwh = 1024 * 700.0 * compute / g / 3.6e9;
  EXPECT_NEAR(*r->energy_chip_mwh, chip_mwh, 1e-9);
  EXPECT_NEAR(*r->energy_facility_mwh, chip_mwh * 1.79 * 1.58, 1e-9);
  // The lost time splits into stalls, restarts and rework.
  const GoodputFigures& l = r->goodput;
  EXPECT_NEAR((l.lost_checkpoints + l.lost_restarts + l.lost_rework).value(),
              (r->wall - r->compute).value(), 1e-6);
  EXPECT_NEAR(l.lost_checkpoints.value(), compute / tau * d, 1e-6);
  EXPECT_NEAR(l.expected_failures, r->wall.value() / m, 1e-9);
}

TEST(BudgetRun, WaitingChipsDrawTheirOwnPowerFraction) {
  DpLayout s = Make(256);
  BudgetOptions o;
  o.wait_power_fraction = 0.0;
  const BudgetAssumptions a = Assume(s.cluster.chip, 1e12, o);
  auto r = BudgetRun(s.e, s.model, s.cluster, s.job, a);
  ASSERT_TRUE(r.ok());
  const double busy = (r->compute + r->goodput.lost_rework).value();
  EXPECT_NEAR(*r->energy_chip_mwh, 256 * 700.0 * busy / 3.6e9, 1e-9);
}

TEST(BudgetRun, AsyncCheckpointsStallBrieflyAndLoseTheWriteOnFailure) {
  DpLayout s = Make(512);
  BudgetOptions o;
  o.async_checkpoint = true;
  o.storage_gbps = 1;  // slow storage: the write (112 s) outlasts the stall
  const BudgetAssumptions a = Assume(s.cluster.chip, 1e12, o);
  auto r = BudgetRun(s.e, s.model, s.cluster, s.job, a);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->checkpoint.stall.value(), 0.78);
  const double write = 14 * kLlama8bParams / 1e9;
  EXPECT_NEAR(r->goodput.restart.value(), 600 + 2 * write, 1e-6);  // restore + lost write
  EXPECT_GE(r->checkpoint.interval.value(), write);
}

TEST(BudgetRun, WithoutFailuresTheRunCheckpointsOnce) {
  DpLayout s = Make(64);
  BudgetOptions o;
  o.chip_failures_per_hour = 0;
  o.node_failures_per_hour = 0;
  const BudgetAssumptions a = Assume(s.cluster.chip, 1e11, o);
  auto r = BudgetRun(s.e, s.model, s.cluster, s.job, a);
  ASSERT_TRUE(r.ok());
  const double compute = 1e11 / (3000.0 * 64), d = 14 * kLlama8bParams / 2e12;
  EXPECT_NEAR(r->goodput.goodput, compute / (compute + d), 1e-12);
  EXPECT_EQ(r->goodput.expected_failures, 0);
}

TEST(BudgetRun, MoreFailuresNeverRaiseGoodput) {
  DpLayout s = Make(4096);
  double previous_goodput = 1, previous_wall = 0;
  for (double rate = 0; rate < 1e-2; rate = rate == 0 ? 1e-7 : rate * 1.7) {
    BudgetOptions o;
    o.chip_failures_per_hour = rate;
    auto r = BudgetRun(s.e, s.model, s.cluster, s.job, Assume(s.cluster.chip, 1e12, o));
    ASSERT_TRUE(r.ok());
    EXPECT_LE(r->goodput.goodput, previous_goodput) << rate;
    EXPECT_GE(r->wall.value(), previous_wall) << rate;
    previous_goodput = r->goodput.goodput;
    previous_wall = r->wall.value();
  }
}

TEST(BudgetRun, MoreChipsNeverLengthenTheRunAtFixedPerChipSpeed) {
  // Holds while the job's MTBF stays above the restart cost (up to 131,072
  // chips at Llama 3's rates, M = 23 min > R = 10 min).
  double previous = std::numeric_limits<double>::infinity();
  for (int64_t chips = 8; chips <= 131072; chips *= 2) {
    DpLayout s = Make(chips);
    auto r = BudgetRun(s.e, s.model, s.cluster, s.job, Assume(s.cluster.chip, 15e12));
    ASSERT_TRUE(r.ok());
    EXPECT_LT(r->wall.value(), previous) << chips;
    previous = r->wall.value();
  }
}

TEST(BudgetRun, BeyondTheRestartCostMoreChipsLengthenTheRun) {
  // Daly's wall time ~ e^(R/M) / N with M ~ 1/N turns up once M < R: with
  // 4 h restarts the run at 131,072 chips is slower than at 16,384.
  BudgetOptions o;
  o.restart_overhead_s = 4 * 3600.0;
  DpLayout small = Make(16384), big = Make(131072);
  auto rs = BudgetRun(small.e, small.model, small.cluster, small.job,
                      Assume(small.cluster.chip, 15e12, o));
  auto rb = BudgetRun(big.e, big.model, big.cluster, big.job, Assume(big.cluster.chip, 15e12, o));
  ASSERT_TRUE(rs.ok() && rb.ok());
  EXPECT_GT(rb->wall.value(), rs->wall.value());
}

}  // namespace
}  // namespace occam
