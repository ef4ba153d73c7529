#include "search/bounds.h"

#include <gtest/gtest.h>

#include "search/fake_evaluator_test_util.h"

namespace occam::search {
namespace {

TEST(Bounds, ParameterAndFlopCountsFollowTheShapes) {
  const ModelSpec m = testing::SmallMoe();
  const Bounds b(m, testing::SmallCluster(16), testing::SmallJob());
  const double h = 1024, v = 32000, mats = 3;
  const double moe_layers = 8;  // 9 layers, the first dense
  const double expert = mats * h * 2048;
  EXPECT_DOUBLE_EQ(b.expert_params(), moe_layers * 16 * expert);
  // Embedding + untied head + one dense MLP + one shared expert per MoE layer.
  EXPECT_DOUBLE_EQ(b.dense_params(), 2 * v * h + mats * h * 4096 + moe_layers * expert);
  // 6 per weight per token: head, dense MLP, shared and top-2 experts.
  EXPECT_DOUBLE_EQ(b.flops_per_token(),
                   6 * (v * h + mats * h * 4096 + moe_layers * expert + moe_layers * 2 * expert));
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
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(flat).value(), ideal * 4 / 3);
  PlanSpec piped;
  piped.pp = 4;
  piped.dp = 16;
  piped.schedule = Schedule::k1F1B;  // m = 64 / 16 = 4 micro-batches
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(piped).value(), ideal * (4 + 3) / 4.0);
  piped.schedule = Schedule::kZbV;  // no bubble counted for zero-bubble schedules
  EXPECT_DOUBLE_EQ(b.StepTimeLowerBound(piped).value(), ideal);
}

}  // namespace
}  // namespace occam::search
