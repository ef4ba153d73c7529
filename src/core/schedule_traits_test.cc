#include "occam/schedule_traits.h"

#include <gtest/gtest.h>

namespace occam {
namespace {

TEST(ScheduleTraits, OneRowPerScheduleInEnumOrder) {
  const auto all = AllScheduleTraits();
  ASSERT_EQ(all.size(), 8u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(all[i].schedule), i) << ScheduleName(all[i].schedule);
    EXPECT_EQ(&TraitsOf(all[i].schedule), &all[i]);
  }
}

// Chunks per lane: 1F1B one stage per device; interleaved v (Narayanan et al.
// 2021 §2.2); ZB-V and DualPipeV a V of two; DualPipe one per direction.
TEST(ScheduleTraits, LaneAndModelChunks) {
  EXPECT_EQ(LaneChunks(Schedule::k1F1B, 4), 1);
  EXPECT_EQ(LaneChunks(Schedule::kInterleaved, 3), 3);
  EXPECT_EQ(LaneChunks(Schedule::kGpipe, 0), 1);
  EXPECT_EQ(LaneChunks(Schedule::kZbV, 1), 2);
  EXPECT_EQ(LaneChunks(Schedule::kDualPipe, 2), 1);
  EXPECT_EQ(ModelChunkCount(Schedule::kInterleaved, 4, 2), 8);
  EXPECT_EQ(ModelChunkCount(Schedule::kDualPipeV, 4, 2), 8);
  EXPECT_EQ(ModelChunkCount(Schedule::kDualPipe, 4, 1), 4);
  EXPECT_EQ(TraitsOf(Schedule::kDualPipe).parameter_copies, 2);
  EXPECT_EQ(DefaultLaneChunks(Schedule::kInterleaved), 2);
  EXPECT_EQ(DefaultLaneChunks(Schedule::kGpipe), 1);
}

TEST(ScheduleTraits, ChunkPlacement) {
  const int64_t p = 4;
  // Looped: chunk c on device c mod p.
  EXPECT_EQ(ChunkOnDevice(Schedule::kInterleaved, p, 1, 2), 1 + 2 * p);
  // V: device d holds chunks d and 2p - 1 - d.
  EXPECT_EQ(ChunkOnDevice(Schedule::kZbV, p, 0, 1), 2 * p - 1);
  EXPECT_EQ(ChunkOnDevice(Schedule::kDualPipeV, p, 3, 1), p);
  // Mirrored: device d also holds stage p - 1 - d.
  EXPECT_EQ(ChunkOnDevice(Schedule::kDualPipe, p, 0, 1), p - 1);
  EXPECT_EQ(ChunkOnDevice(Schedule::kDualPipe, p, 2, 0), 2);
}

TEST(ScheduleTraits, MicrobatchRules) {
  const int64_t p = 4;
  EXPECT_TRUE(MicrobatchesFit(Schedule::kInterleaved, p, 3 * p));
  EXPECT_FALSE(MicrobatchesFit(Schedule::kInterleaved, p, 3 * p + 1));
  EXPECT_TRUE(MicrobatchesFit(Schedule::kZbV, p, 2 * p - 1));
  EXPECT_FALSE(MicrobatchesFit(Schedule::kZbV, p, 2 * p - 2));
  EXPECT_TRUE(MicrobatchesFit(Schedule::kDualPipe, p, 2 * p));
  EXPECT_FALSE(MicrobatchesFit(Schedule::kDualPipe, p, 2 * p + 1));
  EXPECT_FALSE(MicrobatchesFit(Schedule::kDualPipe, 3, 20));
  EXPECT_TRUE(MicrobatchesFit(Schedule::kDualPipeV, p, 2 * p + 1));
  EXPECT_FALSE(MicrobatchesFit(Schedule::kDualPipeV, p, 2 * p - 1));
  EXPECT_TRUE(MicrobatchesFit(Schedule::k1F1B, p, 1));
  for (const ScheduleTraits& t : AllScheduleTraits()) {
    for (int64_t m = 1; m < 40; ++m) {
      EXPECT_EQ(MicrobatchesFit(t.schedule, p, m), MicrobatchNeeds(t.schedule, p, m).empty())
          << ScheduleName(t.schedule) << " m=" << m;
    }
  }
}

TEST(ScheduleTraits, MicrobatchNeedsNameTheRule) {
  EXPECT_EQ(MicrobatchNeeds(Schedule::kZbV, 4, 3), "at least 2*pp-1 = 7 micro-batches");
  EXPECT_EQ(MicrobatchNeeds(Schedule::kDualPipe, 3, 6), "an even pp (got pp=3)");
  EXPECT_EQ(MicrobatchNeeds(Schedule::kDualPipe, 4, 9),
            "an even micro-batch count of at least 2*pp = 8");
  EXPECT_EQ(MicrobatchNeeds(Schedule::kInterleaved, 4, 6),
            "a micro-batch count that is a multiple of pp=4");
}

TEST(ScheduleTraits, PeriodAndNames) {
  EXPECT_EQ(MicrobatchPeriod(Schedule::kInterleaved, 8), 8);
  EXPECT_EQ(MicrobatchPeriod(Schedule::kDualPipeV, 8), 2);
  EXPECT_EQ(MicrobatchPeriod(Schedule::k1F1B, 8), 1);
  EXPECT_EQ(PlanVppScheduleNames(), "interleaved, zbv or dualpipev");
  EXPECT_EQ(PipelineScheduleNames(),
            "gpipe, afab, 1f1b, interleaved, zb-h1, zbv, dualpipe, dualpipev");
}

}  // namespace
}  // namespace occam
