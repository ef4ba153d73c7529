// Framework-level job options in a whole step: the attention kernel and
// dropout (memory-bound passes priced at the chip's HBM bandwidth, the stored
// score matrix), the overlap of the data-parallel gradient reduction and the
// granularity and overlap of ZeRO-3's collectives.
#include <gtest/gtest.h>

#include <string>

#include "cost/test_models.h"
#include "occam/collective.h"
#include "occam/cost.h"
#include "occam/step.h"
#include "step/test_fixtures.h"

namespace occam {
namespace {

constexpr double kLayers = 24, kHidden = 2048, kHeads = 16, kSeq = 2048, kChips = 8;

struct StepRun {
  double compute = 0, activations = 0;
};

StepRun Step(AttentionImpl attention, bool dropout) {
  const ModelSpec model = testing::Gpt(24, 2048, 16, 51200);
  JobSpec job;
  job.seq_len = 2048;
  job.global_batch_seqs = 64;
  job.attention = attention;
  job.dropout = dropout;
  auto plan = ParsePlan("tp=1,pp=1,dp=8,zero=1,mbs=1,recompute=none");
  EXPECT_TRUE(plan.ok());
  auto e = EstimateStep(model, testing::H100Cluster(8), job, *plan);
  EXPECT_TRUE(e.ok()) << e.status().message();
  if (!e.ok()) return {};
  StepRun r;
  for (const TimeItem& t : e->breakdown) {
    if (t.what == "compute") r.compute = t.total.value();
  }
  r.activations = e->memory.activations.value();
  return r;
}

TEST(JobOptions, DropoutCostsItsMemoryBoundPasses) {
  // Per token and layer: score dropout 5 B per element of the a x s matrix in
  // each of forward and backward; two hidden dropouts of (2 + 2 + 1) B x h
  // forward, twice that backward (element-wise backward ~2x).
  const double tokens = 64 * kSeq / kChips;
  const double bytes = tokens * kLayers * (2 * 5 * kHeads * kSeq + 3 * 2 * 5 * kHidden);
  const double expected = bytes / 3350e9;
  const StepRun plain = Step(AttentionImpl::kMaterialized, false);
  const StepRun drop = Step(AttentionImpl::kMaterialized, true);
  EXPECT_NEAR(drop.compute - plain.compute, expected, 1e-6 * expected);
}

TEST(JobOptions, MaterialisedScoresCostTimeAndMemory) {
  const StepRun flash = Step(AttentionImpl::kFlash, false);
  const StepRun mat = Step(AttentionImpl::kMaterialized, false);
  // At least the score passes alone (2 B x a x s x (4 + 7) passes per token
  // and layer); the unskipped score matmuls add more.
  const double tokens = 64 * kSeq / kChips;
  const double passes = tokens * kLayers * 2 * kHeads * kSeq * 11 / 3350e9;
  EXPECT_GT(mat.compute - flash.compute, passes);
  // Without recompute the softmax output (2 B per element) is kept per layer
  // for one in-flight micro-batch of s tokens; FlashAttention keeps an fp32
  // log-sum-exp per head instead.
  const double scores = kLayers * kSeq * (2 * kHeads * kSeq - 4 * kHeads);
  EXPECT_NEAR(mat.activations - flash.activations, scores, 1e-6 * scores);
}

// The breakdown item of `axis` whose name contains `what`.
TimeItem Item(const Estimate& e, const std::string& axis, const std::string& what) {
  for (const TimeItem& t : e.breakdown) {
    if (t.axis == axis && t.what.find(what) != std::string::npos) return t;
  }
  ADD_FAILURE() << "no " << axis << " item named like '" << what << "'";
  return {};
}

// The item of `axis`/`what` in the estimate of `plan`, with `set` applied to the job.
template <typename Set>
TimeItem ItemWith(const ModelSpec& model, const ClusterSpec& cluster, JobSpec job,
                  const std::string& plan, Set set, const std::string& axis,
                  const std::string& what) {
  set(job);
  auto p = ParsePlan(plan);
  EXPECT_TRUE(p.ok()) << plan;
  auto e = EstimateStep(model, cluster, job, *p);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? Item(*e, axis, what) : TimeItem{};
}

TEST(JobOptions, UnoverlappedGradientReductionIsAllExposed) {
  // Llama 3 8B on 64 H100s (8 nodes): the dp reduce-scatter crosses InfiniBand.
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 256;
  auto grad = [&](bool overlap) {
    return ItemWith(
        testing::Llama8B(), testing::H100Cluster(64), job,
        "tp=1,pp=1,dp=64,zero=1,mbs=1,recompute=full",
        [&](JobSpec& j) { j.overlap_grad_reduce = overlap; }, "dp", "gradient");
  };
  const TimeItem on = grad(true), off = grad(false);
  EXPECT_GT(on.total.value(), 0.0);
  EXPECT_DOUBLE_EQ(off.total.value(), on.total.value());
  EXPECT_DOUBLE_EQ(off.exposed.value(), off.total.value());
  EXPECT_LT(on.exposed.value(), 0.5 * on.total.value());
}

TEST(JobOptions, TpCommOverlapLeavesOneChunkInTpExposed) {
  // Llama 3 70B, tp = 8 in one H100 node (catalog cluster): each pass's TP
  // collectives take less time than its GEMMs, so all but 1/tp of them hide.
  // The embedding and head collectives (6 of the 1126 AG/RS-sized transfers
  // per step: 80 layers x 14 + 2 x 3) are not pipelined with a GEMM and stay
  // exposed: at most 1% of the total on top of total / tp.
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 8;
  auto run = [&](bool overlap) {
    return ItemWith(
        testing::Llama70B(), *CatalogCluster("h100", 8), job,
        "tp=8,pp=1,dp=1,zero=1,mbs=1,recompute=full",
        [&](JobSpec& j) { j.tp_comm_overlap = overlap; }, "tp", "");
  };
  const TimeItem off = run(false), on = run(true);
  EXPECT_DOUBLE_EQ(on.total.value(), off.total.value());
  EXPECT_GE(on.exposed.value(), on.total.value() / 8);
  EXPECT_LE(on.exposed.value(), on.total.value() / 8 + 0.01 * on.total.value());
  EXPECT_GT(off.exposed.value(), 2 * on.exposed.value());
}

double MixtralStep(double capacity_factor, double imbalance) {
  const ModelSpec model = testing::Mixtral8x7B();
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 64;
  job.balance = BalanceMethod::kAuxLoss;
  job.capacity_factor = capacity_factor;
  job.moe_imbalance = imbalance;
  auto plan = ParsePlan("tp=1,pp=1,dp=8,ep=8,zero=1,mbs=1,recompute=full");
  EXPECT_TRUE(plan.ok());
  auto e = EstimateStep(model, testing::H100Cluster(8), job, *plan);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e->step_time.value() : 0.0;
}

TEST(JobOptions, CapacityFactorCapsTheBusiestRank) {
  // Routed imbalance 1.5 given; token dropping at capacity 1.2 caps the load
  // of the busiest rank at 1.2 x the mean: the same step as imbalance 1.2.
  EXPECT_DOUBLE_EQ(MixtralStep(1.2, 1.5), MixtralStep(0, 1.2));
  EXPECT_LT(MixtralStep(1.2, 1.5), MixtralStep(0, 1.5));
  // A capacity above the routed imbalance drops nothing.
  EXPECT_DOUBLE_EQ(MixtralStep(2.0, 1.5), MixtralStep(0, 1.5));
}

// Mixtral 8x7B on 8 H100s with ep = 8: 32 MoE layers, 64 / 8 = 8 micro-batches.
double MixtralHostStep(double host_s, const std::string& plan_text) {
  ClusterSpec cluster = testing::H100Cluster(8);
  cluster.chip.moe_dispatch_host_s = host_s;
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 64;
  job.moe_imbalance = 1.0;
  auto plan = ParsePlan(plan_text);
  EXPECT_TRUE(plan.ok()) << plan_text;
  auto e = EstimateStep(testing::Mixtral8x7B(), cluster, job, *plan);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e->step_time.value() : 0.0;
}

TEST(JobOptions, DispatchHostTimeIsExposedOncePerMoeLayerForward) {
  // Unpaired passes: after the dispatcher's sync each MoE layer forward waits
  // for the part of the host time h its own work does not cover, max(0, h -
  // D); with h above every D, dh more costs layers x micro x dh. The
  // backward reuses the forward's split sizes; full recompute repeats the
  // forward. Below D it costs nothing.
  const double h = 1.0, dh = 0.5, layers = 32, micro = 8;
  const std::string none = "tp=1,pp=1,dp=8,ep=8,zero=1,mbs=1,recompute=none";
  const std::string full = "tp=1,pp=1,dp=8,ep=8,zero=1,mbs=1,recompute=full";
  EXPECT_NEAR(MixtralHostStep(h + dh, none) - MixtralHostStep(h, none), layers * micro * dh, 1e-9);
  EXPECT_NEAR(MixtralHostStep(h + dh, full) - MixtralHostStep(h, full), 2 * layers * micro * dh,
              1e-9);
  EXPECT_LT(MixtralHostStep(h, none) - MixtralHostStep(0, none), layers * micro * h);
  EXPECT_DOUBLE_EQ(MixtralHostStep(1e-6, none), MixtralHostStep(0, none));
  // Combined 1F1B pairs a forward with a backward: the host time hides
  // behind the other micro-batch's queued kernels except in unpaired passes.
  const std::string paired = "tp=1,pp=1,dp=8,ep=8,zero=1,mbs=1,recompute=none,a2a_overlap=1";
  const double small = 2e-3;
  EXPECT_LT(MixtralHostStep(small, paired) - MixtralHostStep(0, paired), layers * micro * small);
}

TEST(JobOptions, DispatchHostTimeIsCalibratedForGpusOnly) {
  // data/calibration.yaml: fitted on the H100 MoE runs, transferred to the
  // other NVIDIA chips (same dispatcher); XLA on TPU has no host round trip.
  EXPECT_GT(CatalogCluster("h100", 8)->chip.moe_dispatch_host_s, 0.0);
  EXPECT_EQ(CatalogCluster("h800", 8)->chip.moe_dispatch_host_s,
            CatalogCluster("h100", 8)->chip.moe_dispatch_host_s);
  EXPECT_EQ(CatalogCluster("tpu-v5p", 64)->chip.moe_dispatch_host_s, 0.0);
}

// ZeRO-3 collectives of a GPT block (q, k, v, o of h x h; fc1, fc2 of h x 4h;
// biases and LayerNorms unpartitioned) over 16 H100s on two nodes.
struct Zero3Case {
  ModelSpec model = testing::Gpt(4, 2048, 16, 51200);
  ClusterSpec cluster = testing::H100Cluster(16);
  JobSpec job;
  std::string plan = "tp=1,pp=1,dp=16,zero=3,mbs=1,recompute=full";
  Zero3Case() {
    job.seq_len = 2048;
    job.global_batch_seqs = 32;  // m = 2 micro-batches per rank
  }
  TimeItem Fsdp(bool per_tensor, bool overlap) const {
    return ItemWith(
        model, cluster, job, plan,
        [&](JobSpec& j) {
          j.fsdp_per_tensor = per_tensor;
          j.fsdp_overlap = overlap;
        },
        "dp", "fsdp");
  }
};

TEST(JobOptions, PerTensorZero3PaysOneCollectivePerWeightMatrix) {
  const Zero3Case z;
  const double h = 2048, m = 2, layers = 4;
  const RankGroup dp{16, 1};
  auto call = [&](CollectiveOp op, double bytes) {
    return EstimateCollective(z.cluster, op, Bytes(bytes), dp).time.value();
  };
  // Per micro-batch and block: `gathers` all-gathers (2 B per parameter) and
  // one gradient reduce-scatter (4 B). Under full recompute DeepSpeed's
  // hooks gather each matrix a third time for the recomputed forward; torch
  // FSDP's per-block unit is gathered twice.
  auto block = [&](double params, double count, double gathers) {
    return count * (gathers * call(CollectiveOp::kAllGather, 2 * params) +
                    call(CollectiveOp::kReduceScatter, 4 * params));
  };
  const double whole = BuildModelWork(z.model, 2048).dense.params_dense;
  const double expected =
      m * layers * (block(h * h, 4, 3) + block(4 * h * h, 2, 3) - block(whole, 1, 2));
  const TimeItem per_block = z.Fsdp(false, true), per_tensor = z.Fsdp(true, true);
  EXPECT_GT(expected, 0.0);  // six calls cost more latency and smaller chunks than one
  EXPECT_NEAR(per_tensor.total.value() - per_block.total.value(), expected, 1e-9 * expected);
}

TEST(JobOptions, DeepSpeedZero3GathersAgainForTheRecomputedForward) {
  // The forward hooks fetch and release a module's weights on every forward
  // call, the recomputed one inside the backward included, and the backward
  // hook fetches them again: full recompute adds one gather of every weight
  // matrix per micro-batch and block, all of it in the backward.
  const Zero3Case z;
  const double h = 2048, m = 2, layers = 4;
  const RankGroup dp{16, 1};
  auto gather = [&](double params) {
    return EstimateCollective(z.cluster, CollectiveOp::kAllGather, Bytes(2 * params), dp)
        .time.value();
  };
  const double expected = m * layers * (4 * gather(h * h) + 2 * gather(4 * h * h));
  const std::string none = "tp=1,pp=1,dp=16,zero=3,mbs=1,recompute=none";
  auto item = [&](const std::string& plan, bool per_tensor) {
    return ItemWith(
        z.model, z.cluster, z.job, plan,
        [&](JobSpec& j) {
          j.fsdp_per_tensor = per_tensor;
          j.fsdp_overlap = false;  // all exposed: the difference is the calls' time
        },
        "dp", "fsdp");
  };
  const TimeItem full = item(z.plan, true), plain = item(none, true);
  EXPECT_GT(expected, 0.0);
  EXPECT_NEAR(full.total.value() - plain.total.value(), expected, 1e-9 * expected);
  EXPECT_NEAR(full.exposed.value() - plain.exposed.value(), expected, 1e-9 * expected);
  // torch FSDP's unshard before the backward serves the recomputed forward.
  EXPECT_DOUBLE_EQ(item(z.plan, false).total.value(), item(none, false).total.value());
}

TEST(JobOptions, Zero3OnTheComputeStreamIsAllExposed) {
  const Zero3Case z;
  for (bool per_tensor : {false, true}) {
    const TimeItem hidden = z.Fsdp(per_tensor, true), exposed = z.Fsdp(per_tensor, false);
    EXPECT_DOUBLE_EQ(exposed.total.value(), hidden.total.value());
    EXPECT_DOUBLE_EQ(exposed.exposed.value(), exposed.total.value());
    EXPECT_LT(hidden.exposed.value(), hidden.total.value());
  }
}

// Step time (s) of `m` on `cluster` under `job` with data parallelism
// alone over 8 ranks, one sequence per micro-batch, `recompute` policy.
double Dp8Step(const ModelSpec& m, const ClusterSpec& cluster, const JobSpec& job,
               const std::string& recompute = "none") {
  auto e = EstimateStep(m, cluster, job,
                        *ParsePlan("tp=1,pp=1,dp=8,zero=1,mbs=1,recompute=" + recompute));
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e->step_time.value() : 0.0;
}

// A 2-layer Llama (h 4096) on 8 H100s, 2 micro-batches of one 4096-token
// sequence per rank; Step applies `set` to the job.
struct SmallDp8 {
  ModelSpec m = testing::Llama(2, 4096, 32, 14336);
  ClusterSpec cluster = testing::H100Cluster(8);
  JobSpec job;
  SmallDp8() {
    job.seq_len = 4096;
    job.global_batch_seqs = 16;
  }
  template <typename Set>
  double Step(Set set, const std::string& recompute = "none") const {
    JobSpec j = job;
    set(j);
    return Dp8Step(m, cluster, j, recompute);
  }
};

TEST(JobOptions, FlashAttention2RunsTheAttentionCoreAtTheChipsRatio) {
  // attention flash2 divides the attention core's time by the chip's
  // flash2_ratio and changes nothing else: the step grows by core x (1/r - 1),
  // three times as much at r = 1/4 as at r = 1/2, not at all at r = 1; the
  // memory is FlashAttention's.
  const ModelSpec m = testing::Llama(2, 4096, 32, 14336);
  JobSpec job;
  job.seq_len = 8192;
  job.global_batch_seqs = 8;
  auto estimate = [&](AttentionImpl a, double ratio) {
    ClusterSpec cluster = testing::H100Cluster(8);
    cluster.chip.flash2_ratio = ratio;
    JobSpec j = job;
    j.attention = a;
    auto e = EstimateStep(m, cluster, j, *ParsePlan("tp=1,pp=1,dp=8,zero=1,mbs=1,recompute=none"));
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? *e : Estimate{};
  };
  const Estimate fused = estimate(AttentionImpl::kFlash, 0.5);
  const double half =
      estimate(AttentionImpl::kFlash2, 0.5).step_time.value() - fused.step_time.value();
  const double quarter =
      estimate(AttentionImpl::kFlash2, 0.25).step_time.value() - fused.step_time.value();
  EXPECT_GT(half, 0.0);
  EXPECT_NEAR(quarter, 3 * half, 1e-9 * quarter);
  EXPECT_DOUBLE_EQ(estimate(AttentionImpl::kFlash2, 1.0).step_time.value(),
                   fused.step_time.value());
  EXPECT_DOUBLE_EQ(estimate(AttentionImpl::kFlash2, 0.5).memory.total().value(),
                   fused.memory.total().value());
}

TEST(JobOptions, DynamicFp8ScalingReadsEachCastTwiceAndCastsTheWeights) {
  // torchao's dynamic tensorwise scaling: each activation or gradient cast
  // reads its input once more for the amax (5 B per element against
  // Transformer Engine's 4), and each forward casts the device's 16-bit
  // weights (amax, read, FP8 write: 5 B per weight). Memory-bound at the
  // chip's HBM rate, per layer and micro-batch.
  SmallDp8 c;
  c.job.precision = Precision::kFp8;
  auto step = [&](bool dynamic, const std::string& recompute) {
    return c.Step([&](JobSpec& j) { j.fp8_dynamic_scaling = dynamic; }, recompute);
  };
  const BlockWork b = BuildModelWork(c.m, 4096).dense;
  const double tokens = 4096, bw = c.cluster.chip.hbm_bandwidth.value();
  const double cast5 = Fp8CastBytes(b, tokens, 1, 1, 1.0, 5.0) / bw;
  const double cast4 = Fp8CastBytes(b, tokens, 1, 1, 1.0, 4.0) / bw;
  const double weights5 = 5.0 * (b.attn_proj.weights + b.mlp.weights) / bw;
  const double per_micro_batch = cast5 - cast4 + weights5;
  const double expected = 2 /* layers */ * 2 /* micro-batches */ * per_micro_batch;
  EXPECT_NEAR(step(true, "none") - step(false, "none"), expected, 1e-6 * expected);
  // Operator-level checkpointing saves no cast (torchtitan's save list): its
  // backward casts the forward's inputs and the weights again, at 3 of the
  // 5 B where abs and max are saved, at all 4 B of a Transformer Engine cast.
  const double recast = 0.6 * (0.5 * cast5 + weights5) - 0.5 * cast4;
  const double expected_sac = 2 * 2 * (per_micro_batch + recast);
  EXPECT_NEAR(step(true, "selective_op") - step(false, "selective_op"), expected_sac,
              1e-6 * expected_sac);
  // Under BF16 the option reads nothing.
  c.job.precision = Precision::kBf16;
  EXPECT_DOUBLE_EQ(step(true, "none"), step(false, "none"));
}

TEST(JobOptions, AnUnfusedLossPaysItsPassesOverTheLogits) {
  // Over the forward and backward, per logit, against the fused loss's
  // 2 x 10 B: PyTorch's cross_entropy on pred.float(), eager, 48 B (the fp32
  // copy, log_softmax's three reads and a write, nll_loss's gradient,
  // log_softmax's backward, the cast back); Megatron-Core's unfused
  // VocabParallelCrossEntropy 52 B (the fp32 copy 6, max 4, subtract 8, exp
  // 8, sum 4, divide 8; scale 8, cast back 6). Memory-bound at the chip's
  // HBM rate, on every micro-batch's tokens.
  const SmallDp8 c;
  auto step = [&](CrossEntropyImpl impl, bool compiled) {
    return c.Step([&](JobSpec& j) {
      j.cross_entropy = impl;
      j.compiled_loss = compiled;
    });
  };
  const double logits = 2.0 * 4096 * static_cast<double>(c.m.vocab);  // per rank and step
  const double hbm = c.cluster.chip.hbm_bandwidth.value();
  const double fused = step(CrossEntropyImpl::kFused, false);
  const double eager = (48.0 - 20.0) * logits / hbm;
  EXPECT_NEAR(step(CrossEntropyImpl::kEager, false) - fused, eager, 1e-6 * eager);
  const double vocab_parallel = (52.0 - 20.0) * logits / hbm;
  EXPECT_NEAR(step(CrossEntropyImpl::kVocabParallel, false) - fused, vocab_parallel,
              1e-6 * vocab_parallel);
  // Compiled, Inductor fuses the cast, log-softmax and NLL: the fused passes.
  EXPECT_DOUBLE_EQ(step(CrossEntropyImpl::kEager, true), fused);
  EXPECT_DOUBLE_EQ(step(CrossEntropyImpl::kVocabParallel, true),
                   step(CrossEntropyImpl::kVocabParallel, false));
}

TEST(JobOptions, UnfusedGradientAccumulationPaysAPassPerParameterAndMicroBatch) {
  // Megatron-LM's DDP hook, param.main_grad.add_(param.grad.data), on each
  // of the 2 micro-batches: the 2-byte gradient read, the main-grad buffer
  // read and written (4 B each in fp32, 2 B with 16-bit gradients), for
  // every parameter the rank holds (tp = pp = 1: all of them), memory-bound
  // at the chip's HBM rate.
  const SmallDp8 c;
  auto step = [&](bool fused, bool bf16_gradients) {
    return c.Step([&](JobSpec& j) {
      j.grad_accumulation_fusion = fused;
      j.bf16_gradients = bf16_gradients;
    });
  };
  auto e = EstimateStep(c.m, c.cluster, c.job, *ParsePlan("tp=1,pp=1,dp=8,zero=1,mbs=1"));
  ASSERT_TRUE(e.ok());
  const double params = static_cast<double>(e->params_total);
  const double hbm = c.cluster.chip.hbm_bandwidth.value();
  const double fp32 = 2.0 * params * (2.0 + 2.0 * 4.0) / hbm;
  EXPECT_NEAR(step(false, false) - step(true, false), fp32, 1e-6 * fp32);
  const double bf16 = 2.0 * params * (2.0 + 2.0 * 2.0) / hbm;
  EXPECT_NEAR(step(false, true) - step(true, true), bf16, 1e-6 * bf16);
}

TEST(JobOptions, MegatronsUnfusedLossHoldsWhatTheFusedOneHolds) {
  // VocabParallelCrossEntropy works in place on its one fp32 copy of the
  // logits and keeps it as the softmax for the backward: the fused loss's
  // memory (16-bit logits + fp32 softmax), where PyTorch's eager one peaks
  // higher in its log-softmax backward.
  const ModelSpec m = testing::Llama(2, 4096, 32, 14336);
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 16;
  auto memory = [&](CrossEntropyImpl impl) {
    JobSpec j = job;
    j.cross_entropy = impl;
    auto e = EstimateStep(m, testing::H100Cluster(8), j,
                          *ParsePlan("tp=1,pp=1,dp=8,zero=1,mbs=1,recompute=none"));
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? e->memory.total().value() : 0.0;
  };
  EXPECT_DOUBLE_EQ(memory(CrossEntropyImpl::kVocabParallel), memory(CrossEntropyImpl::kFused));
  EXPECT_GT(memory(CrossEntropyImpl::kEager), memory(CrossEntropyImpl::kFused));
}

TEST(JobOptions, Fp8TrainingKeepsTheHeadIn16Bit) {
  // Megatron-Core's output layer, torchtitan's "output" and DeepSeek-V3's
  // head stay 16-bit under FP8 training: what a larger vocabulary adds to
  // the step (the head's GEMMs, the loss's element-wise passes) is then the
  // same in an FP8 job as in a BF16 one; with the head in FP8 it is less.
  auto step = [](int64_t vocab, Precision precision, bool fp8_head) {
    ModelSpec m = testing::Llama(4, 4096, 32, 14336);
    m.vocab = vocab;
    JobSpec job;
    job.seq_len = 4096;
    job.global_batch_seqs = 8;
    job.precision = precision;
    job.fp8_output_proj = fp8_head;
    return Dp8Step(m, testing::H100Cluster(8), job);
  };
  const double bf16 = step(256000, Precision::kBf16, false) - step(128000, Precision::kBf16, false);
  const double fp8 = step(256000, Precision::kFp8, false) - step(128000, Precision::kFp8, false);
  const double fp8_head = step(256000, Precision::kFp8, true) - step(128000, Precision::kFp8, true);
  EXPECT_GT(bf16, 0.0);
  EXPECT_NEAR(fp8, bf16, 1e-9 * bf16);
  EXPECT_LT(fp8_head, fp8);
  // The option reads only under FP8.
  EXPECT_DOUBLE_EQ(step(128000, Precision::kBf16, true), step(128000, Precision::kBf16, false));
}

TEST(JobOptions, PerTensorZero3HoldsWeightMatricesNotBlocks) {
  // DeepSpeed's hooks gather one module's weights before its forward and
  // release them after it: what stays unsharded is a weight matrix (the
  // largest here the V x h word embedding, 8192 x 2048 against fc1's
  // 2048 x 8192 and the 1024 x 2048 position table), one at a time when the
  // gathers are synchronous and two with a prefetched next one. The
  // gradients' buffers do not depend on the prefetch.
  const double h = 2048, vocab = 8192, matrix = vocab * h;
  const ModelSpec model = testing::Gpt(4, 2048, 16, 8192);
  const Zero3Case z;
  auto other = [&](bool per_tensor, bool overlap) {
    JobSpec job = z.job;
    job.fsdp_per_tensor = per_tensor;
    job.fsdp_overlap = overlap;
    auto e = EstimateStep(model, z.cluster, job, *ParsePlan(z.plan));
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? e->memory.other.value() : 0.0;
  };
  EXPECT_NEAR(other(true, true) - other(true, false), 2 * matrix, 1e-6 * matrix);
  // FSDP2's per-block units hold two gathered blocks and the root unit (the
  // embedding, gathered through the forward) instead.
  EXPECT_LT(other(true, true), other(false, true));
}

TEST(JobOptions, GradientReductionsMoveTheGradientsInTheirOwnDtype) {
  // ZeRO-3: per micro-batch and block, the reduce-scatter moves 2 B per
  // parameter instead of 4 B when the job keeps 16-bit gradients (DeepSpeed's
  // fp16 param.grad).
  const Zero3Case z;
  const double m = 2, layers = 4;
  const RankGroup dp{16, 1};
  const double block = BuildModelWork(z.model, 2048).dense.params_dense;
  auto rs = [&](double bytes) {
    return EstimateCollective(z.cluster, CollectiveOp::kReduceScatter, Bytes(bytes), dp)
        .time.value();
  };
  const double expected = m * layers * (rs(4 * block) - rs(2 * block));
  const TimeItem fp32 = z.Fsdp(false, true);
  const TimeItem bf16 = ItemWith(
      z.model, z.cluster, z.job, z.plan, [](JobSpec& j) { j.bf16_gradients = true; }, "dp", "fsdp");
  EXPECT_GT(expected, 0.0);
  // The blocks' share exactly; the embedding and head units shrink as well.
  EXPECT_GT(fp32.total.value() - bf16.total.value(), expected * (1 - 1e-9));
  // ZeRO-1: the once-per-step gradient reduce-scatter of the whole stage.
  const std::string zero1 = "tp=1,pp=1,dp=16,zero=1,mbs=1,recompute=full";
  const TimeItem g32 = ItemWith(
      z.model, z.cluster, z.job, zero1, [](JobSpec&) {}, "dp", "gradient");
  const TimeItem g16 = ItemWith(
      z.model, z.cluster, z.job, zero1, [](JobSpec& j) { j.bf16_gradients = true; }, "dp",
      "gradient");
  EXPECT_GT(g16.total.value(), 0.0);
  EXPECT_LT(g16.total.value(), g32.total.value());
}

// PyTorch's torch.distributed.pipelining (job torch_pipelining, stage.py)
// keeps each in-flight micro-batch's stage output (fwd_cache) and one
// activation and one gradient receive buffer per micro-batch for the step;
// a received activation in flight is the stored input of the stage's first
// block. One boundary tensor B = b s h x 2 B (tp = 1). 1F1B with p = 4 and
// m = 256 / (16 x 1) = 16 micro-batches: device d holds p - d in flight.
TEST(JobOptions, TorchPipeliningKeepsStageOutputsAndReceiveBuffers) {
  const ModelSpec model = testing::Gpt(24, 2048, 16, 51200);
  const ClusterSpec cluster = testing::H100Cluster(64);
  JobSpec job;
  job.seq_len = 1024;
  job.global_batch_seqs = 256;
  const PlanSpec plan = *ParsePlan("tp=1,pp=4,dp=16,mbs=1,schedule=1f1b,recompute=full");
  auto per_device = [&](bool torch) {
    job.torch_pipelining = torch;
    const auto step = StepModel::Create(model, cluster, job);
    EXPECT_TRUE(step.ok()) << step.status().message();
    auto r = step->Evaluate(plan);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r->memory_per_device;
  };
  const std::vector<MemoryBreakdown> megatron = per_device(false);
  const std::vector<MemoryBreakdown> torch = per_device(true);
  ASSERT_EQ(megatron.size(), 4u);
  ASSERT_EQ(torch.size(), 4u);
  const double b = 1024.0 * kHidden * 2.0;
  const double p = 4, m = 16;
  for (int d = 0; d < 4; ++d) {
    const double inflight = p - d;
    const bool sends = d < 3;
    const bool receives = d > 0;
    const double outputs = sends ? inflight * b : 0.0;
    const double buffers = ((sends ? m : 0.0) + (receives ? m - inflight : 0.0)) * b;
    EXPECT_NEAR(torch[d].activations.value() - megatron[d].activations.value(), outputs, 1e-6 * b)
        << d;
    EXPECT_NEAR(torch[d].other.value() - megatron[d].other.value(), buffers, 1e-6 * b) << d;
  }
}

}  // namespace
}  // namespace occam
