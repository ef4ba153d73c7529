// Framework settings of published runs: each framework's defaults, the dated
// defaults of pre-2023 software and the settings runs state in free text
// (run_framework.cc).
#include <gtest/gtest.h>

#include <tuple>
#include <utility>
#include <vector>

#include "validate/run_setup.h"
#include "validate/run_test_util.h"
#include "validate/run_text.h"
#include "validate/validate_internal.h"

namespace occam::validate {
namespace {

using testing::BundledRun;
using testing::HasFilled;

TEST(RunFramework, YearComesFromTheDateField) {
  PublishedRun r;
  EXPECT_EQ(RunYear(r), 0);  // no date stated
  r.date = "2021-04";
  EXPECT_EQ(RunYear(r), 2021);
  r.date = "2023";
  EXPECT_EQ(RunYear(r), 2023);
  // The source's free text plays no part: a year in it is not a date.
  r.date.reset();
  r.source = "Chowdhery et al. 2022";
  EXPECT_EQ(RunYear(r), 0);
}

TEST(RunFramework, AttentionKernelFollowsTheDateAndDropoutTheFramework) {
  // Before FlashAttention reached the frameworks (runs dated up to 2022):
  // materialised scores; a Megatron-LM run of that time also ran with
  // dropout and without overlapped gradient reduction.
  auto old = BuildRunSetup(BundledRun("korthikanti2022_175B_selective_sp"));
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->job.attention, AttentionImpl::kMaterialized);
  EXPECT_TRUE(old->job.dropout);
  EXPECT_FALSE(old->job.overlap_grad_reduce);
  EXPECT_TRUE(HasFilled(old->filled, "job.attention"));
  EXPECT_TRUE(HasFilled(old->filled, "job.overlap_grad_reduce"));
  EXPECT_TRUE(HasFilled(old->filled, "job.dropout"));
  // The same run on another framework keeps only the attention kernel.
  PublishedRun jax = BundledRun("korthikanti2022_175B_selective_sp");
  jax.framework = "maxtext";
  auto other = BuildRunSetup(jax);
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_EQ(other->job.attention, AttentionImpl::kMaterialized);
  EXPECT_FALSE(other->job.dropout);
  EXPECT_TRUE(other->job.overlap_grad_reduce);
  // A 2023 run and a 2024 one keep the defaults, and fill nothing.
  for (const char* id : {"llama1_65b_2048gpu", "dgxc_gpt3_175b_bf16_128gpu"}) {
    auto now = BuildRunSetup(BundledRun(id));
    ASSERT_TRUE(now.ok()) << id << ": " << now.status().message();
    EXPECT_EQ(now->job.attention, AttentionImpl::kFlash) << id;
    EXPECT_FALSE(now->job.dropout) << id;
    EXPECT_TRUE(now->job.overlap_grad_reduce) << id;
    EXPECT_FALSE(HasFilled(now->filled, "job.attention")) << id;
  }
  // An undated run keeps the defaults.
  PublishedRun r = BundledRun("narayanan2021_t1_1.7B_32gpu");
  r.date.reset();
  auto undated = BuildRunSetup(r);
  ASSERT_TRUE(undated.ok()) << undated.status().message();
  EXPECT_EQ(undated->job.attention, AttentionImpl::kFlash);
}

TEST(RunFramework, TorchtitanBeforePyTorch29RanFlashAttention2) {
  // SDPA's cuDNN backend was opt-in from October 2024 until PyTorch 2.9's
  // default of September 2025: the December 2024 benchmark ran
  // FlashAttention-2; the same run dated after it, the fused kernel.
  const PublishedRun base = BundledRun("torchtitan_l31_8b_fsdp_8gpu_bf16");
  auto dec2024 = BuildRunSetup(base);
  ASSERT_TRUE(dec2024.ok()) << dec2024.status().message();
  EXPECT_EQ(dec2024->job.attention, AttentionImpl::kFlash2);
  EXPECT_TRUE(HasFilled(dec2024->filled, "job.attention"));
  for (const char* date : {"2025-09", "2026-01"}) {
    PublishedRun later = base;
    later.date = date;
    auto now = BuildRunSetup(later);
    ASSERT_TRUE(now.ok()) << now.status().message();
    EXPECT_EQ(now->job.attention, AttentionImpl::kFlash) << date;
    EXPECT_FALSE(HasFilled(now->filled, "job.attention")) << date;
  }
  // Megatron-family runs of the same time run Transformer Engine's fused
  // (cuDNN) attention.
  auto te = BuildRunSetup(BundledRun("dgxc_gpt3_175b_bf16_128gpu"));
  ASSERT_TRUE(te.ok());
  EXPECT_EQ(te->job.attention, AttentionImpl::kFlash);
}

TEST(RunFramework, TorchtitanFloat8ScalesDynamically) {
  // torchtitan's float8 defaults (config_manager.py at 9dec370): dynamic
  // scaling, 16-bit FSDP all-gather. Its BF16 runs and the Megatron-family
  // FP8 runs keep Transformer Engine's casts.
  auto fp8 = BuildRunSetup(BundledRun("torchtitan_l31_8b_fsdp_compile_fp8_8gpu"));
  ASSERT_TRUE(fp8.ok()) << fp8.status().message();
  EXPECT_TRUE(fp8->job.fp8_dynamic_scaling);
  EXPECT_TRUE(HasFilled(fp8->filled, "job.fp8_dynamic_scaling"));
  for (const char* id : {"torchtitan_l31_8b_fsdp_8gpu_bf16", "dgxc_gpt3_175b_fp8_128gpu"}) {
    auto other = BuildRunSetup(BundledRun(id));
    ASSERT_TRUE(other.ok()) << id;
    EXPECT_FALSE(other->job.fp8_dynamic_scaling) << id;
  }
}

TEST(RunFramework, DeepSpeedZero3Of2021IssuesPerTensorCollectivesOnTheComputeStream) {
  // A run whose ZeRO is DeepSpeed's, dated up to 2021: one collective per
  // parameter tensor, overlap_comm false.
  auto ds = BuildRunSetup(BundledRun("narayanan2021_t2_zero3_174.6B_768gpu"));
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  EXPECT_TRUE(ds->job.fsdp_per_tensor);
  EXPECT_FALSE(ds->job.fsdp_overlap);
  EXPECT_TRUE(HasFilled(ds->filled, "job.fsdp_per_tensor"));
  EXPECT_TRUE(HasFilled(ds->filled, "job.fsdp_overlap"));
  // DeepSpeed's ZeRO reduces the 16-bit param.grad itself.
  EXPECT_TRUE(ds->job.bf16_gradients);
  EXPECT_TRUE(HasFilled(ds->filled, "job.gradients"));
  auto megatron = BuildRunSetup(BundledRun("narayanan2021_t2_ptdp_174.6B_384gpu"));
  ASSERT_TRUE(megatron.ok()) << megatron.status().message();
  EXPECT_FALSE(megatron->job.bf16_gradients);
  // The framework field alone says DeepSpeed as well.
  PublishedRun named = BundledRun("narayanan2021_t2_zero3_174.6B_768gpu");
  named.framework = "deepspeed";
  named.parallel.zero = "ZeRO-3";
  auto by_name = BuildRunSetup(named);
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  EXPECT_TRUE(by_name->job.fsdp_per_tensor);
  // A later date, or another ZeRO implementation, keeps the defaults.
  PublishedRun later = BundledRun("narayanan2021_t2_zero3_174.6B_768gpu");
  later.date = "2022-06";
  PublishedRun other = BundledRun("narayanan2021_t2_zero3_174.6B_768gpu");
  other.parallel.zero = "FSDP (PyTorch)";
  for (const PublishedRun& r : {later, other}) {
    auto s = BuildRunSetup(r);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_FALSE(s->job.fsdp_per_tensor) << *r.date << " " << *r.parallel.zero;
    EXPECT_TRUE(s->job.fsdp_overlap) << *r.date << " " << *r.parallel.zero;
    EXPECT_FALSE(HasFilled(s->filled, "job.fsdp_per_tensor"));
  }
}

TEST(RunFramework, DefaultsFillWhatTheRunLeavesUnstated) {
  // Megatron-LM: plain data parallelism first (and only, in 2021: no
  // distributed optimizer, no FSDP yet), no recompute first, 1F1B.
  PublishedRun r = BundledRun("narayanan2021_t2_ptdp_174.6B_384gpu");
  auto m = BuildRunSetup(r);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->order.zero, std::vector<int>{0});
  EXPECT_EQ(m->plan.schedule, Schedule::k1F1B);
  EXPECT_FALSE(m->open.schedule);
  EXPECT_TRUE(HasFilled(m->filled, "parallel.schedule"));
  // The same run with no framework: the schedule stays open.
  r.framework.reset();
  auto u = BuildRunSetup(r);
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_TRUE(u->open.schedule);
  // NeMo: the distributed optimizer (ZeRO-1) first; recompute none first,
  // then the heavier policies.
  auto nemo = BuildRunSetup(BundledRun("nemo2407_llama3_8b_8gpu"));
  ASSERT_TRUE(nemo.ok()) << nemo.status().message();
  EXPECT_EQ(nemo->order.zero, (std::vector<int>{1, 3}));
  EXPECT_EQ(nemo->order.recompute,
            (std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull}));
  // MaxText: FSDP (ZeRO-3) and full rematerialisation.
  const FrameworkDefaults x = DefaultsOf(Framework::kMaxText);
  EXPECT_EQ(x.zero, 3);
  EXPECT_EQ(x.recompute, Recompute::kFull);
  // torchtitan: FSDP2 keeps the gathered weights under pipeline parallelism.
  const FrameworkDefaults t = DefaultsOf(Framework::kTorchtitan);
  EXPECT_EQ(t.recompute, Recompute::kSelective);
  EXPECT_TRUE(t.fsdp_keeps_weights_under_pp);
  // A stated --overlap-param-gather implies Megatron's distributed optimizer.
  auto readme = BuildRunSetup(BundledRun("megatron_readme_h100_70B_768gpu"));
  ASSERT_TRUE(readme.ok()) << readme.status().message();
  EXPECT_EQ(readme->plan.zero, 1);
  EXPECT_FALSE(readme->open.zero);
}

TEST(RunFramework, StatedPipelineCommOverlapMeansTheInterleavedSchedule) {
  // The Megatron-LM README runs state pipeline-parallel communication
  // overlap, which Megatron-LM runs only in the interleaved schedule: pp = 2
  // stated, the schedule interleaved and its degree open (every v with a
  // split, the fewest first).
  const PublishedRun r = BundledRun("megatron_readme_h100_70B_768gpu");
  EXPECT_TRUE(InterleavedImpliedByFlags(r, Framework::kMegatronLm));
  auto m = BuildRunSetup(r);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->plan.schedule, Schedule::kInterleaved);
  EXPECT_TRUE(m->open.vpp);
  EXPECT_FALSE(m->open.schedule);
  EXPECT_TRUE(HasFilled(m->filled, "parallel.schedule"));
  ValidateOptions o;
  const RunValidation v = ValidateOne(r, o);
  ASSERT_TRUE(v.predicted.has_value()) << v.skipped_reason;
  EXPECT_NE(v.plan.find("schedule=interleaved"), std::string::npos) << v.plan;
  EXPECT_NE(v.plan.find("vpp=2,"), std::string::npos) << v.plan;
  // A stated schedule wins over the implication.
  PublishedRun stated = r;
  stated.parallel.schedule = "1F1B";
  auto s = BuildRunSetup(stated);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->plan.schedule, Schedule::k1F1B);
  // The strong-scaling run states no layout: every pipelined candidate is
  // interleaved.
  auto open = BuildRunSetup(BundledRun("megatron_readme_h100_177B_strong_4608gpu"));
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_TRUE(open->open.schedule);
  EXPECT_EQ(open->order.schedule, Schedule::kInterleaved);
  // Only Megatron-Core overlaps it this way; and without the statement the
  // framework's default (1F1B) stands.
  EXPECT_FALSE(InterleavedImpliedByFlags(r, Framework::kTorchtitan));
  PublishedRun silent = r;
  silent.parallel.other.reset();
  EXPECT_FALSE(InterleavedImpliedByFlags(silent, Framework::kMegatronLm));
  auto d = BuildRunSetup(silent);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->plan.schedule, Schedule::k1F1B);
}

TEST(RunFramework, MegatronEndsFollowItsRules) {
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(MegatronEnds(128, 64, 1), P(2, 2));  // even: 128 / 64
  EXPECT_EQ(MegatronEnds(96, 8, 3), P(12, 12));  // even over 24 chunks
  // DeepSeek-V3, 61 layers on 16 ranks: 3 + 14 x 4 + 2 (Megatron-LM's own example).
  EXPECT_EQ(MegatronEnds(61, 16, 1), P(3, 2));
  // Llama 3.1 405B, 126 layers on 8 ranks x 2 chunks: 16 + 6 x 16 + 14.
  EXPECT_EQ(MegatronEnds(126, 8, 2), P(16, 14));
  // Every answer obeys the rules it stands for.
  for (auto [l, pp, v] : {std::tuple{126, 8, 2}, {61, 16, 1}, {94, 4, 3}, {61, 4, 1}}) {
    const auto e = MegatronEnds(l, pp, v);
    if (!e) continue;
    const int64_t middle = l - e->first - e->second;
    EXPECT_EQ(e->first % v, 0);
    EXPECT_EQ(e->second % v, 0);
    EXPECT_EQ(middle % ((pp - 2) * v), 0) << l << " " << pp << " " << v;
    EXPECT_LE(std::max(e->first, e->second), middle / (pp - 2));
  }
  // 61 layers on 2 ranks x 8 chunks: both ends multiples of 8 cannot sum to 61.
  EXPECT_FALSE(MegatronEnds(61, 2, 8).has_value());
}

TEST(RunFramework, MegatronRunsGetMegatronsLayerSplit) {
  // Korthikanti et al. 2022 1T: 128 layers on 64 ranks, 1F1B (interleaving is
  // stated only for 175B and 530B): Megatron-LM's even split, 2 per rank.
  ValidateOptions o;
  const RunValidation v = ValidateOne(BundledRun("korthikanti2022_1T_full_recompute"), o);
  ASSERT_TRUE(v.predicted.has_value()) << v.skipped_reason;
  EXPECT_NE(v.plan.find("first_layers=2,last_layers=2"), std::string::npos) << v.plan;
  EXPECT_TRUE(HasFilled(v.filled, "pipeline split"));
}

TEST(RunFramework, StatedSettings) {
  // Grok-1 on DGX Cloud: token dropping at capacity 1.0 and TP comm overlap
  // (its recipe, named in its source); experts over the tp group first
  // (Megatron-Core's default for an unset expert TP size), then etp = 1.
  auto grok = BuildRunSetup(BundledRun("dgxc_grok1_314b_bf16_512gpu"));
  ASSERT_TRUE(grok.ok()) << grok.status().message();
  EXPECT_DOUBLE_EQ(grok->job.capacity_factor, 1.0);
  EXPECT_EQ(grok->order.etp_over_tp, (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(grok->job.tp_comm_overlap);
  // MaxText v5p: XLA async collective fusion. Megatron-Bridge states neither.
  auto maxtext = BuildRunSetup(BundledRun("maxtext_v5p_512b_1x_v5p-1024"));
  ASSERT_TRUE(maxtext.ok()) << maxtext.status().message();
  EXPECT_TRUE(maxtext->job.tp_comm_overlap);
  auto bridge = BuildRunSetup(BundledRun("mbridge_2604_h100_qwen3_235b_256gpu"));
  ASSERT_TRUE(bridge.ok()) << bridge.status().message();
  EXPECT_FALSE(bridge->job.tp_comm_overlap);
  EXPECT_EQ(bridge->job.capacity_factor, 0.0);
  // Its definition says the routing is force-balanced: every EP rank gets the mean load.
  EXPECT_DOUBLE_EQ(bridge->job.moe_imbalance, 1.0);
  EXPECT_EQ(grok->job.moe_imbalance, 0.0);  // simulated, then capped by the capacity
}

// Megatron-LM's loss is unfused unless the run states
// --cross-entropy-loss-fusion (store-true, default off); other frameworks'
// runs keep the fused default.
TEST(RunFramework, MegatronLmRunsTheUnfusedLossUnlessFusionIsStated) {
  PublishedRun r;
  r.source = "NVIDIA/Megatron-LM README";
  r.framework = "megatron-lm";
  JobSpec job;
  std::vector<std::pair<std::string, std::string>> filled;
  SetStatedJobSettings(r, &job, &filled);
  EXPECT_EQ(job.cross_entropy, CrossEntropyImpl::kVocabParallel);
  EXPECT_TRUE(HasFilled(filled, "job.cross_entropy"));
  r.parallel.other = "--cross-entropy-loss-fusion --overlap-grad-reduce";
  JobSpec fused;
  filled.clear();
  SetStatedJobSettings(r, &fused, &filled);
  EXPECT_EQ(fused.cross_entropy, CrossEntropyImpl::kFused);
  EXPECT_FALSE(HasFilled(filled, "job.cross_entropy"));
  r.framework = "nemo";
  r.parallel.other.reset();
  JobSpec nemo;
  SetStatedJobSettings(r, &nemo, &filled);
  EXPECT_EQ(nemo.cross_entropy, CrossEntropyImpl::kFused);
}

// Megatron-LM fused gradient accumulation into the weight-gradient GEMM on
// 2022-02-13 (commit 83b1e42f30): a Megatron-LM run dated before adds every
// micro-batch's gradient into the main-grad buffer; one dated after, one of
// another framework and one whose gradients DeepSpeed's ZeRO handles do not.
TEST(RunFramework, MegatronLmBefore2022AccumulatesGradientsUnfused) {
  auto fusion = [](const char* framework, const char* date, const char* zero) {
    PublishedRun r;
    r.source = "Narayanan et al. 2021";
    r.framework = framework;
    r.date = date;
    if (zero[0] != '\0') r.parallel.zero = zero;
    JobSpec job;
    std::vector<std::pair<std::string, std::string>> filled;
    SetDatedDefaults(r, &job, &filled);
    EXPECT_EQ(HasFilled(filled, "job.grad_accumulation_fusion"), !job.grad_accumulation_fusion);
    return job.grad_accumulation_fusion;
  };
  EXPECT_FALSE(fusion("megatron-lm", "2021-04", ""));
  EXPECT_FALSE(fusion("megatron-lm", "2022-01", ""));
  EXPECT_TRUE(fusion("megatron-lm", "2022-05", ""));
  EXPECT_TRUE(fusion("megatron-lm", "2022", ""));  // a year alone counts as its December
  EXPECT_TRUE(fusion("nemo", "2021-04", ""));
  EXPECT_TRUE(fusion("megatron-lm", "2021-04", "3 (DeepSpeed ZeRO-3)"));
}

// A run whose notes state torchtitan's ChunkedLossWrapper gets its default
// 8 chunks (components/loss.py, Config.num_chunks) unless it states a count;
// a stated training dtype bfloat16 gives BF16 weights, gradients and moments.
TEST(RunFramework, StatedChunkedLossAndBf16State) {
  PublishedRun r;
  r.source = "a torchtitan fork";
  r.notes = "AdamW, ChunkedLossWrapper around the cross-entropy loss";
  r.precision = "BF16 throughout (training dtype bfloat16: parameters, gradients and moments)";
  JobSpec job;
  std::vector<std::pair<std::string, std::string>> filled;
  SetStatedJobSettings(r, &job, &filled);
  EXPECT_EQ(job.loss_chunks, 8);
  EXPECT_TRUE(HasFilled(filled, "job.loss_chunks"));
  EXPECT_EQ(job.cross_entropy, CrossEntropyImpl::kEager);
  // torchtitan pipelines through torch.distributed.pipelining.
  EXPECT_TRUE(job.torch_pipelining);
  EXPECT_TRUE(job.bf16_master_weights && job.bf16_gradients && job.bf16_optimizer_moments);
  r.notes = "ChunkedLossWrapper (num_chunks=16)";
  r.precision = "BF16 mixed precision (fp32 master weights, grads and AdamW moments)";
  JobSpec stated;
  filled.clear();
  SetStatedJobSettings(r, &stated, &filled);
  EXPECT_EQ(stated.loss_chunks, 16);
  EXPECT_FALSE(HasFilled(filled, "job.loss_chunks"));
  EXPECT_FALSE(stated.bf16_master_weights || stated.bf16_gradients);
  // No wrapper stated: the whole micro-batch's logits.
  r.notes = "AdamW";
  JobSpec plain;
  SetStatedJobSettings(r, &plain, nullptr);
  EXPECT_EQ(plain.loss_chunks, 0);
}

TEST(RunText, NumberAfterMarker) {
  EXPECT_DOUBLE_EQ(NumberAfter("moe_expert_capacity_factor 1.25 with", "capacity_factor"), 1.25);
  EXPECT_DOUBLE_EQ(NumberAfter("capacity_factor=2", "capacity_factor"), 2.0);
  EXPECT_DOUBLE_EQ(NumberAfter("capacity_factor none", "capacity_factor"), 0.0);
  EXPECT_DOUBLE_EQ(NumberAfter("no marker here", "capacity_factor"), 0.0);
}

TEST(RunFramework, ZeroStagesFollowWhatTheFrameworkHadAtTheRunsDate) {
  PublishedRun r;
  r.framework = "megatron-lm";
  const std::vector<int> all = {0, 1, 2, 3};
  // Before the distributed optimizer reached Megatron-LM's main (2022-06):
  // plain data parallelism only.
  r.date = "2021-04";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), std::vector<int>{0});
  r.date = "2022-05";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), std::vector<int>{0});
  // Then the distributed optimizer, and no FSDP before 2024-11.
  r.date = "2022-06";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), (std::vector<int>{0, 1}));
  r.date = "2024-10";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), (std::vector<int>{0, 1}));
  r.date = "2024-11";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), all);
  // A year alone is not certainly older than a feature of that year.
  r.date = "2024";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), all);
  r.date.reset();
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kMegatronLm), all);
  // Other frameworks offer every stage at every date.
  r.date = "2021-04";
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kDeepSpeed), all);
  EXPECT_EQ(ZeroStagesOffered(r, Framework::kUnstated), all);
}

TEST(RunFramework, UnstatedZeroOfAMegatronRunOf2024IsNeverFsdp) {
  // The strong-scaling run without its stated flags (--overlap-param-gather
  // would fix ZeRO-1): no stage stated or implied.
  PublishedRun r = BundledRun("megatron_readme_h100_177B_strong_4608gpu");
  r.parallel.other.reset();
  auto s = BuildRunSetup(r);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->open.zero);
  EXPECT_EQ(s->order.zero, (std::vector<int>{0, 1}));
  EXPECT_TRUE(HasFilled(s->filled, "parallel.zero stages"));
  // Undated, the same run may shard everything.
  PublishedRun undated = r;
  undated.date.reset();
  auto u = BuildRunSetup(undated);
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->order.zero, (std::vector<int>{0, 1, 3}));
  EXPECT_FALSE(HasFilled(u->filled, "parallel.zero stages"));
}

}  // namespace
}  // namespace occam::validate
