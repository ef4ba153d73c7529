#include "sim/schedules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "occam/simulate.h"
#include "sim/pipeline_internal.h"

namespace occam::sim {
namespace {

struct Shape {
  Schedule s;
  int64_t p, v, m;
};

// UnpairedPassFraction is the share, over all devices together, of forward
// passes that the operation list runs outside an F&B pair: counted here from
// the program itself.
TEST(Schedules, UnpairedPassFractionCountsTheProgramsPairs) {
  const Shape shapes[] = {
      {Schedule::kDualPipe, 2, 1, 4},    {Schedule::kDualPipe, 4, 1, 8},
      {Schedule::kDualPipe, 8, 1, 20},   {Schedule::kDualPipe, 6, 1, 14},
      {Schedule::kDualPipe, 16, 1, 120}, {Schedule::kDualPipeV, 4, 2, 10},
      {Schedule::kDualPipeV, 3, 2, 7},   {Schedule::kDualPipeV, 1, 2, 2},
      {Schedule::kDualPipeV, 8, 2, 64},
  };
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(std::string(ScheduleName(sh.s)) + " p=" + std::to_string(sh.p) +
                 " m=" + std::to_string(sh.m));
    ASSERT_TRUE(CheckShape(sh.s, sh.p, sh.v, sh.m).ok());
    const Program prog = BuildProgram(sh.s, sh.p, sh.v, sh.m);
    double alone = 0;
    for (const std::vector<Op>& ops : prog.ops) {
      double forwards = 0, paired = 0;
      for (const Op& op : ops) {
        if (op.kind == OpKind::kForward) forwards += 1;
        if (op.kind == OpKind::kForwardBackward) {
          forwards += 1;
          paired += 1;
        }
      }
      alone += 1.0 - paired / forwards;  // every device runs m forwards
    }
    EXPECT_DOUBLE_EQ(UnpairedPassFraction(sh.s, sh.p, sh.m),
                     alone / static_cast<double>(prog.ops.size()));
  }
  EXPECT_EQ(UnpairedPassFraction(Schedule::k1F1B, 4, 8), 1.0);
  // p = 2, m = 4: three of each device's four forwards run alone.
  EXPECT_DOUBLE_EQ(UnpairedPassFraction(Schedule::kDualPipe, 2, 4), 0.75);
}

TEST(Schedules, EveryScheduleBuildsAValidProgram) {
  const Shape shapes[] = {
      {Schedule::kGpipe, 1, 1, 1},       {Schedule::kGpipe, 4, 1, 8},
      {Schedule::kGpipe, 3, 2, 5},       {Schedule::k1F1B, 1, 1, 3},
      {Schedule::k1F1B, 4, 1, 2},        {Schedule::k1F1B, 5, 1, 11},
      {Schedule::kInterleaved, 4, 2, 8}, {Schedule::kInterleaved, 3, 3, 9},
      {Schedule::kInterleaved, 2, 4, 2}, {Schedule::kZbH1, 4, 1, 3},
      {Schedule::kZbH1, 6, 1, 12},       {Schedule::kZbV, 4, 2, 7},
      {Schedule::kZbV, 3, 2, 10},        {Schedule::kDualPipe, 2, 1, 4},
      {Schedule::kDualPipe, 8, 1, 20},   {Schedule::kDualPipe, 6, 1, 14},
      {Schedule::kDualPipeV, 4, 2, 10},  {Schedule::kDualPipeV, 3, 2, 7},
      {Schedule::kDualPipeV, 1, 2, 2},
  };
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(std::string(ScheduleName(sh.s)) + " p=" + std::to_string(sh.p) +
                 " m=" + std::to_string(sh.m));
    ASSERT_TRUE(CheckShape(sh.s, sh.p, sh.v, sh.m).ok());
    const Program prog = BuildProgram(sh.s, sh.p, sh.v, sh.m);
    const Status st = ValidateProgram(prog, ScheduleName(sh.s));
    EXPECT_TRUE(st.ok()) << st.message();
  }
}

Program Small1F1B() { return BuildProgram(Schedule::k1F1B, 2, 1, 2); }

TEST(Schedules, ValidationCatchesBackwardBeforeForward) {
  Program prog = Small1F1B();
  auto& ops = prog.ops[1];  // device 1 (last): F0 B0 F1 B1
  std::swap(ops[0], ops[1]);
  const Status st = ValidateProgram(prog, "1f1b");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("before its forward"), std::string::npos) << st.message();
}

TEST(Schedules, ValidationCatchesDuplicateAndMissingOps) {
  Program dup = Small1F1B();
  dup.ops[0].push_back(dup.ops[0].front());
  EXPECT_NE(ValidateProgram(dup, "1f1b").message().find("twice"), std::string::npos);

  Program missing = Small1F1B();
  missing.ops[0].pop_back();
  EXPECT_NE(ValidateProgram(missing, "1f1b").message().find("never runs"), std::string::npos);

  Program wrong_device = Small1F1B();
  std::swap(wrong_device.ops[0], wrong_device.ops[1]);
  EXPECT_NE(ValidateProgram(wrong_device, "1f1b").message().find("another device"),
            std::string::npos);

  Program stray_w = BuildProgram(Schedule::k1F1B, 1, 1, 1);
  stray_w.ops[0].push_back(Op{OpKind::kWeight, 0, 0});
  EXPECT_FALSE(ValidateProgram(stray_w, "1f1b").ok());
}

TEST(Schedules, CrossDeviceDeadlockIsCaughtWhenPlayed) {
  // GPipe p = 2, m = 2, but device 0 runs B0 before F1: device 1 must finish
  // F1 before its B0, F1 needs device 0's F1, which waits for B0. A cycle.
  Program prog = BuildProgram(Schedule::kGpipe, 2, 1, 2);
  auto& ops = prog.ops[0];  // F0 F1 B0 B1
  std::swap(ops[1], ops[2]);
  ASSERT_TRUE(ValidateProgram(prog, "gpipe").ok());  // per-device order is fine
  PipelineConfig c;
  c.schedule = Schedule::kGpipe;
  c.stages = 2;
  c.microbatches = 2;
  ChunkCost k;
  k.forward = k.backward_input = k.backward_weight = Seconds(1);
  c.chunks = {k};
  const auto r = SimulateProgram(c, prog);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("wait on each other"), std::string::npos)
      << r.status().message();
}

TEST(Schedules, ShapeRulesAreInputErrors) {
  EXPECT_EQ(CheckShape(Schedule::kInterleaved, 4, 2, 6).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(CheckShape(Schedule::kDualPipe, 3, 1, 12).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(CheckShape(Schedule::kDualPipe, 4, 1, 6).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(CheckShape(Schedule::kZbV, 4, 1, 16).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(CheckShape(Schedule::k1F1B, 4, 2, 16).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(CheckShape(Schedule::k1F1B, 0, 1, 16).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(CheckShape(Schedule::kInterleaved, 4, 1, 8).code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(CheckShape(Schedule::kInterleaved, 4, 2, 8).ok());
}

TEST(Schedules, OnlyAllForwardFirstSchedulesPassTheGlobalLossCheck) {
  EXPECT_FALSE(BackwardBeforeLastForward(BuildProgram(Schedule::kGpipe, 4, 1, 8), nullptr));
  EXPECT_FALSE(BackwardBeforeLastForward(BuildProgram(Schedule::kGpipe, 4, 2, 8), nullptr));
  std::string where;
  EXPECT_TRUE(BackwardBeforeLastForward(BuildProgram(Schedule::k1F1B, 4, 1, 8), &where));
  EXPECT_FALSE(where.empty());
  EXPECT_TRUE(BackwardBeforeLastForward(BuildProgram(Schedule::kDualPipe, 4, 1, 8), nullptr));
}

// Combined 1F1B (Megatron-Core a2a overlap): on device d of an interleaved
// list, the forwards that run alone are Megatron-Core's warm-up
// min(2(p-d-1) + (v-1)p, m v) plus the one the overlap adds, and as many
// backwards run alone at the end; every other pass is in a pair. Without
// pipeline stages (1F1B, p = 1) only the first forward and the last
// backward run alone.
TEST(Schedules, CombinedPairsLeaveTheWarmUpPlusOneAlone) {
  struct S {
    Schedule s;
    int64_t p, v, m;
  };
  for (const S& sh : {S{Schedule::k1F1B, 1, 1, 6}, S{Schedule::kInterleaved, 4, 2, 8},
                      S{Schedule::kInterleaved, 8, 2, 32}, S{Schedule::kInterleaved, 2, 3, 4}}) {
    ASSERT_TRUE(CheckShape(sh.s, sh.p, sh.v, sh.m).ok());
    const Program prog = CombinedPairs(BuildProgram(sh.s, sh.p, sh.v, sh.m));
    ASSERT_TRUE(ValidateProgram(prog, "combined").ok());
    for (int64_t d = 0; d < sh.p; ++d) {
      const int64_t total = sh.m * sh.v;
      const int64_t warmup =
          sh.p == 1 ? 0 : std::min(2 * (sh.p - d - 1) + (sh.v - 1) * sh.p, total);
      const int64_t alone = std::min(warmup + 1, total);
      int64_t f = 0, b = 0, pairs = 0;
      for (const Op& op : prog.ops[static_cast<size_t>(d)]) {
        f += op.kind == OpKind::kForward;
        b += op.kind == OpKind::kBackward;
        pairs += op.kind == OpKind::kForwardBackward;
      }
      EXPECT_EQ(f, alone) << "device " << d;
      EXPECT_EQ(b, alone) << "device " << d;
      EXPECT_EQ(pairs, total - alone) << "device " << d;
    }
    PipelineConfig c;
    c.schedule = sh.s;
    c.stages = sh.p;
    c.vpp = sh.v;
    c.microbatches = sh.m;
    c.chunks = {
        ChunkCost{Seconds(1), Seconds(1), Seconds(1), Bytes(1), Seconds(0.5), Seconds(0.5)}};
    ASSERT_TRUE(SimulateProgram(c, prog).ok());
  }
}

}  // namespace
}  // namespace occam::sim
