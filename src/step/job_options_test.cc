// Framework-level job options in a whole step: the attention kernel and
// dropout (memory-bound passes priced at the chip's HBM bandwidth, the stored
// score matrix) and the overlap of the data-parallel gradient reduction.
#include <gtest/gtest.h>

#include <string>

#include "cost/test_models.h"
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

TEST(JobOptions, UnoverlappedGradientReductionIsAllExposed) {
  // Llama 3 8B on 64 H100s (8 nodes): the dp reduce-scatter crosses InfiniBand.
  const ModelSpec model = testing::Llama8B();
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 256;
  auto plan = ParsePlan("tp=1,pp=1,dp=64,zero=1,mbs=1,recompute=full");
  ASSERT_TRUE(plan.ok());
  auto grad = [&](bool overlap) {
    job.overlap_grad_reduce = overlap;
    auto e = EstimateStep(model, testing::H100Cluster(64), job, *plan);
    EXPECT_TRUE(e.ok()) << e.status().message();
    for (const TimeItem& t : e->breakdown) {
      if (t.axis == "dp" && t.what.find("gradient") != std::string::npos) return t;
    }
    ADD_FAILURE() << "no dp gradient item";
    return TimeItem{};
  };
  const TimeItem on = grad(true), off = grad(false);
  EXPECT_GT(on.total.value(), 0.0);
  EXPECT_DOUBLE_EQ(off.total.value(), on.total.value());
  EXPECT_DOUBLE_EQ(off.exposed.value(), off.total.value());
  EXPECT_LT(on.exposed.value(), 0.5 * on.total.value());
}

}  // namespace
}  // namespace occam
