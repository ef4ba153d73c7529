// ValidatePlan: each rule accepts a valid layout and rejects a broken one
// with a message naming the plan field.
#include <gtest/gtest.h>

#include <string>

#include "occam/spec.h"

namespace occam {
namespace {

struct Case {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
};

// DeepSeek-V3 on 2048 H800s with its final batch of 15360 sequences of 4096
// tokens (arXiv:2412.19437 §3.2, §4.2; PP16, EP64, DP128 is the published layout).
Case DeepSeek() {
  Case s{*CatalogModel("deepseek-v3"), *CatalogCluster("h800", 2048), JobSpec{}};
  s.job.seq_len = 4096;
  s.job.global_batch_seqs = 15360;
  return s;
}

std::string Check(const Case& s, const std::string& plan_text) {
  auto plan = ParsePlan(plan_text);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return "parse";
  Status st = ValidatePlan(s.model, s.cluster, s.job, *plan);
  return st.ok() ? "" : st.message();
}

void ExpectError(const Case& s, const std::string& plan, const std::string& fragment) {
  const std::string msg = Check(s, plan);
  EXPECT_NE(msg.find(fragment), std::string::npos) << plan << " -> '" << msg << "'";
}

TEST(ValidatePlan, PublishedDeepSeekLayoutIsValid) {
  EXPECT_EQ(Check(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=dualpipe"), "");
  EXPECT_EQ(Check(DeepSeek(), "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=dualpipev"), "");
}

TEST(ValidatePlan, CompactMeshOnlyOnATorus) {
  const std::string plan = "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=dualpipe,mesh=compact";
  ExpectError(DeepSeek(), plan, "plan field 'mesh'");
  Case tpu = DeepSeek();
  tpu.cluster = *CatalogCluster("tpu-v5p", 2048);
  EXPECT_EQ(Check(tpu, plan), "");
  EXPECT_EQ(Check(tpu, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe,mesh=linear"), "");
}

// Megatron-LM's recompute modules need the parts they name; offload needs
// experts and a chip with a host link.
TEST(ValidatePlan, MemorySavers) {
  const std::string base = "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=dualpipe";
  EXPECT_EQ(Check(DeepSeek(), base + ",recompute=layernorm+mla_up_proj+moe_act"), "");
  EXPECT_EQ(Check(DeepSeek(), base + ",offload=expert_fc1"), "");
  Case llama{*CatalogModel("llama-3.1-8b"), *CatalogCluster("h100", 8), JobSpec{}};
  llama.job.seq_len = 8192;
  llama.job.global_batch_seqs = 16;
  ExpectError(llama, "dp=8,recompute=mla_up_proj", "needs multi-head latent attention");
  ExpectError(llama, "dp=8,recompute=moe_act", "need an MoE model");
  ExpectError(llama, "dp=8,offload=expert_fc1", "plan field 'offload'");
  EXPECT_EQ(Check(llama, "dp=8,recompute=core_attn+layernorm+mlp"), "");
  Case tpu = DeepSeek();
  tpu.cluster.chip.host_link_bandwidth = BytesPerSecond(0);
  ExpectError(tpu, base + ",offload=expert_fc1", "host_link_gbps");
  Case even = DeepSeek();
  even.job.global_batch_seqs = 16384;  // 128 micro-batches: a multiple of pp for interleaving
  EXPECT_EQ(Check(even,
                  "tp=1,pp=16,vpp=2,ep=64,dp=128,zero=1,mbs=1,schedule=interleaved,a2a_overlap=1,"
                  "recompute=layernorm+moe_act"),
            "");
  ExpectError(even,
              "tp=1,pp=16,vpp=2,ep=64,dp=128,zero=1,mbs=1,schedule=interleaved,a2a_overlap=1,"
              "recompute=moe",
              "recompute module moe");
}

TEST(ValidatePlan, ChipCount) {
  ExpectError(DeepSeek(), "tp=1,pp=16,ep=64,dp=64", "plan field 'dp'");
  ExpectError(DeepSeek(), "tp=1,pp=16,ep=64,dp=64", "use dp=128");
}

TEST(ValidatePlan, HeadsAndKvHeads) {
  Case s{*CatalogModel("llama-3.1-70b"), *CatalogCluster("h100", 64), JobSpec{}};
  s.job.global_batch_seqs = 512;
  EXPECT_EQ(Check(s, "tp=8,dp=8"), "");
  EXPECT_EQ(Check(s, "tp=16,dp=4"), "");  // 16 is a multiple of the 8 KV heads
  EXPECT_EQ(Check(s, "tp=64,dp=1"), "");  // one head per rank, KV heads replicated
  s.model.attention.num_kv_heads = 8;
  s.model.attention.num_heads = 48;
  ExpectError(s, "tp=32,dp=2", "attention heads are not divisible by tp=32");
  s.model.attention.num_heads = 96;
  s.model.attention.num_kv_heads = 12;
  ExpectError(s, "tp=8,dp=8", "12 KV heads and tp=8");
}

TEST(ValidatePlan, Experts) {
  ExpectError(DeepSeek(), "tp=1,pp=16,ep=48,dp=128", "256 experts are not divisible by ep=48");
  // Parallel folding (arXiv:2504.14960): ep*etp divides tp*cp*dp, so the
  // expert group may span the tp ranks (8*16 = 128 ranks per stage here).
  EXPECT_EQ(Check(DeepSeek(), "tp=8,pp=16,ep=64,dp=16"), "");
  EXPECT_EQ(Check(DeepSeek(), "tp=8,pp=16,ep=128,dp=16"), "");
  EXPECT_EQ(Check(DeepSeek(), "tp=8,pp=16,ep=32,etp=4,dp=16"), "");
  ExpectError(DeepSeek(), "tp=8,pp=16,ep=256,dp=16", "ep*etp = 256 must divide tp*cp*dp = 128");
  ExpectError(DeepSeek(), "tp=8,pp=16,ep=64,etp=4,dp=16", "ep*etp = 256 must divide");
  ExpectError(DeepSeek(), "tp=4,pp=16,ep=64,etp=8,dp=32", "etp=8 must divide tp=4");
  // The hint names an ep that divides the experts and the ranks: 256 and 2*16*3.
  Case odd = DeepSeek();
  odd.cluster = *CatalogCluster("h800", 2 * 16 * 3);
  odd.job.global_batch_seqs = 3 * 64;
  ExpectError(odd, "tp=2,pp=16,ep=64,dp=3", "plan field 'ep'");
  ExpectError(odd, "tp=2,pp=16,ep=64,dp=3", "e.g. ep=2");
  EXPECT_EQ(Check(odd, "tp=2,pp=16,ep=2,dp=3"), "");
  Case dense{*CatalogModel("llama-3.1-8b"), *CatalogCluster("h100", 8), JobSpec{}};
  dense.job.global_batch_seqs = 64;
  ExpectError(dense, "tp=1,dp=8,ep=2", "the model is dense");
}

TEST(ValidatePlan, BatchMustSplitIntoMicroBatches) {
  ExpectError(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,mbs=7", "plan field 'mbs'");
  Case s = DeepSeek();
  s.job.global_batch_seqs = 0;
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128", "global_batch_seqs is not set");
}

TEST(ValidatePlan, ContextParallelNeedsTwoChunksPerRank) {
  Case s = DeepSeek();
  s.job.seq_len = 4096 + 8;  // divisible by 8 but not by 2*8
  ExpectError(s, "tp=1,cp=8,pp=16,ep=16,dp=16", "2*cp = 16");
  s.job.seq_len = 4096;
  EXPECT_EQ(Check(s, "tp=1,cp=8,pp=16,ep=16,dp=16"), "");
}

TEST(ValidatePlan, PipelineSchedules) {
  const Case s = DeepSeek();
  ExpectError(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=1f1b", "vpp > 1 needs schedule");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=zbv", "set vpp=2");
  ExpectError(s, "tp=1,pp=16,vpp=3,ep=64,dp=128,schedule=dualpipev", "set vpp=2");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=interleaved", "interleaved needs vpp >= 2");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=none", "needs a pipeline schedule");
  Case flat{*CatalogModel("llama-3.1-8b"), *CatalogCluster("h100", 8), JobSpec{}};
  flat.job.global_batch_seqs = 64;
  ExpectError(flat, "tp=8,dp=1,schedule=1f1b", "use schedule=none");
  Case deep{*CatalogModel("gpt2-xl"), *CatalogCluster("h100", 64), JobSpec{}};
  deep.job.global_batch_seqs = 64;
  ExpectError(deep, "tp=1,pp=32,vpp=2,dp=2,schedule=interleaved", "exceed the model's 48 layers");
}

// m = global_batch_seqs / (dp*mbs) micro-batches per pipeline; the rules are
// the simulator's (src/sim/schedules.cc): interleaved m % pp == 0, zbv
// m >= 2pp-1, dualpipe even pp, even m, m >= 2pp, dualpipev m >= 2pp.
TEST(ValidatePlan, ScheduleNeedsEnoughMicroBatches) {
  Case s = DeepSeek();
  const int64_t pp = 16, dp = 128;
  s.job.global_batch_seqs = dp * (2 * pp - 2);  // m = 2pp - 2 = 30: even but too few
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe", "plan field 'schedule'");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe", "at least 2*pp = 32");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe", "= 30 micro-batches");
  ExpectError(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=dualpipev", "at least 2*pp = 32");
  ExpectError(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=zbv", "at least 2*pp-1 = 31");
  // Schedules without a micro-batch rule run any m >= 1.
  for (const char* sched : {"gpipe", "1f1b", "zb-h1"}) {
    EXPECT_EQ(Check(s, std::string("tp=1,pp=16,ep=64,dp=128,schedule=") + sched), "") << sched;
  }
  s.job.global_batch_seqs = dp * (2 * pp - 1);  // m = 31 fits zbv but is odd for dualpipe
  EXPECT_EQ(Check(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=zbv"), "");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe", "even micro-batch count");
  s.job.global_batch_seqs = dp * 2 * pp;  // m = 32
  EXPECT_EQ(Check(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe"), "");
  EXPECT_EQ(Check(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=dualpipev"), "");
  // Interleaved: m = 120 is not a multiple of 16; m = 240 (dp = 64) is.
  const Case d = DeepSeek();
  ExpectError(d, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=interleaved", "multiple of pp=16");
  EXPECT_EQ(Check(d, "tp=2,pp=16,vpp=2,ep=64,dp=64,schedule=interleaved"), "");
}

TEST(ValidatePlan, ScheduleHintNamesAFittingMbs) {
  // 15360/128 = 120 sequences per replica; mbs=4 gives m = 30 < 32 for
  // dualpipe. The hinted mbs must make the plan valid.
  const std::string msg = Check(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,mbs=4,schedule=dualpipe");
  const size_t at = msg.find("use mbs=");
  ASSERT_NE(at, std::string::npos) << msg;
  const int64_t mbs = std::stoll(msg.substr(at + 8));
  EXPECT_LT(mbs, 4);
  EXPECT_EQ(Check(DeepSeek(),
                  "tp=1,pp=16,ep=64,dp=128,mbs=" + std::to_string(mbs) + ",schedule=dualpipe"),
            "");
  // No micro-batch size helps an odd pp or a batch too small for the schedule.
  Case odd{*CatalogModel("llama-3.1-8b"), *CatalogCluster("h100", 24), JobSpec{}};
  odd.job.global_batch_seqs = 64;
  ExpectError(odd, "tp=8,pp=3,dp=1,schedule=dualpipe", "use an even pp or schedule=dualpipev");
  Case small = DeepSeek();
  small.job.global_batch_seqs = 128 * 8;  // m <= 8 < 32 for any mbs
  ExpectError(small, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe", "lower pp or dp");
}

TEST(ValidatePlan, StageLayers) {
  const Case s = DeepSeek();
  // 61 layers over 16 stages: 4 stages of 3 and 12 of 4 = 12 + 48 = 60, one short.
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,stages=3/3/3/3/4/4/4/4/4/4/4/4/4/4/4/4",
              "sum to 60 but the model has 61");
  EXPECT_EQ(Check(s, "tp=1,pp=16,ep=64,dp=128,stages=4/4/4/4/4/4/4/4/4/4/4/4/4/3/3/3"), "");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,stages=30/31", "lists 2 stages but pp*vpp = 16");
}

TEST(ValidatePlan, UnevenEnds) {
  const Case s = DeepSeek();  // 61 layers
  // 3 + 14 x 4 + 2 = 61 (Megatron-LM's DeepSeek-V3 split on 16 ranks).
  EXPECT_EQ(Check(s, "tp=1,pp=16,ep=64,dp=128,first_layers=3,last_layers=2"), "");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,first_layers=3", "set together");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,first_layers=4,last_layers=2",
              "do not split evenly over the 14 middle ranks");
  // With interleaving each end splits over its rank's chunks.
  ExpectError(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=interleaved,first_layers=3,last_layers=2",
              "divisible by vpp=2");
  ExpectError(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=zbv,first_layers=3,last_layers=2",
              "looped chunk placement");
  ExpectError(s,
              "tp=1,pp=16,ep=64,dp=128,first_layers=3,last_layers=2,"
              "stages=4/4/4/4/4/4/4/4/4/4/4/4/4/3/3/3",
              "cannot be combined with stages");
}

TEST(ValidatePlan, OrderMustPlaceEveryAxis) {
  ExpectError(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,order=ep/dp", "axis pp=16 is not placed");
  EXPECT_EQ(Check(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,order=ep/dp/pp"), "");
}

// Megatron-Core combined 1F1B rules (transformer_config.py overlap checks,
// moe_a2a_overlap.md "Requirements").
TEST(ValidatePlan, A2aOverlapRules) {
  const Case s = DeepSeek();
  // pp=1 and interleaved pipelines are accepted (m = 15360/1024 = 15; 120 with dp=128).
  EXPECT_EQ(Check(s, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=1"), "");
  EXPECT_EQ(Check(s, "tp=2,pp=8,vpp=2,ep=64,dp=128,schedule=interleaved,a2a_overlap=1"), "");
  EXPECT_EQ(Check(s, "tp=2,pp=1,ep=64,dp=1024,recompute=selective,a2a_overlap=1"), "");
  EXPECT_EQ(Check(s, "tp=2,pp=1,ep=64,dp=1024,zero=3,a2a_overlap=1"), "");
  const std::string f = "plan field 'a2a_overlap'";
  ExpectError(s, "tp=2,pp=1,ep=1,dp=1024,a2a_overlap=1", f + ": needs expert parallelism");
  ExpectError(s, "tp=2,pp=8,ep=64,dp=128,schedule=1f1b,a2a_overlap=1",
              f + ": with pp > 1 it needs schedule=interleaved");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe,a2a_overlap=1",
              f + ": dualpipe already overlaps");
  ExpectError(s, "tp=1,pp=16,vpp=2,ep=64,dp=128,schedule=dualpipev,a2a_overlap=1",
              f + ": dualpipev already overlaps");
  ExpectError(s, "tp=2,pp=1,ep=64,dp=1024,recompute=full,a2a_overlap=1",
              f + ": does not combine with recompute=full");
  ExpectError(s, "tp=2,pp=8,vpp=2,ep=64,dp=128,zero=3,schedule=interleaved,a2a_overlap=1",
              f + ": with zero=3");
  Case mtp2 = s;
  mtp2.model.mtp_layers = 2;
  ExpectError(mtp2, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=1", f + ": supports at most one MTP");
  Case dense{*CatalogModel("llama-3.1-70b"), *CatalogCluster("h100", 64), JobSpec{}};
  dense.job.global_batch_seqs = 512;
  ExpectError(dense, "tp=8,dp=8,a2a_overlap=1", f + ": the model is dense");
}

// Two-batch overlap (MaxText use_batch_split_schedule) needs no pipeline
// shape, runs with full recompute and with several MTP modules; the
// shared-expert overlap needs a shared expert. Neither combines with
// DualPipe, nor runs without expert parallelism.
TEST(ValidatePlan, TwoBatchAndSharedExpertOverlapRules) {
  const Case s = DeepSeek();
  const std::string f = "plan field 'a2a_overlap'";
  for (const char* m : {"tbo", "shared"}) {
    const std::string on = std::string(",a2a_overlap=") + m;
    EXPECT_EQ(Check(s, "tp=2,pp=1,ep=64,dp=1024" + on), "") << m;
    EXPECT_EQ(Check(s, "tp=2,pp=1,ep=64,dp=1024,recompute=full" + on), "") << m;
    EXPECT_EQ(Check(s, "tp=2,pp=8,ep=64,dp=128,schedule=1f1b" + on), "") << m;
    EXPECT_EQ(Check(s, "tp=2,pp=8,vpp=2,ep=64,dp=128,zero=3,schedule=interleaved" + on), "") << m;
    ExpectError(s, "tp=2,pp=1,ep=1,dp=1024" + on, f + ": needs expert parallelism");
    ExpectError(s, "tp=1,pp=16,ep=64,dp=128,schedule=dualpipe" + on, f + ": dualpipe already");
  }
  Case mtp2 = s;
  mtp2.model.mtp_layers = 2;
  EXPECT_EQ(Check(mtp2, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=tbo"), "");
  Case unshared = s;
  unshared.model.moe->num_shared_experts = 0;
  ExpectError(unshared, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=shared",
              f + ": shared hides the all-to-all behind the shared expert");
  EXPECT_EQ(Check(unshared, "tp=2,pp=1,ep=64,dp=1024,a2a_overlap=tbo"), "");
}

TEST(ValidatePlan, ProgrammaticPlansAreCheckedToo) {
  PlanSpec p;
  p.dp = 2048;
  p.zero = 7;
  EXPECT_NE(ValidatePlan(DeepSeek().model, DeepSeek().cluster, DeepSeek().job, p)
                .message()
                .find("plan field 'zero'"),
            std::string::npos);
  p.zero = 1;
  p.hsdp = 3;
  EXPECT_NE(ValidatePlan(DeepSeek().model, DeepSeek().cluster, DeepSeek().job, p)
                .message()
                .find("plan field 'hsdp'"),
            std::string::npos);
}

}  // namespace
}  // namespace occam
