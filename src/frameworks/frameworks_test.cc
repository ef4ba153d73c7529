// Each framework's own rules, with values derived from its documented
// constraints (doc/frameworks.md gives the source of each).
#include "occam/frameworks.h"

#include <gtest/gtest.h>

#include <string>

namespace occam {
namespace {

struct Inputs {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
};

Inputs Make(const char* model, const char* cluster, int64_t chips, int64_t seq, int64_t batch) {
  Inputs s;
  s.model = *CatalogModel(model);
  s.cluster = *CatalogCluster(cluster, chips);
  s.job.seq_len = seq;
  s.job.global_batch_seqs = batch;
  return s;
}

PlanSpec Plan(const char* text) { return *ParsePlan(text); }

std::vector<std::string> Check(Framework f, const Inputs& s, const PlanSpec& p) {
  return CheckFramework(f, s.model, s.cluster, s.job, p);
}

bool Mentions(const std::vector<std::string>& problems, const std::string& what) {
  for (const auto& p : problems) {
    if (p.find(what) != std::string::npos) return true;
  }
  return false;
}

std::string Emit(Framework f, const Inputs& s, const PlanSpec& p) {
  auto c = WriteFrameworkConfig(f, s.model, s.cluster, s.job, p);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c->text : "";
}

// Megatron-LM: DeepSeek-V3 on 2,048 GPUs, TP1 PP16 EP64 DP128 (the worked
// example of doc/frameworks.md): DP = 2048/(1*16*1); 61 layers over 16
// stages need a layout; MTP sits on the last stage before the loss.
TEST(MegatronRules, DeepSeekV3Layout) {
  const Inputs s = Make("deepseek-v3", "h800", 2048, 4096, 15360);
  const PlanSpec p = Plan("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b");
  ASSERT_TRUE(Check(Framework::kMegatron, s, p).empty());
  const std::string t = Emit(Framework::kMegatron, s, p);
  EXPECT_NE(t.find("--pipeline-model-parallel-size 16"), std::string::npos);
  EXPECT_NE(t.find("--expert-model-parallel-size 64"), std::string::npos);
  EXPECT_NE(t.find("--use-distributed-optimizer"), std::string::npos);
  EXPECT_NE(t.find("--global-batch-size 15360"), std::string::npos);
  // The layout lists 16 stages ("|" separated) holding all 61 layers, then MTP and loss.
  const size_t at = t.find("--pipeline-model-parallel-layout \"");
  ASSERT_NE(at, std::string::npos);
  const std::string layout = t.substr(at + 34, t.find('"', at + 34) - at - 34);
  EXPECT_EQ(std::count(layout.begin(), layout.end(), '|'), 15);
  EXPECT_EQ(layout.substr(0, 1), "E");
  EXPECT_EQ(layout.substr(layout.size() - 3), ",mL");
  int64_t layers = 0;
  for (size_t i = 0; i + 1 < layout.size(); ++i) {
    if (layout[i] == 't' && layout[i + 1] == '*') layers += std::stoll(layout.substr(i + 2));
  }
  EXPECT_EQ(layers, 61);
}

// schedules.py: no DualPipe, no zero-bubble, no GPipe for PP > 1.
TEST(MegatronRules, SchedulesItLacks) {
  const Inputs s = Make("deepseek-v3", "h800", 2048, 4096, 15360);
  for (const char* sched : {"dualpipe", "zb-h1", "gpipe"}) {
    const PlanSpec p =
        Plan((std::string("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=") + sched).c_str());
    EXPECT_TRUE(Mentions(Check(Framework::kMegatron, s, p), "has no " + std::string(sched)))
        << sched;
  }
  EXPECT_TRUE(Mentions(Check(Framework::kMegatron, s,
                             Plan("tp=1,pp=16,vpp=2,ep=64,dp=128,zero=1,mbs=1,schedule=dualpipev")),
                       "has no dualpipev"));
}

// schedules.py: with the default group size N = PP the interleaved schedule
// needs M mod PP == 0; PP16, M = 15360/128 = 120 gives 120 mod 16 = 8.
TEST(MegatronRules, InterleavedMicroBatchCount) {
  const Inputs s = Make("deepseek-v3", "h800", 2048, 4096, 15360);
  const PlanSpec bad = Plan("tp=1,pp=16,vpp=2,ep=64,dp=128,zero=1,mbs=1,schedule=interleaved");
  EXPECT_TRUE(Mentions(Check(Framework::kMegatron, s, bad), "m = 120"));
  Inputs ok = s;
  ok.job.global_batch_seqs = 128 * 128;  // M = 128, a multiple of 16
  EXPECT_TRUE(Check(Framework::kMegatron, ok, bad).empty());
}

// An explicit axis order other than Megatron's tp-cp-ep-dp-pp.
TEST(MegatronRules, RankOrder) {
  const Inputs s = Make("llama-3.1-70b", "h100", 64, 4096, 64);
  EXPECT_TRUE(Check(Framework::kMegatron, s, Plan("tp=8,pp=2,dp=4,order=tp/pp/dp")).size() == 1);
  EXPECT_TRUE(Check(Framework::kMegatron, s, Plan("tp=8,pp=2,dp=4,order=tp/cp/ep/dp/pp")).empty());
}

// Megatron-LM's loss is its vocab-parallel cross entropy: a fused job is
// written with --cross-entropy-loss-fusion (store-true, default off), an
// unfused one without it, and PyTorch's eager one is not expressible.
TEST(MegatronRules, CrossEntropy) {
  Inputs s = Make("llama-3.1-70b", "h100", 64, 4096, 64);
  const PlanSpec p = Plan("tp=8,pp=2,dp=4");
  EXPECT_NE(Emit(Framework::kMegatron, s, p).find("--cross-entropy-loss-fusion"),
            std::string::npos);
  s.job.cross_entropy = CrossEntropyImpl::kVocabParallel;
  EXPECT_TRUE(Check(Framework::kMegatron, s, p).empty());
  EXPECT_EQ(Emit(Framework::kMegatron, s, p).find("--cross-entropy-loss-fusion"),
            std::string::npos);
  s.job.cross_entropy = CrossEntropyImpl::kEager;
  EXPECT_TRUE(Mentions(Check(Framework::kMegatron, s, p), "no eager PyTorch cross entropy"));
}

// Gradient accumulation fusion is Megatron-LM's default: an unfused job is
// written with --no-gradient-accumulation-fusion, a fused one without it.
TEST(MegatronRules, GradientAccumulationFusion) {
  Inputs s = Make("llama-3.1-70b", "h100", 64, 4096, 64);
  const PlanSpec p = Plan("tp=8,pp=2,dp=4");
  EXPECT_EQ(Emit(Framework::kMegatron, s, p).find("--no-gradient-accumulation-fusion"),
            std::string::npos);
  s.job.grad_accumulation_fusion = false;
  EXPECT_TRUE(Check(Framework::kMegatron, s, p).empty());
  EXPECT_NE(Emit(Framework::kMegatron, s, p).find("--no-gradient-accumulation-fusion"),
            std::string::npos);
}

// torchtitan (parallel_dims.py): EP divides dp_shard*cp*tp. FSDP over 128:
// 128/64 = 2 expert-FSDP ranks; HSDP replicate 2 x shard 64: 64/64 = 1;
// replicate 128 x shard 1 (zero=0): 64 does not divide 1.
TEST(TorchtitanRules, ExpertParallelRegion) {
  Inputs s = Make("deepseek-v3", "h800", 2048, 4096, 15360);
  s.model.mtp_layers = 0;  // torchtitan's MTP does not run with PP (mtp.py)
  EXPECT_TRUE(
      Check(Framework::kTorchtitan, s, Plan("tp=1,pp=16,ep=64,dp=128,zero=3,mbs=1,schedule=1f1b"))
          .empty());
  EXPECT_TRUE(Check(Framework::kTorchtitan, s,
                    Plan("tp=1,pp=16,ep=64,dp=128,zero=3,hsdp=64,mbs=1,schedule=1f1b"))
                  .empty());
  EXPECT_TRUE(Mentions(
      Check(Framework::kTorchtitan, s, Plan("tp=1,pp=16,ep=64,dp=128,zero=0,mbs=1,schedule=1f1b")),
      "does not divide"));
  const std::string t = Emit(Framework::kTorchtitan, s,
                             Plan("tp=1,pp=16,ep=64,dp=128,zero=3,hsdp=64,mbs=1,schedule=1f1b"));
  EXPECT_NE(t.find("data_parallel_replicate_degree = 2\n"), std::string::npos);
  EXPECT_NE(t.find("data_parallel_shard_degree = 64\n"), std::string::npos);
  EXPECT_NE(t.find("local_batch_size = 120\n"), std::string::npos);  // 15360 / 128 per DP rank
}

// FSDP2 always shards weights: ZeRO-1/2 are not expressible; MTP with PP is not.
TEST(TorchtitanRules, ShardingAndMtp) {
  const Inputs s = Make("deepseek-v3", "h800", 2048, 4096, 15360);
  const auto p =
      Check(Framework::kTorchtitan, s, Plan("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b"));
  EXPECT_TRUE(Mentions(p, "no ZeRO-1"));
  EXPECT_TRUE(Mentions(p, "multi-token prediction"));
}

// PyTorch Interleaved1F1B: M % max(1, M // PP) == 0. PP = 4, dp = 4:
// batch 56 gives M = 14, 14 // 4 = 3 and 14 % 3 = 2: fails; batch 40 gives
// M = 10, 10 // 4 = 2 and 10 % 2 = 0: passes.
TEST(TorchtitanRules, InterleavedMicroBatchRule) {
  Inputs s = Make("llama-3.1-8b", "h100", 16, 4096, 56);
  EXPECT_TRUE(Mentions(Check(Framework::kTorchtitan, s,
                             Plan("tp=1,pp=4,vpp=2,dp=4,zero=3,mbs=1,schedule=interleaved")),
                       "M = 14"));
  s.job.global_batch_seqs = 40;
  EXPECT_TRUE(Check(Framework::kTorchtitan, s,
                    Plan("tp=1,pp=4,vpp=2,dp=4,zero=3,mbs=1,schedule=interleaved"))
                  .empty());
  EXPECT_TRUE(
      Mentions(Check(Framework::kTorchtitan, s, Plan("tp=1,pp=4,dp=4,zero=3,mbs=1,schedule=zb-h1")),
               "ZB-H1"));
}

// MaxText (max_utils.py): ICI product = chips per slice, DCN product =
// slices. Llama 70B on 8 nodes of 8 H100: tp 8 fills a node, fsdp 8 spans them.
TEST(MaxTextRules, MeshSplitsAtTheSlice) {
  const Inputs s = Make("llama-3.1-70b", "h100", 64, 4096, 64);
  const std::string t = Emit(Framework::kMaxText, s, Plan("tp=8,dp=8,zero=3,mbs=1,recompute=full"));
  EXPECT_NE(t.find("num_slices: 8\n"), std::string::npos);
  EXPECT_NE(t.find("ici_tensor_parallelism: 8\n"), std::string::npos);
  EXPECT_NE(t.find("ici_fsdp_parallelism: 1\n"), std::string::npos);
  EXPECT_NE(t.find("dcn_fsdp_parallelism: 8\n"), std::string::npos);
  // per device = mbs*dp/chips = 8/64; accumulation = 64/(8*1).
  EXPECT_NE(t.find("per_device_batch_size: 0.125\n"), std::string::npos);
  EXPECT_NE(t.find("gradient_accumulation_steps: 8\n"), std::string::npos);
  EXPECT_NE(t.find("remat_policy: full\n"), std::string::npos);
}

// DeepSeek-V3 on one v5p slice of 2,048 chips, pure FSDP: all ICI, pdbs 8 =
// 16384 sequences / 2048 chips.
TEST(MaxTextRules, DeepSeekV3Fsdp) {
  const Inputs s = Make("deepseek-v3", "tpu-v5p", 2048, 4096, 16384);
  const std::string t =
      Emit(Framework::kMaxText, s, Plan("tp=1,dp=2048,zero=3,mbs=8,recompute=full"));
  EXPECT_NE(t.find("ici_fsdp_parallelism: 2048\n"), std::string::npos);
  EXPECT_NE(t.find("num_slices: 1\n"), std::string::npos);
  EXPECT_NE(t.find("per_device_batch_size: 8.0\n"), std::string::npos);
}

// sharding.md: only GPipe and circular pipelines; no ZeRO-2; the expert axis
// acts as FSDP, so ep > 1 needs zero=3; experts shard over the tensor axis.
TEST(MaxTextRules, WhatItCannotExpress) {
  const Inputs s = Make("mixtral-8x7b", "tpu-v5p", 64, 4096, 128);
  EXPECT_TRUE(Mentions(
      Check(Framework::kMaxText, s, Plan("tp=1,pp=4,dp=16,zero=3,mbs=1,schedule=1f1b")), "GPipe"));
  EXPECT_TRUE(
      Check(Framework::kMaxText, s, Plan("tp=1,pp=4,dp=16,zero=3,mbs=1,schedule=gpipe")).empty());
  EXPECT_TRUE(Mentions(Check(Framework::kMaxText, s, Plan("tp=1,dp=64,zero=2,mbs=1")), "ZeRO-2"));
  EXPECT_TRUE(
      Mentions(Check(Framework::kMaxText, s, Plan("tp=1,dp=64,ep=8,zero=1,mbs=1")), "zero=3"));
  EXPECT_TRUE(
      Mentions(Check(Framework::kMaxText, s, Plan("tp=2,dp=32,etp=1,zero=3,mbs=1")), "etp"));
  // GPipe micro-batches must be a multiple of the stages: m = 128/(16*1) = 8
  // fits pp=4; m = 128/(16*4) = 2 does not.
  EXPECT_TRUE(
      Mentions(Check(Framework::kMaxText, s, Plan("tp=1,pp=4,dp=16,zero=3,mbs=4,schedule=gpipe")),
               "% stages"));
}

// The nearest expressible plan: DualPipe in Megatron-LM becomes a schedule
// it runs, on the same degrees, with an estimate.
TEST(Nearest, DualPipeInMegatron) {
  const Inputs s = Make("deepseek-v3", "h800", 2048, 4096, 15360);
  auto step = StepModel::Create(s.model, s.cluster, s.job);
  ASSERT_TRUE(step.ok());
  auto o = EmitForFramework(Framework::kMegatron, *step,
                            Plan("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=dualpipe"));
  ASSERT_TRUE(o.ok()) << o.status().message();
  ASSERT_FALSE(o->problems.empty());
  ASSERT_TRUE(o->nearest.has_value());
  EXPECT_TRUE(Check(Framework::kMegatron, s, *o->nearest).empty());
  EXPECT_EQ(o->nearest->ep, 64);
  EXPECT_GT(o->nearest_estimate->step_time.value(), 0);
  EXPECT_NE(EmitText(*o).find("cannot express"), std::string::npos);
}

}  // namespace
}  // namespace occam
