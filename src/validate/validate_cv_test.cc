// Leave-one-source-out cross-validation: the source families, the folds'
// independence from the runs they predict, and the out-of-sample gate; and
// the catalog's calibration, which must be the same fit on all runs.
// Thresholds are the achieved values rounded up (they may only ratchet
// down); results: doc/validation.md "Out of sample".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "occam/memory_error.h"
#include "occam/search.h"
#include "occam/spec.h"
#include "occam/validate.h"

namespace occam {
namespace {

TEST(SourceFamily, RepositoriesByNamePapersByAuthorsAndYear) {
  EXPECT_EQ(SourceFamily("NVIDIA/dgxc-benchmarking, tag v24.11.1, grok1/README_314b.md"),
            "dgxc-benchmarking");
  // A project that moved owners stays one family.
  EXPECT_EQ(SourceFamily("google/maxtext (now AI-Hypercomputer/maxtext) README 'Runtime'"),
            "maxtext");
  EXPECT_EQ(SourceFamily("AI-Hypercomputer/maxtext docs/reference/models/tiering.md"), "maxtext");
  // Two tables of one paper are one family.
  EXPECT_EQ(SourceFamily("Narayanan et al. 2021 (SC'21), Table 2 'Comparison'"),
            "narayanan et al. 2021");
  EXPECT_EQ(SourceFamily("Narayanan et al. 2021, 'Efficient Large-Scale'"),
            "narayanan et al. 2021");
  EXPECT_EQ(SourceFamily("no year here"), "no year here");
}

std::vector<PublishedRun> Subset(const std::vector<PublishedRun>& all,
                                 const std::vector<std::string>& families) {
  std::vector<PublishedRun> out;
  for (const PublishedRun& r : all) {
    for (const std::string& f : families) {
      if (SourceFamily(r.source) == f) out.push_back(r);
    }
  }
  return out;
}

// Leave-one-source-out cross-validation of `runs` on two workers.
CrossValidationReport CrossValidateOnTwo(const std::vector<PublishedRun>& runs) {
  ValidateOptions o;
  o.threads = 2;
  return CrossValidateBySource(runs, o);
}

// Runs `in` selects (by index): each predicted in both reports with the
// same value; returns how many were compared.
template <typename Pred>
int ExpectSamePredictions(const CrossValidationReport& a, const CrossValidationReport& b, Pred in) {
  int compared = 0;
  for (size_t i = 0; i < a.summary.runs.size(); ++i) {
    if (!in(i)) continue;
    const RunValidation &x = a.summary.runs[i], &y = b.summary.runs[i];
    EXPECT_TRUE(x.predicted && y.predicted) << x.id;
    if (x.predicted && y.predicted) {
      EXPECT_DOUBLE_EQ(*x.predicted, *y.predicted) << x.id;
    }
    ++compared;
  }
  return compared;
}

// Whether any run `in` selects got a different prediction in b than in a.
template <typename Pred>
bool AnyPredictionMoved(const CrossValidationReport& a, const CrossValidationReport& b, Pred in) {
  for (size_t i = 0; i < a.summary.runs.size(); ++i) {
    const RunValidation &x = a.summary.runs[i], &y = b.summary.runs[i];
    if (in(i) && x.predicted && y.predicted &&
        std::fabs(*x.predicted - *y.predicted) > 1e-9 * *x.predicted) {
      return true;
    }
  }
  return false;
}

// A fold never sees the runs it predicts: changing the measured values of
// one source family leaves that family's out-of-fold predictions unchanged
// (and changes the in-sample errors, so the check is not vacuous).
TEST(CrossValidation, HeldOutMeasurementsDoNotReachTheirOwnPredictions) {
  auto bundled = BundledRuns();
  ASSERT_TRUE(bundled.ok());
  std::vector<PublishedRun> runs =
      Subset(*bundled, {"korthikanti et al. 2022", "narayanan et al. 2021"});
  ASSERT_GE(runs.size(), 20u);
  const CrossValidationReport a = CrossValidateOnTwo(runs);
  std::vector<PublishedRun> changed = runs;
  for (PublishedRun& r : changed) {
    if (SourceFamily(r.source) == "korthikanti et al. 2022") r.measured.value *= 1.5;
  }
  const CrossValidationReport b = CrossValidateOnTwo(changed);
  EXPECT_EQ(ExpectSamePredictions(
                a, b, [&](size_t i) { return a.source[i] == "korthikanti et al. 2022"; }),
            9);
  // The other family's fit did see the change: its predictions moved.
  EXPECT_TRUE(
      AnyPredictionMoved(a, b, [&](size_t i) { return a.source[i] == "narayanan et al. 2021"; }));
}

// The gate on the bundled runs, out of sample: 9.04% / 30.66% with DeepSpeed
// ZeRO-3's per-tensor collectives on the compute stream (A100 p90 132% ->
// 28.5%); 9.04% / 37.17% before, with the host-bound MoE dispatcher sync
// (MoE 19.1% / 38.8%, was 23.1% / 56.7%; the p90 of all runs rose from 36.5%).
// Now 7.21% / 31.40%: stated gradient dtypes (Megatron-Bridge recipes'
// grad_reduce_in_fp32 = False; DeepSpeed ZeRO reduce-scatters the fp16
// gradients) halve the gradient traffic of runs already predicted too fast
// (B200 gpt-oss, Narayanan et al.'s ZeRO-3 rows), and Megatron-LM runs are
// offered only the ZeRO stages of their date (median from 7.4%, p90 28.3%).
// A fact a source states is modelled even where it moves the error up; the
// gate follows the measurement, not the other way round.
// Now 7.21% / 28.32%: ZeRO-3 comes after every model-parallel size where
// the framework does not default to it (LLaMA-1 65B -70.0% -> -16.9%).
// Now 6.87% / 27.07%: DeepSpeed ZeRO-3 gathers the weights again for the
// recomputed forward (Narayanan et al.'s ZeRO-3 rows +18..+63% -> +1..+34%).
// Now 6.87% / 28.00%: the two levels of a split switched unit overlap their
// all-to-all transfer starts on the shared links (doc/cost-model.md § 4.6.1;
// a larger domain is never slower), so the pairwise all-to-all of the
// Megatron-Bridge MoE runs gets cheaper and the p90 moves to Megatron-Bridge
// gpt-oss-120b on 64 GB300 (+26.2% -> +28.0%, a run already too fast).
// Now 7.87% / 33.25% over 141 runs (132 before): the nine torchtitan runs of
// its Dec 2024 and Jun 2025 benchmark files are predicted with the sequence
// length, operator-level SAC and micro-batch of torchtitan's own Llama 3
// configs instead of being skipped for an unstated seq_len. All are
// predicted too fast (+25% to +66%): they ran on 96 GB H100s capped at
// 500 W, a clock occam has no source for, so they take the 700 W H100
// calibration. Skipping them had kept the gate low; they are now counted.
// Lowered when a closest (not the row's own) Megatron-Bridge recipe's
// recompute became a first choice with the heavier policies after it, so a
// row whose layout does not fit with it takes the lightest that does
// (gpt-oss-120b 25.11: H100 +49.6% -> +18.3%, B200 +125.9% -> +81.7%):
// 7.87% / 29.08%.
// MaxText's remat policies read as JAX's dot-saving policies: 7.54% / 29.08%.
// The 500 W H100's peak at the midpoint of its stated interval, and eager
// torchtitan's element-wise kernels counted one by one: 7.54% / 28.01%.
// NeMo's launcher and DGX Cloud configs as recipes (bf16 gradient sync in
// all DGX Cloud NeMo configs and NeMo 24.07's Nemotron-4 340B, whose
// selective recompute now fits): the DGX Cloud runs, training runs of every
// other H100 fold, move the fold refits (h100 0.61 -> 0.62-0.63): H100
// 5.6% / 26.6% -> 4.0% / 18.7%, the 500 W torchtitan runs through the
// transfer worse; all 7.80% / 29.08%.
// DeepSpeed ZeRO-3 holding weight matrices, not blocks: Narayanan et al.'s
// 640-GPU ZeRO-3 run predicted instead of skipped (+27.3%): 7.80% / 29.08%
// over 142 runs.
// The LM head 16-bit under FP8 training: 7.69% / 29.08% (MoE 11.2% -> 9.0%).
// torchtitan's eager cross entropy charged its passes over the logits:
// 7.69% / 29.02%.
// Lowered when the torchtitan runs of before PyTorch 2.9 ran SDPA's
// FlashAttention-2 (0.522 of the fused kernels' rate on an H100): 7.69% /
// 27.27%.
// torchtitan's Float8 costed as torchao's dynamic scaling (an amax read per
// cast, the weights cast on every forward): 7.69% / 26.26%.
// Megatron-LM runs costed with its default unfused vocab-parallel cross
// entropy (52 B per logit against the fused 20): 7.80% / 24.92%, the p90
// under the 25% the accuracy target sets.
// NeMo's launch configs' cross entropy (unfused where they leave
// cross_entropy_loss_fusion unset: NeMo 24.07's GPT-3 175B, Llama 2 70B,
// Nemotron-4 340B; DGX Cloud's GPT-3 175B and Grok-1): those runs move under
// 0.6 points, but the H100 fit without Megatron-LM's runs moves from
// (0.59, half width 0) to (0.64, 512), its training median 4.5% -> 3.9%:
// 8.19% / 25.05%.
// The folds' fit became the catalog's too (`occam validate --fit`: the same
// coordinate descent on all runs), and the dispatcher's host idle a FLOP
// share of the MoE block's time, monotone in every resource (the fold
// without Megatron-Bridge fits a host time of 8.0 ms, 8.5 before): 8.15% /
// 25.05%, the MoE runs' median 9.6% -> 12.0%.
// Megatron-LM before 2022-02 adding each micro-batch's gradient into its
// main-grad buffer (no gradient accumulation fusion): the A100 runs 7.54% ->
// 3.25% out of sample, all runs 7.80% / 25.09%; the PP band 9% -> 8%.
// The Megatron-LM README runs' stated pipeline-parallel communication
// overlap read as the interleaved schedule it needs (Megatron-LM turns the
// overlap off without a virtual pipeline size): 7.65% / 26.26%, the MoE runs
// 12.0% -> 9.4% (the fold without DGX Cloud's runs refits h100 from 0.63 with
// width half-point 128 to 0.56 with 0, and its MaxText Llama 2 70B rows
// moved past 25%). Then those rows' own recipe (DGX Cloud's
// maxtext/configure.sh: remat_policy custom keeping the projections, not
// MaxText's default full remat): 7.58% / 24.37%, MoE 8.98%.
constexpr double kMaxOosMedian = 0.076;
constexpr double kMaxOosP90 = 0.244;
constexpr double kMaxOosMoeMedian = 0.090;

TEST(CrossValidation, OutOfSampleGateAndTheVerdictsErrorBand) {
  auto runs = BundledRuns();
  ASSERT_TRUE(runs.ok());
  const CrossValidationReport cv = CrossValidateOnTwo(*runs);
  const ValidationReport& r = cv.summary;
  std::printf("out of sample: %lld runs, median %.2f%%, p90 %.2f%%\n",
              static_cast<long long>(r.all.runs), 100 * r.all.median, 100 * r.all.p90);
  for (const ErrorStats& f : r.families) {
    std::printf("  %-20s %3lld runs median %6.2f%% p90 %6.2f%%\n", f.group.c_str(),
                static_cast<long long>(f.runs), 100 * f.median, 100 * f.p90);
  }
  // validate --cv source --explain: a run explained under its fold's
  // calibration is the run the table predicts out of sample (one per source).
  std::set<std::string> explained;
  for (size_t i = 0; i < runs->size(); ++i) {
    const RunValidation& v = r.runs[i];
    if (!v.predicted || v.kind == MetricKind::kMemoryPerChipBytes) continue;
    if (!explained.insert(cv.source[i]).second) continue;
    ValidateOptions o;
    const auto& fold = cv.fold_overrides.at(cv.source[i]);
    o.overrides.assign(fold.begin(), fold.end());
    const RunExplanation x = ExplainRun((*runs)[i], o);
    ASSERT_TRUE(x.row.predicted && x.estimate) << v.id;
    EXPECT_DOUBLE_EQ(*x.row.predicted, *v.predicted) << v.id;
    EXPECT_DOUBLE_EQ(x.estimate->step_time.value(), v.predicted_step_time_s) << v.id;
  }
  EXPECT_GE(explained.size(), 8u);
  EXPECT_LE(r.all.median, kMaxOosMedian);
  EXPECT_LE(r.all.p90, kMaxOosP90);
  const auto moe = std::find_if(r.families.begin(), r.families.end(),
                                [](const ErrorStats& f) { return f.group == "moe"; });
  ASSERT_NE(moe, r.families.end());
  EXPECT_GE(moe->runs, 20);
  EXPECT_LE(moe->median, kMaxOosMoeMedian);
  // The PP verdict's band is this median, rounded up to a whole percent.
  EXPECT_DOUBLE_EQ(kPpErrorBand, std::ceil(100 * r.all.median) / 100);
}

// Memory runs, out of sample: each document's runs are converted with the
// allocator overhead fitted on the other documents' runs, so a document's
// measured values never reach its own predictions (and do reach the others',
// so the check is not vacuous).
TEST(CrossValidation, MemoryFoldsHoldOutTheirDocument) {
  auto runs = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok());
  const std::string held = runs->front().url;
  std::vector<PublishedRun> changed = *runs;
  for (PublishedRun& r : changed) r.measured.value *= r.url == held ? 1.5 : 1.0;
  const CrossValidationReport a = CrossValidateOnTwo(*runs);
  const CrossValidationReport b = CrossValidateOnTwo(changed);
  const auto held_out = [&](size_t i) { return (*runs)[i].url == held; };
  EXPECT_GE(ExpectSamePredictions(a, b, held_out), 1);
  // Changing every other document's figures moves the held-out document's
  // fit, so the check above is not vacuous.
  std::vector<PublishedRun> others = *runs;
  for (PublishedRun& r : others) r.measured.value *= r.url == held ? 1.0 : 1.2;
  const CrossValidationReport c = CrossValidateOnTwo(others);
  EXPECT_TRUE(AnyPredictionMoved(a, c, held_out));
}

// The memory gate out of sample (leave one document out), and the error
// band the estimate and plan outputs quote: this median, rounded up to a
// whole percent.
constexpr double kMaxOosMemoryMedian = 0.062;
constexpr double kMaxOosMemoryP90 = 0.18;
TEST(CrossValidation, MemoryOutOfSampleGateAndTheFitBand) {
  auto runs = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok());
  const CrossValidationReport cv = CrossValidateOnTwo(*runs);
  ASSERT_FALSE(cv.summary.memory.empty());
  const ErrorStats& all = cv.summary.memory.front();
  EXPECT_EQ(all.runs, static_cast<int64_t>(runs->size()));
  std::printf("memory out of sample: %lld runs, median %.2f%%, p90 %.2f%%\n",
              static_cast<long long>(all.runs), 100 * all.median, 100 * all.p90);
  EXPECT_LE(all.median, kMaxOosMemoryMedian);
  EXPECT_LE(all.p90, kMaxOosMemoryP90);
  EXPECT_DOUBLE_EQ(kMemoryErrorBand, std::ceil(100 * all.median) / 100);
}

// data/calibration.yaml's fitted rows are what `occam validate --fit` gives
// on the bundled runs (the procedure every --cv fold runs on its training
// runs): a model change that moves the fit fails here until the catalog is
// refitted. Efficiencies of the transfers are written to three decimals.
TEST(CalibrationFit, TheCatalogIsTheFitOfTheBundledRuns) {
  auto runs = BundledRuns();
  auto memory = BundledMemoryRuns();
  ASSERT_TRUE(runs.ok() && memory.ok());
  runs->insert(runs->end(), memory->begin(), memory->end());
  const FitReport fit = FitCalibration(*runs);
  auto expect_row = [](const std::string& key, const FamilyFit& f, double eff_tol) {
    const Result<ChipSpec> chip = CatalogChip(key);
    ASSERT_TRUE(chip.ok()) << key;
    EXPECT_NEAR(chip->gemm_efficiency, f.point.efficiency, eff_tol) << key;
    EXPECT_EQ(chip->gemm_half_tokens, f.point.half_tokens) << key;
    EXPECT_EQ(chip->gemm_half_width, f.point.half_width) << key;
    if (f.host_fitted) EXPECT_NEAR(chip->moe_dispatch_host_s * 1e3, f.point.host_ms, 1e-9) << key;
  };
  std::set<std::string> fitted;
  double h100_host = -1;
  for (const FamilyFit& f : fit.fits) {
    fitted.insert(f.family);
    expect_row(f.family, f, 1e-9);
    if (f.family == "a100") expect_row("a100-40g", f, 1e-9);
    if (f.family == "h100") h100_host = f.point.host_ms;
  }
  EXPECT_EQ(fitted, (std::set<std::string>{"a100", "h100", "tpu-v5e", "tpu-v5p"}));
  EXPECT_EQ(fit.transfers.size(), 6u);
  for (const FamilyFit& t : fit.transfers) expect_row(t.family, t, 5e-4);
  // The A100s run no MoE run to fit a host time on: the h100's, the same
  // Megatron-Core dispatcher's.
  ASSERT_GE(h100_host, 0);
  EXPECT_NEAR(CatalogChip("a100")->moe_dispatch_host_s * 1e3, h100_host, 1e-9);
}

}  // namespace
}  // namespace occam
