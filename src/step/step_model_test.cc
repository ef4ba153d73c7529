// Invariants of one layout's estimate, on hand-built models and clusters.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "cost/test_models.h"
#include "occam/cost.h"
#include "occam/step.h"
#include "step/test_fixtures.h"

namespace occam {
namespace {

using testing::H100Cluster;

JobSpec Job(int64_t seq, int64_t batch) {
  JobSpec j;
  j.seq_len = seq;
  j.global_batch_seqs = batch;
  return j;
}

PlanSpec Plan(const char* text) {
  auto p = ParsePlan(text);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : PlanSpec{};
}

struct Case {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  const char* plan;
};

std::vector<Case> Cases() {
  return {
      {testing::Llama8B(), H100Cluster(64), Job(8192, 512), "tp=8,dp=8,zero=1,mbs=1"},
      {testing::Llama70B(), H100Cluster(256), Job(4096, 1024),
       "tp=8,pp=4,dp=8,zero=1,mbs=1,schedule=1f1b"},
      {testing::Llama70B(), H100Cluster(256), Job(4096, 1024),
       "tp=8,pp=4,vpp=5,dp=8,zero=1,mbs=1,schedule=interleaved,recompute=selective"},
      {testing::Llama8B(), H100Cluster(64), Job(8192, 512),
       "tp=2,cp=2,dp=16,zero=3,mbs=1,recompute=full"},
      {testing::Mixtral8x7B(), H100Cluster(64), Job(4096, 512), "tp=2,ep=8,dp=32,zero=1,mbs=2"},
      {testing::DeepSeekV3(), H100Cluster(2048), Job(4096, 15360),
       "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b"},
      {testing::DeepSeekV3(), H100Cluster(2048), Job(4096, 15360),
       "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,vpp=2,schedule=dualpipev"},
  };
}

TEST(StepModel, Invariants) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.plan);
    auto sm = StepModel::Create(c.model, c.cluster, c.job);
    ASSERT_TRUE(sm.ok()) << sm.status().message();
    auto e = sm->Evaluate(Plan(c.plan));
    ASSERT_TRUE(e.ok()) << e.status().message();
    const double tokens = static_cast<double>(c.job.global_batch_tokens());
    EXPECT_NEAR(e->tokens_per_s * e->step_time.value(), tokens, 1e-6 * tokens);
    EXPECT_GT(e->mfu, 0);
    EXPECT_LE(e->mfu, 1);
    EXPECT_GE(e->hfu, e->mfu);
    const MemoryBreakdown& m = e->memory;
    for (Bytes b : {m.weights, m.grads, m.optimizer, m.activations, m.logits, m.other}) {
      EXPECT_GE(b.value(), 0);
    }
    EXPECT_DOUBLE_EQ(
        m.total().value(),
        (m.weights + m.grads + m.optimizer + m.activations + m.logits + m.other).value());
    double exposed = 0;
    for (const TimeItem& i : e->breakdown) {
      EXPECT_LE(i.exposed.value(), i.total.value() * (1 + 1e-12) + 1e-15) << i.what;
      exposed += i.exposed.value();
    }
    EXPECT_NEAR(exposed, e->step_time.value(), 1e-9 * e->step_time.value());
    EXPECT_FALSE(e->bottleneck.empty());
  }
}

TEST(StepModel, QuickAgreesWithEvaluate) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.plan);
    auto sm = StepModel::Create(c.model, c.cluster, c.job);
    ASSERT_TRUE(sm.ok());
    const PlanSpec plan = Plan(c.plan);
    auto e = sm->Evaluate(plan);
    ASSERT_TRUE(e.ok());
    const QuickEstimate q = sm->EvaluateQuick(plan);
    EXPECT_EQ(q.step_time.value(), e->step_time.value());
    EXPECT_EQ(q.mfu, e->mfu);
    EXPECT_EQ(q.memory_total.value(), e->memory.total().value());
    EXPECT_EQ(q.fits, e->fits);
  }
}

TEST(StepModel, MoreBandwidthOrFlopsIsNeverSlower) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.plan);
    const PlanSpec plan = Plan(c.plan);
    // Sums of the same terms in another order may differ in the last bits.
    const double base =
        EstimateStep(c.model, c.cluster, c.job, plan)->step_time.value() * (1 + 1e-12);
    ClusterSpec faster = c.cluster;
    faster.chip.peak_bf16 = faster.chip.peak_bf16 * 2;
    EXPECT_LE(EstimateStep(c.model, faster, c.job, plan)->step_time.value(), base);
    faster = c.cluster;
    faster.chip.hbm_bandwidth = faster.chip.hbm_bandwidth * 2;
    EXPECT_LE(EstimateStep(c.model, faster, c.job, plan)->step_time.value(), base);
    for (size_t t = 0; t < c.cluster.tiers.size(); ++t) {
      faster = c.cluster;
      faster.tiers[t].bandwidth = faster.tiers[t].bandwidth * 2;
      EXPECT_LE(EstimateStep(c.model, faster, c.job, plan)->step_time.value(), base) << t;
    }
  }
}

TEST(StepModel, RecomputeRaisesHfuNotMfuAndSavesMemory) {
  const Case c = Cases()[0];
  PlanSpec none = Plan(c.plan), full = none;
  full.recompute = Recompute::kFull;
  auto a = EstimateStep(c.model, c.cluster, c.job, none);
  auto b = EstimateStep(c.model, c.cluster, c.job, full);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(b->step_time, a->step_time);
  EXPECT_LT(b->memory.activations, a->memory.activations);
  // Same model FLOPs; full recompute adds one forward of every block.
  EXPECT_NEAR(b->mfu * b->step_time.value(), a->mfu * a->step_time.value(), 1e-9);
  EXPECT_GT(b->hfu / b->mfu, 1.25);
  EXPECT_LT(b->hfu / b->mfu, 4.0 / 3.0);
}

TEST(StepModel, SingleChipComputeMatchesRoofline) {
  // One chip, no parallelism: the step is at least the model FLOPs at the
  // efficiency plateau, and compute is the bottleneck.
  ModelSpec m = testing::Llama8B();
  ClusterSpec cl = H100Cluster(1);
  cl.chip.hbm = GB(10000);
  const JobSpec job = Job(4096, 8);
  auto e = EstimateStep(m, cl, job, Plan("tp=1,dp=1,mbs=1,zero=0"));
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double ideal =
      ModelFlopsPerToken(m, 4096).value() * 8 * 4096 / (989.4e12 * cl.chip.gemm_efficiency);
  EXPECT_GT(e->step_time.value(), ideal);
  EXPECT_LT(e->step_time.value(), 1.3 * ideal);
  EXPECT_NE(e->bottleneck.find("compute"), std::string::npos);
  EXPECT_TRUE(e->fits);
}

TEST(StepModel, PipelineBubbleFollowsOneF1B) {
  // Equal stages (no embedding/head extras are avoided, so compare ratios):
  // doubling micro-batches halves the bubble's share.
  const ModelSpec m = testing::Llama70B();
  const ClusterSpec cl = H100Cluster(64);
  auto a = EstimateStep(m, cl, Job(4096, 64), Plan("tp=8,pp=8,dp=1,mbs=1,schedule=1f1b"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  const double t_mb = (a->step_time - a->bubble).value();  // m * t + tails
  EXPECT_GT(a->bubble.value(), 0);
  // (p-1)/m of the pipelined part, within the stage imbalance from embedding/head.
  EXPECT_NEAR(a->bubble.value() / t_mb, 7.0 / 64, 0.03);
}

TEST(StepModel, FitsAgainstUsableHbm) {
  const Case c = Cases()[5];  // DeepSeek-V3 on 2048 GPUs
  auto e = EstimateStep(c.model, c.cluster, c.job, Plan(c.plan));
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->memory_capacity.value(), 80e9 * (1 - c.job.memory_headroom));
  EXPECT_EQ(e->fits, e->memory.total() <= e->memory_capacity);
}

TEST(StepModel, BadLayoutsNameThePlanField) {
  const Case c = Cases()[0];
  auto sm = StepModel::Create(c.model, c.cluster, c.job);
  ASSERT_TRUE(sm.ok());
  auto bad = sm->Evaluate(Plan("tp=8,dp=4"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("plan field"), std::string::npos);
  auto ep = sm->Evaluate(Plan("tp=8,dp=8,ep=2"));
  ASSERT_FALSE(ep.ok());
  EXPECT_NE(ep.status().message().find("'ep'"), std::string::npos);
  auto stages = sm->Evaluate(Plan("tp=8,pp=2,dp=4,schedule=1f1b,stages=10/10"));
  ASSERT_FALSE(stages.ok());
  EXPECT_NE(stages.status().message().find("'stages'"), std::string::npos);
}

TEST(StepModel, PipelineForHasOneChunkPerModelChunk) {
  const Case c = Cases()[2];  // interleaved, pp=4, vpp=5
  auto sm = StepModel::Create(c.model, c.cluster, c.job);
  ASSERT_TRUE(sm.ok());
  auto cfg = sm->PipelineFor(Plan(c.plan));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->chunks.size(), 20u);
  EXPECT_EQ(cfg->stages, 4);
  EXPECT_EQ(cfg->vpp, 5);
  EXPECT_EQ(cfg->microbatches, 1024 / 8);
  for (const ChunkCost& k : cfg->chunks) {
    EXPECT_GT(k.forward.value(), 0);
    EXPECT_GT(k.backward_input.value(), 0);
    EXPECT_GT(k.activation.value(), 0);
  }
}

// LowerBoundsFor: never above the step time or memory, the same for every ZeRO
// stage, axis order and all-to-all overlap method, and for 1F1B at least the fill/drain closed form
// sum_d t_d / (1 - (1 - 1/m)^p) derived in step_model.cc.
// The link bound is the larger of the estimate's own per-step tp + cp + ep
// traffic (pp = 1: one device; with ZeRO-3 its gathers and reduce-scatters
// too; with ZeRO-2 at least m = 1 gradient reduce-scatter) and the
// dispatcher's host time of its MoE layers' forwards, the same for every
// recompute, overlap choice and ZeRO stage 0 or 1, and never above the step.
TEST(LinkTimeFor, IsTheBusiestCommunicatorsTraffic) {
  const ModelSpec model = *CatalogModel("deepseek-v2-lite");
  const ClusterSpec cluster = *CatalogCluster("h100", 64);
  JobSpec job = Job(4096, 64);
  job.moe_imbalance = 1.2;
  const StepModel sm = std::move(StepModel::Create(model, cluster, job)).value();
  const PlanSpec plan = *ParsePlan("tp=1,dp=64,ep=64,zero=1,mbs=1");
  const Estimate est = *sm.Evaluate(plan);
  double traffic = 0;
  for (const TimeItem& item : est.breakdown) {
    if (item.axis == "tp" || item.axis == "cp" || item.axis == "ep") traffic += item.total.value();
  }
  ASSERT_GT(traffic, 0);
  // m = 64 / (64 x 1) = 1 micro-batch; every layer from first_k_dense on is MoE.
  const double moe_layers = static_cast<double>(model.num_layers - model.moe->first_k_dense);
  const double host = moe_layers * cluster.chip.moe_dispatch_host_s;
  const double busiest = std::max(traffic, host);
  const double link = sm.LinkTimeFor(plan).value();
  EXPECT_NEAR(link, busiest, 1e-9 * busiest);
  for (const char* text : {"tp=1,dp=64,ep=64,zero=0,mbs=1,recompute=full",
                           "tp=1,dp=64,ep=64,zero=1,mbs=1,a2a_overlap=tbo"}) {
    const PlanSpec other = *ParsePlan(text);
    ASSERT_TRUE(ValidatePlan(model, cluster, job, other).ok()) << text;
    EXPECT_EQ(sm.LinkTimeFor(other).value(), link) << text;
    EXPECT_LE(link, sm.EvaluateQuick(other).step_time.value()) << text;
  }
  // ZeRO-3 without HSDP: no data-parallel tail, every dp item is a block's
  // gather or reduce-scatter, in the windows with the rest.
  const PlanSpec z3 = *ParsePlan("tp=1,dp=64,ep=64,zero=3,mbs=1");
  double z3_traffic = 0;
  const Estimate z3_est = *sm.Evaluate(z3);
  for (const TimeItem& item : z3_est.breakdown) {
    if (item.axis == "tp" || item.axis == "cp" || item.axis == "ep" || item.axis == "dp") {
      z3_traffic += item.total.value();
    }
  }
  ASSERT_GT(z3_traffic, traffic);
  const double z3_link = sm.LinkTimeFor(z3).value();
  EXPECT_NEAR(z3_link, std::max(z3_traffic, host), 1e-9 * z3_traffic);
  EXPECT_EQ(sm.LinkTimeFor(*ParsePlan("tp=1,dp=64,ep=64,zero=3,mbs=1,recompute=full")).value(),
            z3_link);
  EXPECT_LE(z3_link, sm.EvaluateQuick(z3).step_time.value());
  // ZeRO-2: m = 1 round of each gradient reduce-scatter (dense over dp,
  // experts over edp), whichever is longer, if above the rest.
  const PlanSpec z2 = *ParsePlan("tp=1,dp=64,ep=64,zero=2,mbs=1");
  double reduce = 0;
  const Estimate z2_est = *sm.Evaluate(z2);
  for (const TimeItem& item : z2_est.breakdown) {
    if (item.what.find("gradient reduce-scatter") != std::string::npos) {
      reduce = std::max(reduce, item.total.value());
    }
  }
  ASSERT_GT(reduce, 0);
  const double z2_link = sm.LinkTimeFor(z2).value();
  EXPECT_NEAR(z2_link, std::max(busiest, reduce), 1e-9 * z2_link);
  EXPECT_LE(z2_link, sm.EvaluateQuick(z2).step_time.value());
  // Without the host sync the traffic alone.
  job.moe_host_sync = false;
  const StepModel quiet = std::move(StepModel::Create(model, cluster, job)).value();
  double quiet_traffic = 0;
  const Estimate quiet_est = *quiet.Evaluate(plan);
  for (const TimeItem& item : quiet_est.breakdown) {
    if (item.axis == "tp" || item.axis == "cp" || item.axis == "ep") {
      quiet_traffic += item.total.value();
    }
  }
  EXPECT_NEAR(quiet.LinkTimeFor(plan).value(), quiet_traffic, 1e-9 * quiet_traffic);
}

// Every micro-batch's pass through a MoE layer lasts at least the
// dispatcher's host time (AddHostBound: S + max(0, H - S/3) >= H), so with a
// host time H far above every other cost the bound is at least m x H x the
// MoE layers of the busiest device. DeepSeek-V2-Lite: 27 layers, the first
// dense, over 4 stages: the busiest holds at least 7 layers, 6 of them MoE
// at the least. (Its forward alone need not last H: the idle is a FLOP
// share of the whole layer's time, so the one-way fill of ZB-H1 is bounded
// without it.)
TEST(LinkTimeFor, EveryMoeLayerLastsItsHostTimePerMicroBatch) {
  const ModelSpec model = *CatalogModel("deepseek-v2-lite");
  ClusterSpec cluster = *CatalogCluster("h100", 64);
  const double host = 1.0;
  cluster.chip.moe_dispatch_host_s = host;
  JobSpec job = Job(4096, 64);
  job.moe_imbalance = 1.2;
  const StepModel sm = std::move(StepModel::Create(model, cluster, job)).value();
  const PlanSpec plan = *ParsePlan("tp=1,pp=4,dp=16,ep=16,zero=1,mbs=1,schedule=zb-h1");
  ASSERT_TRUE(ValidatePlan(model, cluster, job, plan).ok());
  ASSERT_FALSE(PairsPasses(plan));
  const double m = 64.0 / 16.0;
  const double link = sm.LinkTimeFor(plan).value();
  EXPECT_GE(link, m * host * 6);
  EXPECT_LE(link, sm.EvaluateQuick(plan).step_time.value());
}

TEST(LowerBoundsFor, NeverExceedsTheStepAndIgnoresShardingAndOrder) {
  const ModelSpec model = *CatalogModel("deepseek-v2-lite");
  const ClusterSpec cluster = *CatalogCluster("h100", 64);
  JobSpec job = Job(4096, 256);
  job.moe_imbalance = 1.2;
  const StepModel sm = std::move(StepModel::Create(model, cluster, job)).value();
  int checked = 0;
  for (const char* text :
       {"tp=1,dp=64,ep=8,zero=1,mbs=1", "tp=2,dp=32,ep=16,zero=3,mbs=2,recompute=full",
        "tp=4,pp=4,dp=4,ep=4,zero=1,mbs=1,schedule=1f1b",
        "tp=1,pp=2,dp=32,ep=8,zero=2,mbs=2,schedule=gpipe",
        "tp=2,pp=4,vpp=2,dp=8,ep=8,zero=1,mbs=1,schedule=interleaved",
        "tp=1,pp=4,vpp=2,dp=16,ep=16,zero=1,mbs=1,schedule=dualpipev",
        "tp=2,cp=2,dp=16,ep=8,zero=1,mbs=1,recompute=selective"}) {
    PlanSpec plan = *ParsePlan(text);
    ASSERT_TRUE(ValidatePlan(model, cluster, job, plan).ok()) << text;
    const double bound = sm.LowerBoundsFor(plan).step_time.value();
    EXPECT_GT(bound, 0) << text;
    EXPECT_LE(bound, sm.EvaluateQuick(plan).step_time.value()) << text;
    EXPECT_LE(bound, sm.EvaluateClosedForm(plan).step_time.value()) << text;
    EXPECT_LE(sm.LowerBoundsFor(plan).memory_by_zero[static_cast<size_t>(plan.zero)],
              sm.EvaluateClosedForm(plan).memory_total)
        << text;
    for (int zero : {0, 1, 2, 3}) {
      PlanSpec z = plan;
      z.zero = zero;
      z.order = {Axis::kTp, Axis::kCp, Axis::kDp, Axis::kEp, Axis::kPp};
      z.a2a_overlap = zero % 2 == 0 ? EpOverlap::kTwoBatch : EpOverlap::kSharedExpert;
      EXPECT_EQ(sm.LowerBoundsFor(z).step_time.value(), bound) << text << " zero " << zero;
      if (ValidatePlan(model, cluster, job, z).ok()) {
        EXPECT_LE(bound, sm.EvaluateQuick(z).step_time.value()) << text << " zero " << zero;
        EXPECT_LE(sm.LowerBoundsFor(z).memory_by_zero[static_cast<size_t>(zero)],
                  sm.EvaluateClosedForm(z).memory_total)
            << text << " zero " << zero;
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 7);
  // 1F1B: with the same micro-batch (tokens, tp, ep, hence lambda) the
  // model's compute per micro-batch sum_d t_d is the same; pp=1 gives m * sum.
  const PlanSpec flat = *ParsePlan("tp=4,dp=16,ep=4,zero=1,mbs=4");
  const PlanSpec piped = *ParsePlan("tp=4,pp=4,dp=4,ep=4,zero=1,mbs=4,schedule=1f1b");
  const double m_flat = 256.0 / (16 * 4), m_piped = 256.0 / (4 * 4);
  const double per_mb = sm.LowerBoundsFor(flat).step_time.value() / m_flat;
  const double expect = per_mb / (1 - std::pow(1 - 1 / m_piped, 4.0));
  EXPECT_NEAR(sm.LowerBoundsFor(piped).step_time.value(), expect, 1e-9 * expect);
  // Without pipeline or recompute, in the default order (dense state sharded
  // over all dp ranks) the one device holds its whole state and one
  // micro-batch's activations and logits (fused loss: no transient), plus
  // the TP and EP buffers: the estimate's memory less the routing-imbalance
  // headroom, which `other` holds beside those buffers.
  const Estimate est = *sm.Evaluate(flat);
  const MemoryBreakdown& mb = est.memory;
  const double held = (mb.weights + mb.grads + mb.optimizer + mb.activations + mb.logits).value();
  const double bound = sm.LowerBoundsFor(flat).memory_by_zero[1].value();
  EXPECT_GT(bound, held * (1 + 1e-9));  // tp = 4 and ep = 4 hold buffers
  EXPECT_LE(bound, (held + mb.other.value()) * (1 + 1e-9));
}

// JAX's dot-saving remat policies sit between Korthikanti's selective
// recompute and full recompute: each re-runs more of the forward (the
// element-wise ops; then the MLP's input projections; then its output
// projection too) and keeps less.
TEST(StepModel, DotSavingPoliciesLieBetweenSelectiveAndFull) {
  const StepModel sm =
      std::move(StepModel::Create(testing::Llama8B(), H100Cluster(64), Job(8192, 512))).value();
  double last_time = 0, last_memory = 1e300;
  for (const char* r : {"selective", "dots", "dots_except_mlpwi", "dots_except_mlp", "full"}) {
    const std::string text = std::string("tp=8,dp=8,zero=1,mbs=1,recompute=") + r;
    const Estimate e = sm.Evaluate(*ParsePlan(text)).value();
    EXPECT_GT(e.step_time.value(), last_time) << r;
    if (std::string(r) != "selective") {
      EXPECT_LT(e.memory.activations.value(), last_memory) << r;
    }
    last_time = e.step_time.value();
    last_memory = e.memory.activations.value();
    EXPECT_GT(e.hfu, e.mfu) << r;
  }
}

// HFU under the dot-saving policies counts the MLP projections they drop:
// on Llama 3.1 8B (32 layers, h 4096, SwiGLU 14336) the gate and up
// projections, 2 x 2 x 4096 x 14336 FLOPs per token and layer, under
// dots_except_mlpwi, and the down projection's 2 x 4096 x 14336 more under
// dots_except_mlp, beside what both re-run (attention core, as dots).
TEST(StepModel, DotSavingHfuCountsTheDroppedMlpProjections) {
  const ModelSpec m = testing::Llama8B();
  const StepModel sm = std::move(StepModel::Create(m, H100Cluster(64), Job(8192, 512))).value();
  const Estimate dots = sm.Evaluate(*ParsePlan("tp=1,dp=64,zero=3,mbs=1,recompute=dots")).value();
  const double model = ModelFlopsPerToken(m, 8192).value();
  const double wi = 32.0 * 2.0 * 2.0 * 4096 * 14336, wo = 32.0 * 2.0 * 4096 * 14336;
  // HFU / MFU does not depend on the step time: (model + re-run) / model.
  const Estimate ewi =
      sm.Evaluate(*ParsePlan("tp=1,dp=64,zero=3,mbs=1,recompute=dots_except_mlpwi")).value();
  const Estimate emlp =
      sm.Evaluate(*ParsePlan("tp=1,dp=64,zero=3,mbs=1,recompute=dots_except_mlp")).value();
  const double dots_rerun = (dots.hfu / dots.mfu - 1) * model;
  EXPECT_NEAR(ewi.hfu / ewi.mfu, (model + dots_rerun + wi) / model, 1e-9);
  EXPECT_NEAR(emlp.hfu / emlp.mfu, (model + dots_rerun + wi + wo) / model, 1e-9);
}

// HFU under operator-level checkpointing counts what it re-runs: on Llama
// 3.1 8B (32 layers, h 4096, k and v 1024, SwiGLU 14336) the k, out and up
// projections of each layer, 2 x 4096 x (1024 + 4096 + 14336) FLOPs per
// token, on top of the model FLOPs MFU counts.
TEST(StepModel, OperatorLevelHfuCountsTheRerunProjections) {
  const ModelSpec m = testing::Llama8B();
  const StepModel sm = std::move(StepModel::Create(m, H100Cluster(64), Job(8192, 512))).value();
  const Estimate e =
      sm.Evaluate(*ParsePlan("tp=1,dp=64,zero=3,mbs=1,recompute=selective_op")).value();
  const double model = ModelFlopsPerToken(m, 8192).value();
  const double rerun = 32.0 * 2.0 * 4096 * (1024 + 4096 + 14336);
  EXPECT_NEAR(e.hfu / e.mfu, (model + rerun) / model, 1e-9);
}

// Eager PyTorch ops (JobSpec::eager_autograd) add element-wise HBM traffic
// (cost/eager_ops.cc): the same layout takes longer, and by no more than
// that traffic's forward, backward (2x) and operator-level recompute (1x)
// passes at the chip's HBM bandwidth.
TEST(StepModel, EagerOpsSlowTheStepByTheirTraffic) {
  const ModelSpec m = testing::Llama8B();
  JobSpec eager = Job(8192, 64);
  eager.eager_autograd = true;
  const PlanSpec plan = *ParsePlan("tp=1,dp=8,zero=3,mbs=2,recompute=selective_op");
  const StepModel fused_sm = std::move(StepModel::Create(m, H100Cluster(8), Job(8192, 64))).value();
  const StepModel eager_sm = std::move(StepModel::Create(m, H100Cluster(8), eager)).value();
  const double fused = fused_sm.Evaluate(plan).value().step_time.value();
  const double slow = eager_sm.Evaluate(plan).value().step_time.value();
  ActivationOptions o, e;
  e.eager_autograd = true;
  const double extra_per_token = BuildModelWork(m, 8192, e).dense.elementwise_bytes -
                                 BuildModelWork(m, 8192, o).dense.elementwise_bytes;
  const double tokens_per_chip = 64.0 * 8192 / 8;
  const double bound =
      4.0 * 32 * extra_per_token * tokens_per_chip / H100Cluster(8).chip.hbm_bandwidth.value();
  EXPECT_GT(slow, fused);
  EXPECT_LE(slow - fused, bound * 1.0001);
  EXPECT_GE(slow - fused, 0.5 * bound);
}

// HFU under JAX's dot-saving policy counts its recompute: on Mixtral 8x7B
// (32 MoE layers, 32 heads of 128, top-2 experts of SwiGLU 14336 on h 4096)
// the attention core, 2 x 32 x (s + 1) / 2 x (128 + 128) FLOPs per token and
// layer, and the two routed experts' three matmuls, 2 x 3 x 2 x 4096 x 14336.
TEST(StepModel, DotsHfuCountsTheRoutedExpertsRerun) {
  const ModelSpec m = testing::Mixtral8x7B();
  const StepModel sm = std::move(StepModel::Create(m, H100Cluster(8), Job(4096, 64))).value();
  const Estimate e = sm.Evaluate(*ParsePlan("tp=1,dp=8,ep=8,zero=1,mbs=1,recompute=dots")).value();
  const double model = ModelFlopsPerToken(m, 4096).value();
  const double attn = 2.0 * 32 * (4096 + 1) / 2.0 * (128 + 128);
  const double experts = 2.0 * 3 * 2 * 4096 * 14336.0;
  EXPECT_NEAR(e.hfu / e.mfu, (model + 32 * (attn + experts)) / model, 1e-9);
}

}  // namespace
}  // namespace occam
