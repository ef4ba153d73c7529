#include "occam/kinds.h"

#include <gtest/gtest.h>

namespace occam {
namespace {

TEST(Kinds, ScheduleNamesRoundTrip) {
  for (Schedule s : {Schedule::kNone, Schedule::kGpipe, Schedule::k1F1B, Schedule::kInterleaved,
                     Schedule::kZbH1, Schedule::kZbV, Schedule::kDualPipe, Schedule::kDualPipeV}) {
    auto parsed = ParseScheduleName(ScheduleName(s));
    ASSERT_TRUE(parsed.has_value()) << ScheduleName(s);
    EXPECT_EQ(*parsed, s);
  }
}

TEST(Kinds, AfabIsGpipe) { EXPECT_EQ(ParseScheduleName("afab"), Schedule::kGpipe); }

TEST(Kinds, UnknownNamesAreRejected) {
  EXPECT_FALSE(ParseScheduleName("2f2b").has_value());
  EXPECT_FALSE(ParseBalanceMethodName("auxfree").has_value());
  EXPECT_FALSE(ParseRecomputeName("some").has_value());
  EXPECT_FALSE(ParsePrecisionName("fp16").has_value());
  EXPECT_FALSE(ParseAttentionImplName("fused").has_value());
}

TEST(Kinds, AttentionImplNamesRoundTrip) {
  for (AttentionImpl a : {AttentionImpl::kFlash, AttentionImpl::kMaterialized}) {
    EXPECT_EQ(ParseAttentionImplName(AttentionImplName(a)), a);
  }
}

TEST(Kinds, OnlyAllForwardFirstSchedulesKeepBackwardApart) {
  EXPECT_FALSE(ScheduleInterleavesBackward(Schedule::kGpipe));
  EXPECT_TRUE(ScheduleInterleavesBackward(Schedule::k1F1B));
  EXPECT_TRUE(ScheduleInterleavesBackward(Schedule::kDualPipe));
}

}  // namespace
}  // namespace occam
