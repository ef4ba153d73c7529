#include "search/bounds.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "occam/cost.h"
#include "occam/step.h"
#include "search/enumerate.h"
#include "search/fake_evaluator_test_util.h"

namespace occam::search {
namespace {

TEST(Bounds, ParameterAndFlopCountsAreTheCostLayers) {
  const ModelSpec m = testing::SmallMoe();
  const JobSpec job = testing::SmallJob();
  const Bounds b(m, testing::SmallCluster(16), job);
  const double h = 1024, v = 32000, mats = 3;
  const double moe_layers = 8;  // 9 layers, the first dense
  EXPECT_DOUBLE_EQ(b.expert_params(), moe_layers * 16 * mats * h * 2048);
  EXPECT_DOUBLE_EQ(b.dense_params() + b.expert_params(), static_cast<double>(CountParams(m).total));
  const double flops = ModelFlopsPerToken(m, job.seq_len).value();
  EXPECT_NEAR(b.flops_per_token(), flops, 1e-12 * flops);
  // Full recompute runs every block's forward again, not the LM head (2 h V).
  EXPECT_NEAR(b.recompute_flops_per_token(), flops / 3 - 2 * h * v, 1e-12 * flops);
}

TEST(Bounds, CountsTheMtpModules) {
  ModelSpec m = testing::SmallMoe();
  m.mtp_layers = 1;
  const JobSpec job = testing::SmallJob();
  const Bounds b(m, testing::SmallCluster(16), job);
  const ParamCounts c = CountParams(m);
  EXPECT_DOUBLE_EQ(b.dense_params() + b.expert_params(), static_cast<double>(c.total + c.mtp));
  EXPECT_DOUBLE_EQ(b.expert_params(), 9 * 16 * 3 * 1024.0 * 2048);  // 8 MoE layers + the module's
  const double flops = ModelFlopsPerToken(m, job.seq_len).value();
  EXPECT_NEAR(b.flops_per_token(), flops, 1e-12 * flops);
}

TEST(Bounds, MemoryShrinksWithShardingAndTimeGrowsWithBubbleAndRecompute) {
  const Bounds b(testing::SmallMoe(), testing::SmallCluster(64), testing::SmallJob(64));
  PlanSpec p;
  p.dp = 64;
  p.zero = 0;
  const Bytes replicated = b.MemoryLowerBound(p);
  EXPECT_DOUBLE_EQ(replicated.value(), 6.0 * (b.dense_params() + b.expert_params()));
  p.zero = 1;
  EXPECT_DOUBLE_EQ(b.MemoryLowerBound(p).value(),
                   2.0 * (b.dense_params() + b.expert_params()) +
                       4.0 * (b.dense_params() + b.expert_params()) / 64);
  p.zero = 3;
  EXPECT_DOUBLE_EQ(b.MemoryLowerBound(p).value(),
                   6.0 * (b.dense_params() + b.expert_params()) / 64);

  PlanSpec flat;
  flat.dp = 64;
  const double ideal = b.flops_per_token() * 64 * 4096 / 64 / 400e12;
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(flat).value(), ideal);
  flat.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(flat).value(),
                   (b.flops_per_token() + b.recompute_flops_per_token()) * 64 * 4096 / 64 / 400e12);
  EXPECT_LT(b.StepTimeLowerBound(flat).value(), ideal * 4 / 3);
  PlanSpec piped;
  piped.pp = 4;
  piped.dp = 16;
  piped.schedule = Schedule::k1F1B;  // m = 64 / 16 = 4 micro-batches
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(piped).value(), ideal * (4 + 3) / 4.0);
  piped.schedule = Schedule::kZbV;  // no bubble counted for zero-bubble schedules
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(piped).value(), ideal);
}

// The bounds against what the planner prunes them with: the step model's
// ranking estimate (EvaluateClosedForm), for a spread of candidates of the
// planner's own enumeration of catalog models (every `stride`-th), with the
// step model's own bounds; its link time is shared by the variants that
// differ only in recompute, all-to-all overlap and ZeRO stage 0 or 1 (the
// planner computes it once for these, once for ZeRO-2 and once per HSDP
// group for ZeRO-3).
void ExpectBelowTheStepModel(const char* model_key, const char* cluster_key, int64_t chips,
                             int64_t seqs, Precision precision, int64_t stride) {
  auto model = CatalogModel(model_key);
  auto cluster = CatalogCluster(cluster_key, chips);
  ASSERT_TRUE(model.ok() && cluster.ok()) << model_key << " on " << cluster_key;
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = seqs;
  job.precision = precision;
  job.moe_imbalance = model->moe ? 1.2 : 0.0;  // keep the routing simulation out of the test
  auto step = StepModel::Create(*model, *cluster, job);
  ASSERT_TRUE(step.ok()) << step.status().message();
  const Bounds b(*model, *cluster, job);
  const Constraints none;
  std::vector<Inner> inners;
  PlanSpec plan;
  int64_t index = 0, checked = 0;
  for (const Shape& shape : EnumerateShapes(*model, *cluster, job, none)) {
    inners.clear();
    EnumerateInner(*model, shape, *cluster, job, none, inners);
    for (const Inner& inner : inners) {
      if (index++ % stride != 0) continue;
      ApplyCandidate(shape, inner, none, plan);
      if (!ValidatePlan(*model, *cluster, job, plan).ok()) continue;
      const QuickEstimate q = step->EvaluateClosedForm(plan);
      ++checked;
      ASSERT_LE(b.StepTimeLowerBound(plan).value(), q.step_time.value()) << FormatPlan(plan);
      ASSERT_LE(b.MemoryLowerBound(plan).value(), q.memory_total.value()) << FormatPlan(plan);
      const StepModel::LowerBounds own = step->LowerBoundsFor(plan);
      ASSERT_LE(own.step_time.value(), q.step_time.value()) << FormatPlan(plan);
      // Equal for layouts that hold nothing beyond the bound's terms: up to
      // the summation order.
      ASSERT_LE(own.memory_by_zero[static_cast<size_t>(plan.zero)].value(),
                q.memory_total.value() * (1 + 1e-12))
          << FormatPlan(plan);
      const double link = step->LinkTimeFor(plan).value();
      ASSERT_LE(link, q.step_time.value()) << FormatPlan(plan);
      PlanSpec shared = plan;
      if (plan.zero < 2) shared.zero = 1;
      if (plan.zero < 3) shared.hsdp = 0;
      if (!PairsPasses(plan)) shared.a2a_overlap = EpOverlap::kNone;
      shared.recompute = Recompute::kNone;
      shared.recompute_modules = 0;
      ASSERT_EQ(step->LinkTimeFor(shared).value(), link) << FormatPlan(plan);
      // The search keeps one step and memory bound per (shape, mbs,
      // recompute): every other inner choice must give the same.
      PlanSpec sibling = plan;
      sibling.zero = plan.zero == 3 ? 1 : 3;
      sibling.hsdp = 0;
      sibling.a2a_overlap = EpOverlap::kNone;
      sibling.mesh = TorusMapping::kLinear;
      sibling.order = {};
      const StepModel::LowerBounds other = step->LowerBoundsFor(sibling);
      ASSERT_EQ(other.step_time.value(), own.step_time.value()) << FormatPlan(plan);
      for (size_t z = 0; z < own.memory_by_zero.size(); ++z) {
        ASSERT_EQ(other.memory_by_zero[z].value(), own.memory_by_zero[z].value())
            << FormatPlan(plan) << " zero " << z;
      }
    }
  }
  EXPECT_GT(checked, 100) << model_key;
}

TEST(Bounds, NeverAboveTheStepModel) {
  ExpectBelowTheStepModel("deepseek-v3", "h800", 256, 256, Precision::kFp8, 97);
  ExpectBelowTheStepModel("kimi-k2", "tpu-v5p", 256, 256, Precision::kBf16, 97);
  ExpectBelowTheStepModel("mixtral-8x7b", "h100", 64, 128, Precision::kBf16, 13);
  ExpectBelowTheStepModel("llama-3.1-70b", "gb200", 72, 144, Precision::kBf16, 13);
}

}  // namespace
}  // namespace occam::search
