// The accuracy gate: occam's predictions over the bundled published runs.
// The thresholds are the achieved values rounded up slightly, so accuracy can
// only ratchet (lower them when the model improves; never raise them to make
// a change pass). Results and targets: doc/validation.md.
#include "occam/validate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace occam {
namespace {

// Gate thresholds (fractions): achieved median / p90 / Korthikanti mean,
// rounded up. See doc/validation.md § "Results".
// Re-based when the bundled set grew from 118 to 145 runs (27 measured MoE
// runs of Megatron-Bridge and tpu-recipes; the 107 runs predicted before
// keep their predictions): 5.1% / 20.3% on the old set, 6.9% / 39.4% then.
// Re-based when unstated knobs came from the frameworks' defaults and the
// first layout that fits instead of the fastest (issue 14): 6.35% / 39.4%,
// two runs more skipped (no layout fits). The out-of-sample gate is
// src/validate/validate_cv_test.cc.
// Re-based when the MoE dispatcher's host time became host-bound (the device
// idles max(0, H - forward work) per sync) and the h100 row was refitted
// (0.71/256/1024, host 8.5 ms): 6.13% / 38.51%.
// Re-based when DeepSpeed ZeRO-3 of 2021 got its per-tensor collectives on
// the compute stream and the a100 row was refitted (0.89/256/768):
// 6.18% / 31.17%.
// Lowered when ZeRO-3 came after every model-parallel size where the
// framework does not default to it (LLaMA-1 65B -70.0% -> -22.8%):
// 5.30% / 28.32% (p90 28.4% before).
// DeepSpeed ZeRO-3's third gather under recompute, and the a100 row refitted
// at or below its measured plateau (0.89/256/768 -> 0.85/256/512):
// 6.04% / 27.27%.
// The nine torchtitan benchmark runs predicted from torchtitan's Llama 3
// configs (seq_len 8192, operator-level SAC, local batch as micro-batch)
// instead of skipped, all too fast on 500 W-capped H100s: 6.29% / 30.22%,
// 4 runs skipped (13 before).
// A closest recipe's recompute a first choice, the heavier policies after
// it where the row's layout does not fit: 6.16% / 29.96%.
// MaxText's remat policies read as JAX's dot-saving policies (kDots,
// kDotsExceptMlpWi) instead of Korthikanti's selective recompute: the
// tpu-v5p catalog row was fitted under the old reading (a refit around it,
// 0.86/4096/256, moves its fitted median only 4.3% -> 4.2%, so it stands):
// 6.29% / 29.96%.
// The 500 W H100's peak at the midpoint of its stated interval, and eager
// torchtitan's element-wise kernels counted one by one: 6.11% / 27.27%.
// NeMo's launcher and DGX Cloud configs as recipes: 6.29% / 25.55%.
// DeepSpeed ZeRO-3 holding weight matrices, not blocks: Narayanan et al.'s
// 640-GPU ZeRO-3 run (529.6B, micro-batch 4) fits and is predicted (+33.5%)
// instead of skipped: 6.29% / 28.38% over 142 runs, 3 skipped.
// The LM head 16-bit under FP8 training, as every framework runs it (the
// catalog's h100 row was fitted with it in FP8): 6.35% / 28.38%; and the
// MoE router 16-bit under FP8 as well: 6.42% / 28.38%.
// Lowered when the torchtitan runs of before PyTorch 2.9 ran SDPA's
// FlashAttention-2 at the H100's measured 0.522 of the fused kernels' rate:
// 6.35% / 25.90%.
// Re-based when the catalog became the output of `occam validate --fit`, the
// procedure of every --cv fold, on all runs (no hash split, no constraint on
// one source's runs, no hand refit), and the dispatcher's host idle a FLOP
// share of the MoE block's time: 6.63% / 22.77%. The Korthikanti et al.
// 2022 mean, 3.65% until then only under a fit constraint on those runs
// (doc/validation.md, "Calibration fit"), is 9.52% without it.
// Megatron-LM before 2022-02 adding each micro-batch's gradient into its
// main-grad buffer (the Narayanan et al. 2021 runs) and the a100 row refitted
// (0.71 -> 0.76): 6.26% / 23.87%, the p90 up as the faster A100 row moves
// the DeepSpeed ZeRO-3 rows of the same paper (not Megatron-LM's DDP) up to
// it; out of sample 8.15% -> 7.80% with the p90 unchanged (25.09%). The
// Korthikanti mean 9.52% -> 6.52%.
// Two fills from the runs' own sources: the Megatron-LM README's stated
// pipeline-parallel communication overlap, which Megatron-LM runs only in the
// interleaved schedule, and DGX Cloud's MaxText recipe (remat_policy custom,
// keeping the projections, dgxc-benchmarking v24.11.1 maxtext/configure.sh)
// for its Llama 2 70B rows; the h100 row refitted (0.62/0 -> 0.60/64): 5.99%
// / 22.67%.
constexpr double kMaxMedianError = 0.060;
constexpr double kMaxP90Error = 0.227;
constexpr double kMaxKorthikantiMeanError = 0.066;
constexpr int64_t kMaxSkipped = 3;
// Throughput runs whose layout occam's memory model judges not to fit though
// their source ran them (doc/validation.md, "Memory per chip"): 12 MaxText
// v5e, 7 MaxText v5p, the DGX Cloud Nemotron-340B BF16 row (85.7 of 85.5 GB
// with its recipe's bf16 gradients), 3 Megatron-Bridge MoE rows.
constexpr size_t kMaxLayoutNotFit = 23;

const ValidationReport& Report() {
  static const ValidationReport report = [] {
    auto runs = BundledRuns();
    return runs.ok() ? ValidateRuns(*runs) : ValidationReport{};
  }();
  return report;
}

TEST(ValidateGate, EveryRunIsPredictedOrSkippedWithAReason) {
  const ValidationReport& r = Report();
  ASSERT_FALSE(r.runs.empty());
  for (const RunValidation& v : r.runs) {
    EXPECT_NE(v.predicted.has_value(), !v.skipped_reason.empty()) << v.id;
    if (v.predicted) {
      EXPECT_TRUE(std::isfinite(*v.predicted) && *v.predicted > 0) << v.id;
      EXPECT_FALSE(v.plan.empty()) << v.id;
    }
    std::printf("%-46s %-22s %10.4g %10.4g %+7.1f%%  %s%s\n", v.id.c_str(),
                std::string(MetricKindName(v.kind)).c_str(), v.measured, v.predicted.value_or(0),
                100 * v.rel_error.value_or(0), v.plan.c_str(),
                v.skipped_reason.empty() ? "" : ("SKIPPED: " + v.skipped_reason).c_str());
  }
}

TEST(ValidateGate, MedianAndP90ErrorWithinThresholds) {
  const ValidationReport& r = Report();
  std::printf("all: %lld runs, median %.2f%%, p90 %.2f%%, mean %.2f%%; skipped %lld\n",
              static_cast<long long>(r.all.runs), 100 * r.all.median, 100 * r.all.p90,
              100 * r.all.mean, static_cast<long long>(r.skipped));
  for (const ErrorStats& f : r.families) {
    std::printf("  %-20s %3lld runs median %6.2f%% p90 %6.2f%% worst %s\n", f.group.c_str(),
                static_cast<long long>(f.runs), 100 * f.median, 100 * f.p90, f.worst_id.c_str());
  }
  EXPECT_LE(r.all.median, kMaxMedianError);
  EXPECT_LE(r.all.p90, kMaxP90Error);
  EXPECT_LE(r.skipped, kMaxSkipped);
}

// Each listed run is a predicted throughput run that carries the memory note
// and whose layout occam's own estimate puts over the chip.
TEST(ValidateGate, LayoutsJudgedNotToFitAreListed) {
  const ValidationReport& r = Report();
  EXPECT_LE(r.layout_not_fit.size(), kMaxLayoutNotFit);
  size_t noted = 0;
  for (const RunValidation& v : r.runs) {
    if (v.kind == MetricKind::kMemoryPerChipBytes || !v.predicted) continue;
    bool note = false;
    for (const auto& [field, how] : v.filled) note |= field == "memory";
    EXPECT_EQ(note, !v.memory_fits) << v.id;
    if (note) {
      ++noted;
      EXPECT_NE(std::find(r.layout_not_fit.begin(), r.layout_not_fit.end(), v.id),
                r.layout_not_fit.end())
          << v.id;
      EXPECT_EQ(v.bottleneck.rfind("does not fit", 0), 0u) << v.id;
    }
  }
  EXPECT_EQ(noted, r.layout_not_fit.size());
}

TEST(ValidateGate, AtLeastTwentyMoeRunsArePredicted) {
  // Issue 14's acceptance: MoE runs, MLA ones (DeepSeek-V3, Kimi K2) among
  // them, are predicted rather than skipped.
  const ValidationReport& r = Report();
  int64_t moe = 0, mla = 0;
  for (const RunValidation& v : r.runs) {
    if (!v.is_moe || !v.predicted) continue;
    ++moe;
    if (v.id.find("dsv3") != std::string::npos || v.id.find("kimi") != std::string::npos) ++mla;
  }
  EXPECT_GE(moe, 20);
  EXPECT_GE(mla, 1);
}

TEST(ValidateGate, KorthikantiMeanStepTimeError) {
  const ValidationReport& r = Report();
  ASSERT_TRUE(r.korthikanti.has_value());
  std::printf("Korthikanti et al. 2022: %lld runs, mean |step-time error| %.2f%%\n",
              static_cast<long long>(r.korthikanti->runs), 100 * r.korthikanti->mean);
  EXPECT_EQ(r.korthikanti->runs, 9);
  EXPECT_LE(r.korthikanti->mean, kMaxKorthikantiMeanError);
}

TEST(ValidateGate, ReportedTokensPerSecondSetTheFlopCount) {
  // Megatron-Bridge Qwen3-30B-A3B states 205 TFLOP/s and 8901 tokens/s per GPU
  // (16 GPUs, 1024 x 4096 tokens per step): the prediction converts through
  // their ratio, so its relative error is that of tokens/s.
  const ValidationReport& r = Report();
  for (const RunValidation& v : r.runs) {
    if (v.id != "mbridge_2604_h100_qwen3_30b_16gpu") continue;
    ASSERT_TRUE(v.predicted.has_value());
    const double tokens_per_s = 1024.0 * 4096 / (v.predicted_step_time_s * 16);
    EXPECT_NEAR(*v.predicted, 205 * tokens_per_s / 8901, 1e-9 * *v.predicted);
    return;
  }
  ADD_FAILURE() << "run not found";
}

TEST(ValidateGate, SummaryStatisticsByNearestRank) {
  std::vector<RunValidation> v(10);
  std::vector<const RunValidation*> ptrs;
  for (int i = 0; i < 10; ++i) {
    v[i].id = "r" + std::to_string(i);
    v[i].rel_error = (i % 2 == 0 ? 1 : -1) * 0.01 * (i + 1);  // |e| = 1%..10%
    ptrs.push_back(&v[i]);
  }
  const ErrorStats s = SummarizeErrors("t", ptrs);
  EXPECT_EQ(s.runs, 10);
  EXPECT_DOUBLE_EQ(s.median, 0.05);  // 5th of 10
  EXPECT_DOUBLE_EQ(s.p90, 0.09);     // 9th of 10
  EXPECT_NEAR(s.mean, 0.055, 1e-12);
  EXPECT_EQ(s.worst_id, "r9");
}

}  // namespace
}  // namespace occam
