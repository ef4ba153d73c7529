// Framework settings of published runs: the dated defaults of pre-2023
// frameworks and the settings runs state in free text (run_framework.cc).
#include <gtest/gtest.h>

#include "validate/run_setup.h"
#include "validate/run_test_util.h"
#include "validate/run_text.h"

namespace occam::validate {
namespace {

using testing::BundledRun;
using testing::HasFilled;

TEST(RunFramework, SourceYearIsAWholeWord) {
  EXPECT_EQ(SourceYear("Narayanan et al. 2021 (SC'21)"), 2021);
  EXPECT_EQ(SourceYear("tag v24.11.1"), 0);
  EXPECT_EQ(SourceYear("v2021x, run 12022"), 0);
  EXPECT_EQ(SourceYear("2023"), 2023);
}

TEST(RunFramework, AttentionKernelFollowsTheSourceDate) {
  // Before FlashAttention reached the frameworks (sources dated up to 2022):
  // materialised scores and dropout, recorded as filled values.
  auto old = BuildRunSetup(BundledRun("korthikanti2022_175B_selective_sp"));
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->job.attention, AttentionImpl::kMaterialized);
  EXPECT_TRUE(old->job.dropout);
  EXPECT_FALSE(old->job.overlap_grad_reduce);
  EXPECT_TRUE(HasFilled(old->filled, "job.attention"));
  EXPECT_TRUE(HasFilled(old->filled, "job.overlap_grad_reduce"));
  EXPECT_TRUE(HasFilled(old->filled, "job.dropout"));
  // A 2023 source and an undated one keep the defaults, and fill nothing.
  for (const char* id : {"llama1_65b_2048gpu", "dgxc_gpt3_175b_bf16_128gpu"}) {
    auto now = BuildRunSetup(BundledRun(id));
    ASSERT_TRUE(now.ok()) << id << ": " << now.status().message();
    EXPECT_EQ(now->job.attention, AttentionImpl::kFlash) << id;
    EXPECT_FALSE(now->job.dropout) << id;
    EXPECT_TRUE(now->job.overlap_grad_reduce) << id;
    EXPECT_FALSE(HasFilled(now->filled, "job.attention")) << id;
  }
  // A year must be a whole word: "v2021x" or "12022" is no date.
  PublishedRun r = BundledRun("narayanan2021_t1_1.7B_32gpu");
  r.source = "tag v2021x, run 12022";
  auto undated = BuildRunSetup(r);
  ASSERT_TRUE(undated.ok()) << undated.status().message();
  EXPECT_EQ(undated->job.attention, AttentionImpl::kFlash);
}

TEST(RunFramework, StatedSettings) {
  // Grok-1 on DGX Cloud: token dropping at capacity 1.0, experts split over
  // the tp group (Megatron-Core's default), TP comm overlap in the recipe.
  auto grok = BuildRunSetup(BundledRun("dgxc_grok1_314b_bf16_512gpu"));
  ASSERT_TRUE(grok.ok()) << grok.status().message();
  EXPECT_DOUBLE_EQ(grok->job.capacity_factor, 1.0);
  EXPECT_EQ(grok->plan.etp, grok->plan.tp);
  EXPECT_TRUE(grok->job.tp_comm_overlap);
  // MaxText v5p: XLA async collective fusion. Megatron-Bridge states neither.
  auto maxtext = BuildRunSetup(BundledRun("maxtext_v5p_512b_1x_v5p-1024"));
  ASSERT_TRUE(maxtext.ok()) << maxtext.status().message();
  EXPECT_TRUE(maxtext->job.tp_comm_overlap);
  auto bridge = BuildRunSetup(BundledRun("mbridge_2604_h100_qwen3_235b_256gpu"));
  ASSERT_TRUE(bridge.ok()) << bridge.status().message();
  EXPECT_FALSE(bridge->job.tp_comm_overlap);
  EXPECT_EQ(bridge->job.capacity_factor, 0.0);
  EXPECT_EQ(bridge->plan.etp, 1);
  // Its definition says the routing is force-balanced: every EP rank gets the mean load.
  EXPECT_DOUBLE_EQ(bridge->job.moe_imbalance, 1.0);
  EXPECT_EQ(grok->job.moe_imbalance, 0.0);  // simulated, then capped by the capacity
}

TEST(RunText, NumberAfterMarker) {
  EXPECT_DOUBLE_EQ(NumberAfter("moe_expert_capacity_factor 1.25 with", "capacity_factor"), 1.25);
  EXPECT_DOUBLE_EQ(NumberAfter("capacity_factor=2", "capacity_factor"), 2.0);
  EXPECT_DOUBLE_EQ(NumberAfter("capacity_factor none", "capacity_factor"), 0.0);
  EXPECT_DOUBLE_EQ(NumberAfter("no marker here", "capacity_factor"), 0.0);
}

}  // namespace
}  // namespace occam::validate
