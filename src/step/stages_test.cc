#include "step/stages.h"

#include <gtest/gtest.h>

namespace occam::step_internal {
namespace {

PlanSpec Pipe(int64_t pp, Schedule s, int64_t vpp = 1) {
  PlanSpec p;
  p.pp = pp;
  p.vpp = vpp;
  p.schedule = s;
  return p;
}

TEST(LayerSplit, DeepSeekV3On16StagesIsEvenInLayerEquivalents) {
  const PlanSpec plan = Pipe(16, Schedule::k1F1B);
  // 61 layers + embedding (1) + head (1) + MTP (2) = 65 units over 16 chunks.
  const LayerSplit s(plan, 16, 61, 1.0, 3.0);
  int64_t sum = 0, max_load = 0;
  for (int64_t c = 0; c < 16; ++c) {
    EXPECT_GE(s.Count(c), 1);
    EXPECT_EQ(s.Begin(c), sum);
    sum += s.Count(c);
    const int64_t load = s.Count(c) + (c == 0 ? 1 : 0) + (c == 15 ? 3 : 0);
    max_load = std::max(max_load, load);
  }
  EXPECT_EQ(sum, 61);
  EXPECT_EQ(max_load, 5);  // ceil(65 / 16)
  EXPECT_EQ(s.Count(0), 3);
  EXPECT_EQ(s.Count(15), 1);
}

TEST(LayerSplit, EvenWithoutExtras) {
  const PlanSpec plan = Pipe(4, Schedule::k1F1B);
  const LayerSplit s(plan, 4, 32, 0.0, 0.0);
  for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(s.Count(c), 8);
}

TEST(LayerSplit, ExplicitList) {
  PlanSpec plan = Pipe(4, Schedule::k1F1B);
  plan.stage_layers = {7, 9, 9, 7};
  const LayerSplit s(plan, 4, 32, 1.0, 1.0);
  EXPECT_EQ(s.Count(1), 9);
  EXPECT_EQ(s.Begin(3), 25);
}

TEST(LayerSplit, UnevenEndsPerRankOverItsChunks) {
  // Llama 3.1 405B's 126 layers on pp=8 interleaved with v=2: 16 layers on
  // the first rank, 14 on the last (8 and 7 per chunk), the 96 left over 6
  // middle ranks (16 each, 8 per chunk). Chunk c lies on rank c mod 8.
  PlanSpec plan = Pipe(8, Schedule::kInterleaved, 2);
  plan.first_layers = 16;
  plan.last_layers = 14;
  const LayerSplit s(plan, 16, 126, 1.0, 1.0);
  int64_t sum = 0;
  for (int64_t c = 0; c < 16; ++c) {
    EXPECT_EQ(s.Begin(c), sum) << c;
    const int64_t rank = c % 8;
    EXPECT_EQ(s.Count(c), rank == 7 ? 7 : 8) << c;
    sum += s.Count(c);
  }
  EXPECT_EQ(sum, 126);
  // Megatron's even split of 128 layers on 64 ranks: 2 each, where the
  // default rule (embedding and head counted as layers) gives one rank 3.
  PlanSpec even = Pipe(64, Schedule::k1F1B);
  even.first_layers = 2;
  even.last_layers = 2;
  const LayerSplit e(even, 64, 128, 1.0, 1.0);
  const PlanSpec plain = Pipe(64, Schedule::k1F1B);  // LayerSplit keeps a pointer to its plan
  const LayerSplit d(plain, 64, 128, 1.0, 1.0);
  int64_t most_even = 0, most_default = 0;
  for (int64_t c = 0; c < 64; ++c) {
    most_even = std::max(most_even, e.Count(c));
    most_default = std::max(most_default, d.Count(c));
  }
  EXPECT_EQ(most_even, 2);
  EXPECT_EQ(most_default, 3);
}

TEST(Chunks, PlacementPerSchedule) {
  EXPECT_EQ(ModelChunks(Pipe(4, Schedule::kInterleaved, 3)), 12);
  EXPECT_EQ(ChunkOf(Pipe(4, Schedule::kInterleaved, 3), 1, 2), 9);
  EXPECT_EQ(ModelChunks(Pipe(4, Schedule::kZbV, 2)), 8);
  EXPECT_EQ(ChunkOf(Pipe(4, Schedule::kZbV, 2), 0, 1), 7);  // V: device 0 holds first and last
  EXPECT_EQ(ModelChunks(Pipe(4, Schedule::kDualPipe)), 4);
  EXPECT_EQ(ChunkOf(Pipe(4, Schedule::kDualPipe), 1, 1), 2);
  // DualPipe's two stage copies each see half the micro-batches; the V and
  // interleaved chunks of a device each see all of them.
  EXPECT_EQ(ChunkShare(Pipe(4, Schedule::kDualPipe)), 0.5);
  EXPECT_EQ(ChunkShare(Pipe(4, Schedule::kZbV, 2)), 1.0);
  EXPECT_EQ(ChunkShare(Pipe(4, Schedule::kInterleaved, 3)), 1.0);
}

TEST(InFlight, ClosedForms) {
  const double m = 64;
  EXPECT_EQ(InFlight(Pipe(8, Schedule::k1F1B), 0, m, false), 8);
  EXPECT_EQ(InFlight(Pipe(8, Schedule::k1F1B), 5, m, false), 3);
  EXPECT_EQ(InFlight(Pipe(8, Schedule::kGpipe), 3, m, false), m);
  EXPECT_EQ(InFlight(Pipe(8, Schedule::k1F1B), 0, m, true), m);  // global aux loss
  // Interleaved: p + (p-1)/v on the first device (Korthikanti §4.2.3).
  EXPECT_DOUBLE_EQ(InFlight(Pipe(8, Schedule::kInterleaved, 4), 0, m, false), 8 + 7.0 / 4);
  EXPECT_EQ(InFlight(Pipe(8, Schedule::kDualPipe), 0, m, false), 9);
  // ZB-H1: device 5's 3 warm-up forwards plus its 5 pending weight-gradient
  // passes, whose inputs stay held until W (Qi et al. 2024 §3.1).
  EXPECT_EQ(InFlight(Pipe(8, Schedule::kZbH1), 5, m, false), 3 + 5);
  EXPECT_EQ(InFlight(Pipe(8, Schedule::k1F1B), 0, 3, false), 3);  // fewer micro-batches than p
}

TEST(Bubble, ClosedFormsForEqualStages) {
  const double p = 8, f = 1, b = 1, w = 1;
  const DeviceTimes one{Seconds(f), Seconds(b), Seconds(w)};
  const DeviceTimes all{Seconds(p * f), Seconds(p * b), Seconds(p * w)};
  const double m = 64;
  auto bubble = [&](const PlanSpec& plan, const DeviceTimes& sum, const DeviceTimes& crit) {
    return BubbleTime(plan, sum, crit, false, m).value();
  };
  EXPECT_DOUBLE_EQ(bubble(Pipe(8, Schedule::k1F1B), all, one), (p - 1) * 3);
  EXPECT_DOUBLE_EQ(bubble(Pipe(8, Schedule::kInterleaved, 2), all, one), (p - 1) * 3 / 2);
  EXPECT_DOUBLE_EQ(bubble(Pipe(8, Schedule::kZbH1), all, one), (p - 1) * (f + b - w));
  // ZB-H1 with m < p: (p - 1)(F + B) - (m - 1) W, the drain's wait.
  for (double few : {1.0, 3.0, 7.0}) {
    EXPECT_DOUBLE_EQ(BubbleTime(Pipe(8, Schedule::kZbH1), all, one, false, few).value(),
                     (p - 1) * (f + b) - (few - 1) * w);
  }
  EXPECT_DOUBLE_EQ(bubble(Pipe(8, Schedule::kDualPipe), all, one),
                   (p / 2 - 1) * (f + b + w + b + w - 3 * w));
  EXPECT_DOUBLE_EQ(bubble(Pipe(1, Schedule::kNone), one, one), 0);
}

}  // namespace
}  // namespace occam::step_internal
