// Expert all-to-all overlap without DualPipe (plan field a2a_overlap,
// Megatron-Core combined 1F1B): exposed EP time, the unpaired share and the
// extra activation memory, each derived from the schedule's structure.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "occam/cost.h"
#include "occam/step.h"
#include "step/layer_cost.h"
#include "step/test_fixtures.h"

namespace occam {
namespace {

struct Case {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
};

// DeepSeek-V3 on 2048 H800s, 15360 sequences of 4096 tokens, a fixed EP
// imbalance (no routing simulation).
Case DeepSeek() {
  Case s{*CatalogModel("deepseek-v3"), *CatalogCluster("h800", 2048), testing::DeepSeekV3Job()};
  s.job.moe_imbalance = 1.1;
  return s;
}

Estimate EstimateOf(const Case& s, const std::string& text) {
  auto plan = ParsePlan(text);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  auto e = EstimateStep(s.model, s.cluster, s.job, *plan);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status().message();
  return e.ok() ? *e : Estimate{};
}

TimeItem Ep(const Estimate& e) {
  for (const TimeItem& t : e.breakdown) {
    if (t.axis == "ep") return t;
  }
  ADD_FAILURE() << "no ep item";
  return {};
}

// m micro-batches per pipeline: 15360 / (dp * mbs).
double Micro(const Case& s, int64_t dp, int64_t mbs) {
  return static_cast<double>(s.job.global_batch_seqs) / static_cast<double>(dp * mbs);
}

TEST(A2aOverlap, UnpairedFractionFollowsTheWarmUp) {
  PlanSpec p;
  // pp = 1: only the first forward and the last backward of m run alone.
  EXPECT_DOUBLE_EQ(step_internal::A2aUnpairedFraction(p, 15), 1.0 / 15);
  EXPECT_DOUBLE_EQ(step_internal::A2aUnpairedFraction(p, 1), 1.0);
  // Interleaved p = 4, v = 2: Megatron-Core warm-up 2(p-1-r) + (v-1)p on
  // rank r = 10, 8, 6, 4 chunk forwards (mean 7), +1 for the overlap, over
  // m v chunk passes.
  p.pp = 4;
  p.vpp = 2;
  p.schedule = Schedule::kInterleaved;
  EXPECT_DOUBLE_EQ(step_internal::A2aUnpairedFraction(p, 8), 8.0 / 16);
  EXPECT_DOUBLE_EQ(step_internal::A2aUnpairedFraction(p, 4), 1.0);  // all warm-up
}

TEST(A2aOverlap, NeverExposesMoreEpTime) {
  const Case s = DeepSeek();
  for (const std::string base : {"tp=2,pp=1,ep=64,dp=1024", "tp=1,pp=1,ep=8,dp=2048,mbs=1",
                                 "tp=2,pp=1,ep=32,dp=1024,recompute=selective",
                                 "tp=2,pp=8,vpp=2,ep=64,dp=128,"
                                 "schedule=interleaved"}) {
    Case job = s;
    if (base.find("dp=2048") != std::string::npos) job.job.global_batch_seqs = 2048 * 8;
    const Estimate off = EstimateOf(job, base);
    const Estimate on = EstimateOf(job, base + ",a2a_overlap=1");
    EXPECT_DOUBLE_EQ(Ep(on).total.value(), Ep(off).total.value()) << base;
    EXPECT_LE(Ep(on).exposed.value(), Ep(off).exposed.value()) << base;
    EXPECT_LT(Ep(on).exposed.value(), Ep(off).exposed.value()) << base;
    EXPECT_LE(on.step_time.value(), off.step_time.value()) << base;
  }
}

// Compute much longer than the all-to-all (a chip 10^4 times slower): every
// paired pass hides its all-to-all, so only the unpaired share u stays:
// exposed EP = u x total EP, u = 1/m without pipeline stages.
TEST(A2aOverlap, SlowComputeLeavesOnlyTheUnpairedShare) {
  Case s = DeepSeek();
  s.cluster.chip.peak_bf16 = FlopsPerSecond(s.cluster.chip.peak_bf16.value() * 1e-4);
  s.cluster.chip.peak_fp8 = FlopsPerSecond(s.cluster.chip.peak_fp8.value() * 1e-4);
  s.cluster.chip.hbm_bandwidth = BytesPerSecond(s.cluster.chip.hbm_bandwidth.value() * 1e-4);
  const TimeItem off = Ep(EstimateOf(s, "tp=2,pp=1,ep=64,dp=1024"));
  const TimeItem on = Ep(EstimateOf(s, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=1"));
  const double m = Micro(s, 1024, 1);
  ASSERT_GT(off.total.value(), 0);
  EXPECT_DOUBLE_EQ(off.exposed.value(), off.total.value());  // nothing hidden without it
  EXPECT_NEAR(on.exposed.value(), on.total.value() / m, 1e-12 * on.total.value());
  // Interleaved p = 8, v = 2, m = 120: mean warm-up over the ranks
  // 2(p-1-r) + (v-1)p is 7 + 8, +1: u = (7 + 8 + 1) / 240.
  const TimeItem pipe =
      Ep(EstimateOf(s, "tp=2,pp=8,vpp=2,ep=64,dp=128,schedule=interleaved,a2a_overlap=1"));
  const double u = (7.0 + 8 + 1) / (Micro(s, 128, 1) * 2);
  EXPECT_NEAR(pipe.exposed.value(), u * pipe.total.value(), 1e-12 * pipe.total.value());
}

// Stored activations of one MoE block for one micro-batch of `p` (the cost
// layer's formula, routing-imbalance headroom included).
double MoeBlockActivation(const Case& s, const PlanSpec& p) {
  const ModelWork work = BuildModelWork(s.model, s.job.seq_len);
  const double tokens = static_cast<double>(p.mbs * s.job.seq_len);
  return BlockActivationBytes(work.moe, work, tokens, s.job.seq_len, p.tp, p.sp, p.recompute,
                              s.job.moe_imbalance);
}

// Without pipeline stages one micro-batch is in flight; the paired layer
// builds micro-batch i+1's activations of one MoE block before micro-batch
// i's backward frees its own, so the peak grows by one MoE block's
// activations (with its routing-imbalance headroom), not by a micro-batch.
TEST(A2aOverlap, MemoryGrowsByOnePairedLayer) {
  const Case s = DeepSeek();
  for (const std::string base : {"tp=2,pp=1,ep=64,dp=1024", "tp=2,pp=1,ep=64,dp=1024,mbs=3"}) {
    const Estimate off = EstimateOf(s, base);
    const Estimate on = EstimateOf(s, base + ",a2a_overlap=1");
    const double block = MoeBlockActivation(s, on.plan);
    EXPECT_NEAR(on.memory.activations.value() - off.memory.activations.value(), block, 1e-9 * block)
        << base;
    EXPECT_DOUBLE_EQ(on.memory.other.value(), off.memory.other.value());
    EXPECT_DOUBLE_EQ(on.memory.weights.value(), off.memory.weights.value());
  }
}

// Interleaved: one more warm-up chunk forward on top of the paired layer.
// Rank d holds chunks d and d + p, so its peak grows by
//   g_d = block + (a_d + a_{d+p}) / v
// (a_c: PipelineFor's per-chunk activation bytes, routing headroom included).
// The reported memory is the largest device's, which may be another rank
// with and without the flag, so the growth lies in [min_d g_d, max_d g_d].
TEST(A2aOverlap, InterleavedHoldsOneMoreChunkMicroBatch) {
  const Case s = DeepSeek();
  const std::string base = "tp=2,pp=8,vpp=2,ep=64,dp=128,schedule=interleaved";
  const Estimate off = EstimateOf(s, base);
  const Estimate on = EstimateOf(s, base + ",a2a_overlap=1");
  const PlanSpec& p = on.plan;
  const double block = MoeBlockActivation(s, p);
  auto sm = StepModel::Create(s.model, s.cluster, s.job);
  ASSERT_TRUE(sm.ok());
  auto config = sm->PipelineFor(p);
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_EQ(config->chunks.size(), static_cast<size_t>(p.pp * p.vpp));
  double lo = 1e300, hi = 0;
  for (int64_t d = 0; d < p.pp; ++d) {
    const double g = block + (config->chunks[static_cast<size_t>(d)].activation.value() +
                              config->chunks[static_cast<size_t>(d + p.pp)].activation.value()) /
                                 static_cast<double>(p.vpp);
    lo = std::min(lo, g);
    hi = std::max(hi, g);
  }
  const double delta = on.memory.total().value() - off.memory.total().value();
  EXPECT_GE(delta, lo * (1 - 1e-12));
  EXPECT_LE(delta, hi * (1 + 1e-12));
  EXPECT_GT(lo, block);  // more than the pp = 1 growth
}

// A chip 10^4 times slower: compute hides everything it can.
Case SlowChip() {
  Case s = DeepSeek();
  s.cluster.chip.peak_bf16 = FlopsPerSecond(s.cluster.chip.peak_bf16.value() * 1e-4);
  s.cluster.chip.peak_fp8 = FlopsPerSecond(s.cluster.chip.peak_fp8.value() * 1e-4);
  s.cluster.chip.hbm_bandwidth = BytesPerSecond(s.cluster.chip.hbm_bandwidth.value() * 1e-4);
  return s;
}

// Two-batch overlap with compute far longer than the all-to-all: one pass
// through a chunk's L MoE layers sends 2L dispatches and 2L combines, and
// only the last half's last combine has no other half's compute beside it:
// exposed EP = total / (4L). DeepSeek-V3: 58 MoE layers; pp = 1: L = 58;
// pp = 8 (1F1B): L = 58/8.
TEST(A2aOverlap, TwoBatchLeavesOnlyTheLastCombine) {
  const Case s = SlowChip();
  const TimeItem flat = Ep(EstimateOf(s, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=tbo"));
  ASSERT_GT(flat.total.value(), 0);
  EXPECT_NEAR(flat.exposed.value(), flat.total.value() / (4.0 * 58), 1e-12 * flat.total.value());
  const TimeItem pipe = Ep(EstimateOf(s, "tp=2,pp=8,ep=64,dp=128,schedule=1f1b,a2a_overlap=tbo"));
  EXPECT_NEAR(pipe.exposed.value(), pipe.total.value() / (4.0 * 58 / 8),
              1e-12 * pipe.total.value());
  // Full recompute keeps the overlap (Megatron-Core's combined-1F1B rule is not this method's).
  const TimeItem full = Ep(EstimateOf(s, "tp=2,pp=1,ep=64,dp=1024,recompute=full,a2a_overlap=tbo"));
  EXPECT_NEAR(full.exposed.value(), full.total.value() / (4.0 * 58), 1e-12 * full.total.value());
}

// The halves run every MoE GEMM at half the rows and send two all-to-alls
// of half the bytes: never less compute or all-to-all time than one whole
// micro-batch (GEMM efficiency rises with rows; each all-to-all pays its
// latency).
TEST(A2aOverlap, TwoBatchHalvesCostCompute) {
  const Case s = DeepSeek();
  for (const std::string base : {"tp=2,pp=1,ep=64,dp=1024", "tp=1,pp=1,ep=8,dp=2048"}) {
    Case job = s;
    if (base.find("dp=2048") != std::string::npos) job.job.global_batch_seqs = 2048 * 8;
    const Estimate off = EstimateOf(job, base);
    const Estimate on = EstimateOf(job, base + ",a2a_overlap=tbo");
    auto compute = [](const Estimate& e) {
      for (const TimeItem& t : e.breakdown) {
        if (t.what == "compute") return t.total.value();
      }
      return 0.0;
    };
    EXPECT_GT(compute(on), compute(off)) << base;
    EXPECT_GE(Ep(on).total.value(), Ep(off).total.value()) << base;
    EXPECT_LT(Ep(on).exposed.value(), Ep(off).exposed.value()) << base;
    EXPECT_DOUBLE_EQ(on.memory.activations.value(), off.memory.activations.value()) << base;
  }
}

// Shared-expert overlap hides the all-to-all behind the shared experts only:
// with them far longer than it (a slow chip) nothing stays exposed; with a
// shared expert of width 8 (a GEMM that still pays its weight reads and
// narrow-width efficiency, doc/cost-model.md §2, at the fitted h100
// half_width of 1024) a few percent at most.
TEST(A2aOverlap, SharedExpertHidesOnlyBehindTheSharedExpert) {
  const TimeItem slow = Ep(EstimateOf(SlowChip(), "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=shared"));
  ASSERT_GT(slow.total.value(), 0);
  EXPECT_EQ(slow.exposed.value(), 0);
  Case thin = DeepSeek();
  thin.model.moe->shared_expert_ffn = 8;
  const TimeItem off = Ep(EstimateOf(thin, "tp=2,pp=1,ep=64,dp=1024"));
  const TimeItem on = Ep(EstimateOf(thin, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=shared"));
  EXPECT_LE(on.exposed.value(), off.exposed.value());
  EXPECT_GT(on.exposed.value(), 0.96 * off.exposed.value());
}

TimeItem ItemOn(const Estimate& e, const std::string& axis) {
  for (const TimeItem& t : e.breakdown) {
    if (t.axis == axis) return t;
  }
  return {};
}

// The MoE dispatcher's host sync is its own breakdown item and a named job
// option. Per micro-batch and MoE block forward (DeepSeek-V3: 58 MoE layers +
// the MTP module's MoE block) the device idles for max(0, H - D), D the
// forward's FLOP share of the block's time: with H far above any block's D, raising H by dH
// adds exactly 59 dH per micro-batch, all exposed without an overlap method;
// off, the item disappears, the all-to-all is unchanged and the step is
// shorter by exactly the item.
TEST(MoeHostSync, IsItsOwnItemAndANamedOption) {
  Case s = DeepSeek();
  s.cluster.chip.moe_dispatch_host_s = 1.0;  // far above one block's forward
  Case more = s;
  more.cluster.chip.moe_dispatch_host_s = 1.5;
  const std::string plan = "tp=2,pp=1,ep=64,dp=1024";
  const Estimate on = EstimateOf(s, plan);
  Case quiet = s;
  quiet.job.moe_host_sync = false;
  const Estimate off = EstimateOf(quiet, plan);
  const double slope = Micro(s, 1024, 1) * 59 * 0.5;
  const TimeItem item = ItemOn(on, "host");
  const TimeItem item_more = ItemOn(EstimateOf(more, plan), "host");
  EXPECT_EQ(item.what, "moe dispatcher host sync");
  EXPECT_NEAR(item_more.total.value() - item.total.value(), slope, 1e-9 * slope);
  EXPECT_NEAR(item.exposed.value(), item.total.value(), 1e-9 * item.total.value());
  EXPECT_LT(item.total.value(), Micro(s, 1024, 1) * 59 * 1.0);  // D covers part of H
  EXPECT_EQ(ItemOn(off, "host").what, "");
  EXPECT_DOUBLE_EQ(Ep(on).total.value(), Ep(off).total.value());
  // The step pays the host's exposed time, less what the longer forward
  // hides of the data-parallel weight gathers issued behind it (their links
  // are idle while the device waits for the host: DataParallelTail).
  double gathers_off = 0;
  for (const TimeItem& t : off.breakdown) {
    if (t.what.find("weight all-gather") != std::string::npos) gathers_off += t.exposed.value();
  }
  const double paid = on.step_time.value() - off.step_time.value();
  EXPECT_LE(paid, item.exposed.value() * (1 + 1e-9));
  EXPECT_GE(paid, item.exposed.value() - gathers_off - 1e-9 * item.exposed.value());
  // Combined 1F1B hides it with the all-to-all: the same unpaired share stays.
  const Estimate paired = EstimateOf(SlowChip(), plan + ",a2a_overlap=1");
  const TimeItem ph = ItemOn(paired, "host");
  EXPECT_NEAR(ph.exposed.value(), ph.total.value() / Micro(s, 1024, 1), 1e-12 * ph.total.value());
}

// A host time below the forward's share of the block's work is covered by
// it: the device never waits (CUDA streams run asynchronously to the host).
TEST(MoeHostSync, HidesBehindTheBlocksOwnWork) {
  Case s = DeepSeek();
  s.cluster.chip.moe_dispatch_host_s = 1e-6;
  const std::string plan = "tp=2,pp=1,ep=64,dp=1024";
  Case quiet = s;
  quiet.job.moe_host_sync = false;
  EXPECT_DOUBLE_EQ(EstimateOf(s, plan).step_time.value(),
                   EstimateOf(quiet, plan).step_time.value());
}

}  // namespace
}  // namespace occam
