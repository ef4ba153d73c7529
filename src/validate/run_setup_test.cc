// Interpretation of published runs: keyword rules, model shapes, stated and
// open plan fields.
#include "validate/run_setup.h"

#include <gtest/gtest.h>

#include "validate/run_test_util.h"

namespace occam::validate {
namespace {

using testing::BundledRun;
using testing::HasFilled;

TEST(RunSetup, PrecisionKeywords) {
  EXPECT_EQ(InterpretPrecision(std::string("FP8 (Transformer Engine)")), Precision::kFp8);
  EXPECT_EQ(InterpretPrecision(std::string("Float8 + torch.compile")), Precision::kFp8);
  EXPECT_EQ(InterpretPrecision(std::string("MXFP8")), Precision::kFp8);
  EXPECT_EQ(InterpretPrecision(std::string("bfloat16 compute")), Precision::kBf16);
  EXPECT_FALSE(InterpretPrecision(std::nullopt).has_value());
}

TEST(RunSetup, RecomputeKeywords) {
  EXPECT_EQ(InterpretRecompute(std::string("none (activations_checkpoint_granularity: null)")),
            Recompute::kNone);
  EXPECT_EQ(InterpretRecompute(std::string("selective AC")), Recompute::kSelective);
  // MaxText's JAX policies by name (kinds.h): every projection output kept,
  // all but the MLP's input projections, or the attention's only.
  EXPECT_EQ(InterpretRecompute(std::string("remat_policy=minimal")), Recompute::kDots);
  EXPECT_EQ(InterpretRecompute(std::string("remat_policy=save_dot_except_mlpwi")),
            Recompute::kDotsExceptMlpWi);
  EXPECT_EQ(InterpretRecompute(std::string("remat_policy=save_dot_except_mlp")),
            Recompute::kDotsExceptMlp);
  EXPECT_EQ(InterpretRecompute(std::string("full (remat_policy=full)")), Recompute::kFull);
  EXPECT_EQ(InterpretRecompute(std::string("full AC")), Recompute::kFull);
  EXPECT_FALSE(InterpretRecompute(std::nullopt).has_value());
}

TEST(RunSetup, ZeroKeywords) {
  EXPECT_EQ(InterpretZero(std::string("FSDP=0 (DDP / distributed optimizer per recipe)"))->stage,
            1);
  EXPECT_EQ(InterpretZero(std::string("distributed_fused_adam (ZeRO-1-like)"))->stage, 1);
  const auto hsdp = InterpretZero(std::string("FSDP=128 (+ pure DP = 16)"));
  EXPECT_EQ(hsdp->stage, 3);
  EXPECT_EQ(hsdp->shard_group, 128);
  const auto ici = InterpretZero(std::string("FSDP over ICI (16-way), DCN data parallel"));
  EXPECT_EQ(ici->stage, 3);
  EXPECT_EQ(ici->shard_group, 16);
  EXPECT_EQ(InterpretZero(std::string("ZeRO-3 (DeepSpeed)"))->stage, 3);
  // Written out, and FSDP that keeps the gathered weights (ZeRO-2-like).
  EXPECT_EQ(InterpretZero(std::string("Fully Sharded Data Parallel (PyTorch)"))->stage, 3);
  EXPECT_EQ(InterpretZero(std::string("FSDP, no resharding after forward"))->stage, 2);
  EXPECT_EQ(InterpretZero(std::string("FSDP (reshard_after_forward=False)"))->stage, 2);
  EXPECT_FALSE(InterpretZero(std::nullopt).has_value());
}

TEST(RunSetup, ScheduleKeywords) {
  EXPECT_EQ(InterpretSchedule(std::string("no pipeline")), Schedule::kNone);
  EXPECT_EQ(InterpretSchedule(std::string("interleaved 1F1B (VP=5)")), Schedule::kInterleaved);
  EXPECT_EQ(InterpretSchedule(std::string("1F1B")), Schedule::k1F1B);
  EXPECT_FALSE(InterpretSchedule(std::string("1F1B (interleaving not stated for this model)")));
  EXPECT_FALSE(InterpretSchedule(std::string("not stated for Table 2")));
}

TEST(RunSetup, GptModelFromArch) {
  std::vector<std::pair<std::string, std::string>> filled;
  auto m = BuildModel(BundledRun("narayanan2021_t1_1.7B_32gpu"), &filled);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->num_layers, 24);
  EXPECT_EQ(m->hidden, 2304);
  EXPECT_EQ(m->attention.head_dim, 2304 / 24);
  EXPECT_EQ(m->ffn_hidden, 9216);
  EXPECT_FALSE(m->gated_mlp);
  EXPECT_FALSE(m->moe.has_value());
}

TEST(RunSetup, UnstatedArchFieldsAreFilledAndRecorded) {
  std::vector<std::pair<std::string, std::string>> filled;
  auto m = BuildModel(BundledRun("megatron_readme_h100_1.7B_48gpu"), &filled);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->ffn_hidden, 4 * m->hidden);
  EXPECT_EQ(m->attention.num_kv_heads, m->attention.num_heads);
  EXPECT_TRUE(HasFilled(filled, "arch.ffn"));
  EXPECT_TRUE(HasFilled(filled, "arch.kv_heads"));
}

TEST(RunSetup, MoeModelFromArch) {
  std::vector<std::pair<std::string, std::string>> filled;
  auto m = BuildModel(BundledRun("dgxc_grok1_314b_bf16_512gpu"), &filled);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->moe.has_value());
  EXPECT_EQ(m->moe->num_experts, 8);
  EXPECT_EQ(m->moe->top_k, 2);
  EXPECT_EQ(m->moe->expert_ffn, 32768);
  EXPECT_TRUE(m->gated_mlp);  // GeGLU
  // The source states no vocabulary size: Megatron's padded GPT-2 one, filled.
  EXPECT_EQ(m->vocab, 51200);
  EXPECT_TRUE(HasFilled(filled, "arch.vocab"));
}

TEST(RunSetup, SlicesFromMaxTextRuns) {
  EXPECT_EQ(InterpretSlices(BundledRun("maxtext_v5e_16b_4x256")), 4);
  EXPECT_EQ(InterpretSlices(BundledRun("maxtext_v5p_32b_2x_v5p-128")), 2);
  EXPECT_EQ(InterpretSlices(BundledRun("narayanan2021_t1_1.7B_32gpu")), 1);
}

TEST(RunSetup, PublishedRunsUseTheWholeHbm) {
  // A published run did run: memory is judged against the whole HBM, not the
  // planner's default safety margin (JobSpec{}.memory_headroom).
  auto s = BuildRunSetup(BundledRun("korthikanti2022_175B_selective_sp"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GT(JobSpec{}.memory_headroom, 0.0);
  EXPECT_EQ(s->job.memory_headroom, 0.0);
}

TEST(RunSetup, UnknownSeqLenOrBatchIsASkipReason) {
  // Without a framework whose config for the model sets one, an unstated
  // sequence length is a skip reason.
  PublishedRun no_seq = BundledRun("torchtitan_l31_8b_fsdp_8gpu_bf16");
  no_seq.framework = "deepspeed";
  no_seq.source = "a table";
  auto titan = BuildRunSetup(no_seq);
  ASSERT_FALSE(titan.ok());
  EXPECT_NE(titan.status().message().find("seq_len"), std::string::npos);
  PublishedRun no_batch = BundledRun("narayanan2021_t1_1.7B_32gpu");
  no_batch.global_batch_seqs.reset();
  no_batch.global_batch_tokens.reset();
  auto r = BuildRunSetup(no_batch);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("global batch"), std::string::npos);
}

TEST(RunSetup, TorchtitanLlama3ConfigFillsSequenceSacAndMicroBatch) {
  // torchtitan's benchmark file states no sequence length; its Llama 3
  // configs set seq_len 8192 and selective_ac_option 'op', and the stated
  // local batch (2) runs as one micro-batch without a pipeline.
  auto s = BuildRunSetup(BundledRun("torchtitan_l31_8b_fsdp_8gpu_bf16"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->job.seq_len, 8192);
  EXPECT_EQ(s->plan.recompute, Recompute::kSelectiveOp);
  EXPECT_EQ(s->plan.mbs, 2);
  EXPECT_FALSE(s->open.mbs);
  // "no pipeline" states pp = 1: the local batch is one micro-batch.
  EXPECT_FALSE(s->open.pp);
  EXPECT_EQ(s->plan.pp, 1);
  EXPECT_TRUE(HasFilled(s->filled, "parallel.pp"));
  EXPECT_TRUE(HasFilled(s->filled, "seq_len"));
  EXPECT_TRUE(HasFilled(s->filled, "micro_batch"));
  // Under pipeline parallelism (Dec 2024) the local batch of 32 is split into
  // pp = 8 micro-batches of 4.
  auto pp = BuildRunSetup(BundledRun("torchtitan_l31_405b_3d_1f1b_512gpu"));
  ASSERT_TRUE(pp.ok()) << pp.status().message();
  EXPECT_EQ(pp->plan.pp, 8);
  EXPECT_EQ(pp->plan.mbs, 32 / 8);
  // The same run dated 2025, after torchtitan's micro-batch default changed,
  // keeps its micro-batch open.
  PublishedRun later = BundledRun("torchtitan_l31_405b_3d_1f1b_512gpu");
  later.date = "2025-06";
  auto open = BuildRunSetup(later);
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_TRUE(open->open.mbs);
}

TEST(RunSetup, ConfigSeqLenIsOnlyForTheFrameworksOwnModels) {
  ModelSpec llama3;
  llama3.vocab = 128256;
  EXPECT_TRUE(FrameworkConfigFor(Framework::kTorchtitan, llama3).has_value());
  EXPECT_FALSE(FrameworkConfigFor(Framework::kMegatronLm, llama3).has_value());
  ModelSpec other = llama3;
  other.vocab = 32000;
  EXPECT_FALSE(FrameworkConfigFor(Framework::kTorchtitan, other).has_value());
  ModelSpec moe = llama3;
  moe.moe = MoeSpec{};
  EXPECT_FALSE(FrameworkConfigFor(Framework::kTorchtitan, moe).has_value());
}

TEST(RunSetup, StatedSequenceParallelismNeedsTensorParallelism) {
  // LLaMA-1 65B states sequence parallelism (Korthikanti et al. 2022) and
  // leaves the degrees open: the sequence is split over the tp group, so tp
  // is at least 2.
  const PublishedRun& run = BundledRun("llama1_65b_2048gpu");
  auto s = BuildRunSetup(run);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->open.tp);
  EXPECT_EQ(s->min_tp, 2);
  EXPECT_TRUE(HasFilled(s->filled, "parallel.tp range"));
  const ValidationReport r = ValidateRuns({run});
  ASSERT_EQ(r.runs.size(), 1u);
  ASSERT_TRUE(r.runs[0].predicted.has_value()) << r.runs[0].skipped_reason;
  EXPECT_EQ(r.runs[0].plan.rfind("tp=1,", 0), std::string::npos) << r.runs[0].plan;
  // No framework stated, so ZeRO-3 is no default: it comes after every
  // model-parallel size (Narayanan et al. 2021, takeaway 2). By hand, 16-bit
  // weights and fp32 gradients (6 B per parameter) of 65.2B / tp: tp = 4
  // needs 97.8 GB of the A100's 85.9 GB, tp = 8 48.9 GB, with the optimizer
  // state (12 B) over dp = 256 another 0.4 GB (ZeRO-1; ZeRO-0 needs 147 GB).
  EXPECT_EQ(r.runs[0].plan.rfind("tp=8,pp=1,", 0), 0u) << r.runs[0].plan;
  EXPECT_NE(r.runs[0].plan.find("zero=1"), std::string::npos) << r.runs[0].plan;
  // Unstated sequence parallelism leaves tp = 1 open.
  PublishedRun plain = run;
  plain.parallel.sp.reset();
  auto u = BuildRunSetup(plain);
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->min_tp, 1);
  EXPECT_FALSE(HasFilled(u->filled, "parallel.tp range"));
}

}  // namespace
}  // namespace occam::validate
