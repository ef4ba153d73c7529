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

// DeepSeek-V3 on 2048 H800s with a 15.36M-token batch (arXiv:2412.19437 §3.2,
// §4.2: 4096 x 3840 sequences; PP16, EP64, DP128 is the published layout).
Case DeepSeek() {
  Case s{*CatalogModel("deepseek-v3"), *CatalogCluster("h800", 2048), JobSpec{}};
  s.job.seq_len = 4096;
  s.job.global_batch_seqs = 3840;
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
  ExpectError(DeepSeek(), "tp=8,pp=16,ep=32,dp=16", "ep=32 must divide dp*cp=16");
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

TEST(ValidatePlan, StageLayers) {
  const Case s = DeepSeek();
  // 61 layers over 16 stages: 4 stages of 3 and 12 of 4 = 12 + 48 = 60, one short.
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,stages=3/3/3/3/4/4/4/4/4/4/4/4/4/4/4/4",
              "sum to 60 but the model has 61");
  EXPECT_EQ(Check(s, "tp=1,pp=16,ep=64,dp=128,stages=4/4/4/4/4/4/4/4/4/4/4/4/4/3/3/3"), "");
  ExpectError(s, "tp=1,pp=16,ep=64,dp=128,stages=30/31", "lists 2 stages but pp*vpp = 16");
}

TEST(ValidatePlan, OrderMustPlaceEveryAxis) {
  ExpectError(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,order=ep/dp", "axis pp=16 is not placed");
  EXPECT_EQ(Check(DeepSeek(), "tp=1,pp=16,ep=64,dp=128,order=ep/dp/pp"), "");
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
